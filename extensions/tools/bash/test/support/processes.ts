import { readdirSync, readFileSync } from 'node:fs';

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

/**
 * Host pids of running processes whose argv is exactly `argv`. A pid echoed by the command itself
 * is no use in end-to-end tests: inside the OS sandbox the command has its own PID namespace, so
 * `$$` or `$!` is a small number that means another process (or none) on the host.
 */
export function pidsRunning(argv: readonly string[]): number[] {
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
