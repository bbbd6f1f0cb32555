import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { gone, running } from '../../extensions/tools/bash/test/support/processes.js';
import { sandbox } from './harness.js';

/** Issue 19 §5 through the real CLI: no process of a call outlives the session. */

/**
 * Host pids of processes whose argv is exactly `argv`. A pid echoed by the command itself is no
 * use here: inside the OS sandbox the command has its own PID namespace, so `$!` is a small
 * number that means another process (or none) on the host.
 */
function pidsRunning(argv: readonly string[]): number[] {
  const want = `${argv.join('\0')}\0`;
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'latin1') === want && running(Number(name))) found.push(Number(name));
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

const pids: number[] = [];
afterEach(() => {
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
});

describe('airlock call bash: processes', () => {
  it('`sleep 23 &` does not outlive a call that ended normally', async () => {
    const s = sandbox();
    // A duration no other process uses, to find this sleep among the host's processes.
    const argv = ['sleep', `23.${process.pid}`];
    const r = await s.airlock(['call', 'bash', JSON.stringify({ command: `${argv.join(' ')} & echo started` })]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('started');
    const end = Date.now() + 4000;
    while (pidsRunning(argv).length > 0 && Date.now() < end) await new Promise((done) => setTimeout(done, 25));
    const left = pidsRunning(argv);
    pids.push(...left);
    expect(left).toEqual([]);
  }, 30_000);

  it('a background job runs after its call returns and ends with the session', async () => {
    const s = sandbox();
    const r = await s.airlock(['call', 'bash', JSON.stringify({ command: 'exec sleep 23', background: true })]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Started background job job-1 \(pid \d+\)/);
    const pid = Number(/\(pid (\d+)\)/.exec(r.stdout)?.[1]);
    pids.push(pid);
    // The CLI session is over: its job is too.
    expect(await gone(pid)).toBe(true);
  }, 30_000);
});
