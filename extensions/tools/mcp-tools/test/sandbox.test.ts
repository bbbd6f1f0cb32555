import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { scaledMs, socketListeners, visibleSocketFiles, writeReachProbe } from '@airlock/kernel/testing';
import { call, closeHosts, machine, open, stdioServer, text, withServers } from './support.js';

afterEach(closeHosts);

describe('a stdio server inside the OS sandbox', { timeout: scaledMs(20_000) }, () => {
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

describe('a stdio server reaches no Unix socket', { timeout: scaledMs(20_000) }, () => {
  it('its listeners outside the project and every socket the machine shows are refused inside the sandbox, and reached without it', async () => {
    for (const mode of ['auto', 'off'] as const) {
      const m = machine();
      const outside = join(m.base, 'outside');
      mkdirSync(outside);
      const listeners = await socketListeners([outside, m.home]);
      try {
        const host = await open(m, withServers({ demo: stdioServer(m) }, { sandbox: { mode }, permissions: { allow: ['demo__reach'] } }));
        if (mode === 'auto' && !host.sandbox.service.status.active) {
          console.warn(`sandbox not active here (${host.sandbox.service.status.problem ?? 'unknown'}): skipping the sandbox check`);
          return;
        }
        const paths = mode === 'off' ? listeners.paths : [...new Set([...listeners.paths, ...visibleSocketFiles({ home: m.home })])];
        const { list } = writeReachProbe(m.project, paths);
        const r = await call(host, 'demo__reach', { list });
        const answers = JSON.parse(text(r)) as Record<string, string>;
        for (const path of paths) expect(answers[path], `${mode}: ${path}`).toBe(mode === 'off' ? 'connected' : 'EPERM');
        // A connection is counted when the listener's accept runs, which may come after the answer.
        await vi.waitFor(() => expect(listeners.accepted()).toBe(mode === 'off' ? paths.length : 0));
      } finally {
        await listeners.close();
        await closeHosts();
      }
    }
  });
});
