import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extensionPackage, sandbox } from './harness.js';
import { scaledMs } from '@airlock/kernel/testing';

/**
 * Issue 19 §5: a FIFO in the workspace made `airlock call read` hang for ever, even with
 * --timeout-ms, because the open blocked a thread that nothing can cancel. Every call now has a
 * time limit, the built-in tools never block on a FIFO, and the CLI leaves even when a tool's
 * thread is still stuck.
 */

/** A third-party tool that opens a FIFO the blocking way: the thread it takes never comes back. */
const blockingTool = `import Type from 'typebox';
import { open } from 'node:fs/promises';
export default {
  name: 'blocker',
  options: Type.Object({}),
  setup(api) {
    api.registerTool({
      name: 'open_pipe', label: 'Open pipe', description: 'Open a path the blocking way.',
      parameters: Type.Object({ path: Type.String() }),
      async execute(_id, params, _signal, _update, ctx) {
        const fh = await open(ctx.cwd + '/' + params.path, 'r');
        await fh.close();
        return { content: [{ type: 'text', text: 'opened' }] };
      },
    });
  },
};
`;

describe('a FIFO in the workspace', () => {
  it('read refuses it at once and the CLI exits, with or without --timeout-ms', async () => {
    const s = sandbox();
    execFileSync('mkfifo', [join(s.project, 'f')]);
    for (const extra of [['--timeout-ms', '3000'], []]) {
      const r = await s.airlock(['call', 'read', '{"path":"f"}', ...extra]);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('f is a named pipe (FIFO), not a regular file; the read tool reads regular files only');
    }
  }, scaledMs(30_000));

  it('grep over the FIFO refuses it; grep over the folder skips it and finds the rest', async () => {
    const s = sandbox();
    execFileSync('mkfifo', [join(s.project, 'f')]);
    s.write('project/a.txt', 'needle\n');
    const one = await s.airlock(['call', 'grep', '{"pattern":"needle","path":"f"}']);
    expect(one.code).toBe(1);
    expect(one.stdout).toContain('f is a named pipe (FIFO), not a regular file');
    const all = await s.airlock(['call', 'grep', '{"pattern":"needle"}']);
    expect(all.code).toBe(0);
    expect(all.stdout).toContain('a.txt:1: needle');
  }, scaledMs(30_000));

  it('a tool stuck in a blocking open is ended by the time limit, and the CLI still exits', async () => {
    const s = sandbox();
    execFileSync('mkfifo', [join(s.project, 'f')]);
    const ext = extensionPackage(s, 'exts/blocker', { name: 'blocker', source: blockingTool });
    s.write('home/.config/airlock/settings.json', { extensions: [{ path: ext }] });
    const r = await s.airlock(['call', 'open_pipe', '{"path":"f"}', '--timeout-ms', '1000']);
    expect(r.stderr).toContain('timed out');
    expect(r.stdout).toContain('ran longer than 1000 ms');
    expect(r.stderr).toContain('a tool call is still stuck after being stopped');
  }, scaledMs(30_000));

  it('the settings give every call a time limit without --timeout-ms', async () => {
    const s = sandbox();
    execFileSync('mkfifo', [join(s.project, 'f')]);
    const ext = extensionPackage(s, 'exts/blocker', { name: 'blocker', source: blockingTool });
    s.write('home/.config/airlock/settings.json', { extensions: [{ path: ext }], execution: { timeoutMs: 1000 } });
    const r = await s.airlock(['call', 'open_pipe', '{"path":"f"}']);
    expect(r.stderr).toContain('timed out');
  }, scaledMs(30_000));
});
