import { afterEach, describe, expect, it } from 'vitest';
import { call, closeHosts, machine, open, stdioServer, text, withServers } from './support.js';

afterEach(closeHosts);

describe('a stdio server inside the OS sandbox', { timeout: 20_000 }, () => {
  it('cannot read a secret file even when the policy lets the call through by name (no resource mapping)', async () => {
    const m = machine();
    const host = await open(m, withServers({ demo: stdioServer(m) }, { permissions: { allow: ['demo__read_file'] } }));
    if (!host.sandbox.service.status.active) {
      // One loud line instead of a silent pass: on this machine the sandbox layer is not there to test.
      console.warn(`sandbox not active here (${host.sandbox.service.status.problem ?? 'unknown'}): skipping the sandbox check`);
      return;
    }
    const notes = await call(host, 'demo__read_file', { path: 'notes.txt' });
    expect(text(notes)).toBe('plain notes\n');
    const secret = await call(host, 'demo__read_file', { path: '.env' });
    expect(text(secret)).not.toContain('hunter2');
    expect(secret.isError).toBe(true);
  });

  it('with sandbox.mode "required" and no sandbox available, the server is not started', async () => {
    const m = machine();
    const lines: string[] = [];
    const host = await open(m, withServers({ demo: stdioServer(m) }, { sandbox: { mode: 'required' } }), { lines, sandboxProgram: '/nonexistent/bwrap' });
    expect(host.kernel.registry.has('demo__echo')).toBe(false);
    expect(m.starts()).toBe(0);
    expect(lines.join('\n')).toMatch(/MCP server "demo" did not start: sandbox\.mode is "required"/);
  });
});
