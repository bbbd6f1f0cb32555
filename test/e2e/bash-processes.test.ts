import { afterEach, describe, expect, it } from 'vitest';
import { gone, pidsRunning } from '../../extensions/tools/bash/test/support/processes.js';
import { sandbox } from './harness.js';
import { scaledMs } from '@airlock/kernel/testing';

/** Issue 19 §5 through the real CLI: no process of a call outlives the session. */

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
  }, scaledMs(30_000));

  it('a background job runs after its call returns and ends with the session', async () => {
    const s = sandbox();
    const r = await s.airlock(['call', 'bash', JSON.stringify({ command: 'exec sleep 23', background: true })]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Started background job job-1 \(pid \d+\)/);
    const pid = Number(/\(pid (\d+)\)/.exec(r.stdout)?.[1]);
    pids.push(pid);
    // The CLI session is over: its job is too.
    expect(await gone(pid)).toBe(true);
  }, scaledMs(30_000));
});
