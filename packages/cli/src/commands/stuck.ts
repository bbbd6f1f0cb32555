import type { Host } from '@airlock/host';
import type { IO } from '../io.js';

/**
 * After the last result is written: if a tool the kernel gave up on is still running, it may
 * hold a thread in a system call nothing can cancel (a blocking open of a FIFO). Node's exit
 * waits for every thread of its pool, so the command would never end: say so, and end the
 * process with SIGKILL (exit status 137) instead.
 *
 * @example
 * try { … } finally { await host.close(); }
 * leaveIfStuck(host, io);
 */
export function leaveIfStuck(host: Host, io: IO): void {
  const stuck = host.kernel.status().stuckCalls;
  if (stuck === 0) return;
  io.stderr.write(
    `airlock: ${stuck === 1 ? 'a tool call is' : `${stuck} tool calls are`} still stuck after being stopped ` +
      '(for example in an open of a named pipe); ending the process now (exit status 137).\n',
  );
  io.killSelf?.();
}
