import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { sandbox } from './harness.js';

/** Issue 19 §5 through the real CLI: no process of a call outlives the session. */

function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function gone(pid: number, ms = 4000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!running(pid)) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return !running(pid);
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
    const r = await s.airlock(['call', 'bash', JSON.stringify({ command: 'sleep 23 & echo pid=$!' })]);
    expect(r.code).toBe(0);
    const pid = Number(/pid=(\d+)/.exec(r.stdout)?.[1]);
    pids.push(pid);
    expect(pid).toBeGreaterThan(1);
    expect(await gone(pid)).toBe(true);
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
