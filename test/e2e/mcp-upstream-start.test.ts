import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, sandbox } from './harness.js';
import { scaledMs } from '@airlock/kernel/testing';

/** A real SDK server (tools spelled with "-", announces list changes on start, `--start-delay=MS`). */
const SERVER = join(ROOT, 'test/e2e/fixtures/everything-like-server.mjs');

function withServers(servers: Record<string, unknown>) {
  const s = sandbox();
  s.write('project/notes.txt', 'plain notes\n');
  s.write('home/.config/airlock/settings.json', {
    sandbox: { mode: 'off' },
    permissions: { allow: ['everything__get-sum', 'slow__get-sum', 'read'] },
    extensions: [{ name: '@airlock/mcp-tools', options: { mcpServers: servers } }],
  });
  return s;
}

const server = (extra: Record<string, unknown> = {}, args: string[] = []) => ({ command: process.execPath, args: [SERVER, ...args], ...extra });

describe('upstream MCP servers as users configure them', { timeout: scaledMs(180_000) }, () => {
  it('a server that announces a tool-list change as it starts: no warning about the connection Airlock closed itself', async () => {
    const s = withServers({ everything: server() });
    const r = await s.airlock(['call', 'everything__get-sum', '{"a":2,"b":3}']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('The sum of 2 and 3 is 5.');
    expect(r.stderr).not.toContain('listing its tools again failed');
    expect(r.stderr).not.toContain('Not connected');
  });

  it('startupTimeout above the host\'s 10 s setup limit is honoured: a server 11 s slow to start still brings its tools', async () => {
    const s = withServers({ slow: server({ startupTimeout: 40_000 }, ['--start-delay=11000']) });
    const r = await s.airlock(['call', 'slow__get-sum', '{"a":1,"b":1}']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('The sum of 1 and 1 is 2.');
    expect(r.stderr).not.toMatch(/did not finish setup/);
  });

  it('a server that misses its startupTimeout, or cannot start, costs only its own tools; the others and the built-ins run, and the process ends at once', async () => {
    const s = withServers({
      everything: server(),
      hanging: server({ startupTimeout: 1_500 }, ['--start-delay=120000']),
      missing: { command: join(s0(), 'no-such-server') },
    });
    const started = Date.now();
    const batch = [
      { name: 'read', arguments: { path: 'notes.txt' } },
      { name: 'everything__get-sum', arguments: { a: 4, b: 5 } },
    ];
    const r = await s.airlock(['batch', '-'], { stdin: JSON.stringify(batch) });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('plain notes');
    expect(r.stdout).toContain('The sum of 4 and 5 is 9.');
    expect(r.stderr).toMatch(/MCP server "hanging" did not start: it did not start and list its tools within 1500 ms/);
    expect(r.stderr).toMatch(/MCP server "missing" did not start/);
    expect(r.stderr).not.toMatch(/did not finish setup/);
    // The hanging server was stopped, not left to hold the process for its two minutes.
    expect(Date.now() - started).toBeLessThan(scaledMs(30_000, { below: 100_000 }));
  });
});

/** A folder that exists and holds no server. */
function s0(): string {
  return join(ROOT, 'test/e2e/fixtures');
}
