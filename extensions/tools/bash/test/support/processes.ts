import { readFileSync } from 'node:fs';

/**
 * Whether a process is still there, for tests that check nothing outlives its call (the tool's
 * own tests and the CLI's end-to-end ones). Linux only: it reads /proc.
 */

/** Running: exists and is not a zombie (an exited child whose parent has not reaped it yet). */
export function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Waits up to `ms` for the process to end; true once it has. */
export async function gone(pid: number, ms = 4000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!running(pid)) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return !running(pid);
}
