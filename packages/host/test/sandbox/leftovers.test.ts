import { afterEach, describe, expect, it } from 'vitest';
import { pidsRunning } from '../../../../extensions/tools/bash/test/support/processes.js';
import { bwrapWorks, hasProgram, machinesClosedAfterEach } from './support.js';

const hasSocat = hasProgram('socat', '-V');

/**
 * Nothing a sandboxed command starts outlives its call. The tool does not look for leftovers
 * after a sandboxed command (SandboxedCommand.processesEndWithIt): the sandbox's PID namespace
 * ends with it. These tests hold that promise, in the plain sandbox and beside the proxy bridge
 * (a second bubblewrap inside the first).
 */
const setup = machinesClosedAfterEach();
const stray: number[] = [];
afterEach(() => {
  for (const pid of stray.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
});

/** Waits up to 4 s for every process running `argv` to end; those left over. */
async function leftAfter(argv: readonly string[]): Promise<number[]> {
  const end = Date.now() + 4000;
  while (pidsRunning(argv).length > 0 && Date.now() < end) await new Promise((done) => setTimeout(done, 25));
  const left = pidsRunning(argv);
  stray.push(...left);
  return left;
}

/** Commands that leave processes behind: a background child holding the pipes, a daemon in a session of its own holding nothing. */
function leavers(tag: string) {
  const child = ['sleep', `23.${process.pid}${tag}`];
  const daemon = ['sleep', `24.${process.pid}${tag}`];
  const command = `${child.join(' ')} & (setsid ${daemon.join(' ')} < /dev/null > /dev/null 2>&1 &); echo started`;
  return { child, daemon, command };
}

describe.runIf(bwrapWorks)('sandboxed bash: nothing outlives its call', () => {
  it('a background child and a setsid daemon end with the command', async () => {
    const m = setup();
    const host = await m.open();
    const { child, daemon, command } = leavers('1');
    m.approve(command);
    const r = await m.bash(host, command);
    expect(r.outcome, r.text).toBe('ok');
    expect(r.details?.sandboxed).toBe(true);
    expect(r.text).toContain('started');
    expect(await leftAfter(child)).toEqual([]);
    expect(await leftAfter(daemon)).toEqual([]);
  });

  it.skipIf(!hasSocat)('…and beside the proxy bridge (a network allow rule: a second bubblewrap inside the first)', async () => {
    const m = setup({}, ['net(127.0.0.1)']);
    const host = await m.open();
    expect(host.sandbox.describe(m.project)).toContain("through Airlock's proxy");
    const { child, daemon, command } = leavers('2');
    m.approve(command);
    const r = await m.bash(host, `${command}; echo "proxy=$HTTP_PROXY"`);
    expect(r.outcome, r.text).toBe('ok');
    expect(r.text).toContain('proxy=http://');
    expect(await leftAfter(child)).toEqual([]);
    expect(await leftAfter(daemon)).toEqual([]);
  });
});
