import { afterEach, describe, expect, it } from 'vitest';
import { call, closeHosts, httpServer, machine, open, text, withServers } from './support.js';
import { scaledMs } from '@airlock/kernel/testing';

const servers: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  await closeHosts();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('mcp-tools over Streamable HTTP on 127.0.0.1', { timeout: scaledMs(20_000) }, () => {
  it('lists, calls, converts an image, and is judged by the same rules (a denied call never reaches the server)', async () => {
    const m = machine();
    const server = await httpServer(m.marks);
    servers.push(server);
    const lines: string[] = [];
    const host = await open(
      m,
      withServers({ web: { type: 'http', url: server.url, headers: { 'X-Test': '1' }, resources: { path: 'fs.read' } } }, { permissions: { deny: ['web__token'] } }),
      { lines },
    );
    expect(lines.filter((l) => l.includes('did not start'))).toEqual([]);
    expect(host.selection.has('web__echo')).toBe(true);
    expect(text(await call(host, 'web__echo', { text: 'over http' }))).toBe('echo: over http');
    const image = await call(host, 'web__image');
    expect(image.content.some((c) => c.type === 'image' && c.mimeType === 'image/png')).toBe(true);
    const denied = await call(host, 'web__token');
    expect(denied.outcome).toBe('denied');
    expect(text(denied)).not.toContain('ghp_');
    const env = await call(host, 'web__read_file', { path: '.env' });
    expect(env.outcome).toBe('denied');
    expect(m.marked('read-called')).toBe(false);
  });

  it('a URL where nothing answers is an error naming the server; its tools are not registered', async () => {
    const m = machine();
    const server = await httpServer(m.marks);
    const url = server.url;
    await server.close();
    const lines: string[] = [];
    const host = await open(m, withServers({ gone: { url, startupTimeout: 2_000 } }), { lines });
    expect(host.selection.enabled.some((e) => e.tool.name.startsWith('gone__'))).toBe(false);
    expect(lines.join('\n')).toMatch(/MCP server "gone" did not start/);
  });
});
