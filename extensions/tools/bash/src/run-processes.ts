import type { ChildProcess } from 'node:child_process';
import { canScanProcesses, findRunProcesses, groupHasLiving, pidsSince, readProcess, signalProcesses, type ProcessInfo } from './proc-tree.js';

/**
 * The processes of one command: the shell's process group, and (on Linux) the processes that left
 * it but carry the run's marker. Ending them is SIGTERM now and SIGKILL after a grace period; the
 * SIGKILL timer outlives the call on purpose, since no process of the run may survive it.
 *
 * @example
 * const procs = new RunProcesses(child, runId);
 * procs.terminate(1500); // a timeout: the whole run, group and strays
 */
export class RunProcesses {
  readonly pid: number | undefined;
  readonly #child: ChildProcess;
  readonly #runId: string;
  readonly #spawnedAt = performance.now();
  /** The shell's start time: no process of this run started before it (see findRunProcesses). */
  readonly #since: string | undefined;
  #killTimer: NodeJS.Timeout | undefined;

  constructor(child: ChildProcess, runId: string) {
    this.#child = child;
    this.#runId = runId;
    this.pid = child.pid;
    this.#since = canScanProcesses && this.pid !== undefined ? readProcess(this.pid)?.start : undefined;
  }

  /** The pids a scan needs to read: those handed out since the shell started, while that is sure. */
  #scope(): ReturnType<typeof pidsSince> {
    return this.pid === undefined ? undefined : pidsSince(this.pid, performance.now() - this.#spawnedAt);
  }

  /** Some process of the group still lives (zombies, which only wait to be reaped, do not count where processes can be listed). */
  groupAlive(): boolean {
    if (this.pid === undefined) return false;
    try {
      process.kill(-this.pid, 0);
    } catch {
      return false;
    }
    return !canScanProcesses || groupHasLiving(this.pid, this.#scope());
  }

  /** Processes of this run outside the group (setsid, daemons); Linux only, see proc-tree.ts. */
  strays(): ProcessInfo[] {
    return this.pid === undefined ? [] : findRunProcesses(this.pid, this.#runId, this.#since, this.#scope());
  }

  /** A stop (timeout, abort): SIGTERM to the group and every stray now, SIGKILL to what is left after `graceMs`. */
  terminate(graceMs: number): void {
    const termed = this.strays();
    this.#signalGroup('SIGTERM');
    signalProcesses(termed, 'SIGTERM');
    this.#killTimer = setTimeout(() => {
      if (this.groupAlive()) this.#signalGroup('SIGKILL');
      // Those seen at SIGTERM time too: re-parented to init, they no longer descend from the shell.
      signalProcesses([...termed, ...this.strays()], 'SIGKILL');
    }, graceMs);
  }

  /**
   * The command ended on its own, but processes it started may live on (`sleep 23 &`, a daemon
   * that called setsid): nothing outlives its call unless the model asked for a background job.
   * SIGTERM now, SIGKILL after `graceMs`. Returns how many were found (1 where processes cannot
   * be listed) and whether anything was signalled.
   */
  endLeftovers(graceMs: number): { count: number; signalled: boolean } {
    // A zombie (exited, parent not reaping yet) still counts as a group member: not a leftover.
    const found = this.strays().filter((p) => !p.zombie);
    const group = this.groupAlive();
    if (found.length === 0 && !group) return { count: 0, signalled: false };
    if (group) this.#signalGroup('SIGTERM');
    signalProcesses(found, 'SIGTERM');
    this.#killTimer = setTimeout(() => {
      if (this.groupAlive()) this.#signalGroup('SIGKILL');
      signalProcesses([...found, ...this.strays()], 'SIGKILL');
    }, graceMs);
    this.#releaseWhenGone(found, graceMs);
    return { count: canScanProcesses ? found.length : 1, signalled: true };
  }

  /** The shell could not start: there is nothing to end. */
  cancelKill(): void {
    if (this.#killTimer !== undefined) clearTimeout(this.#killTimer);
    this.#killTimer = undefined;
  }

  #signalGroup(signal: NodeJS.Signals): void {
    if (this.pid === undefined) return;
    try {
      process.kill(-this.pid, signal);
    } catch {
      try {
        this.#child.kill(signal);
      } catch {
        // already gone
      }
    }
  }

  /**
   * Most leftovers are gone milliseconds after SIGTERM (often only the sandbox's processes,
   * exiting with the command, or zombies not reaped yet). The SIGKILL timer would still hold the
   * whole program open for the grace period after the call ended (1.5 s on every sandboxed bash
   * call): look every few milliseconds, and once the group and everything found are gone, and a
   * last scan finds nothing new, drop the timer.
   */
  #releaseWhenGone(found: readonly ProcessInfo[], graceMs: number): void {
    const until = Date.now() + graceMs;
    const poll = setInterval(() => {
      if (this.#killTimer === undefined || Date.now() > until) return clearInterval(poll);
      if (this.groupAlive() || found.some((p) => readProcess(p.pid)?.start === p.start && !readProcess(p.pid)?.zombie)) return;
      clearInterval(poll);
      const late = this.strays().filter((p) => !p.zombie);
      if (late.length > 0) {
        signalProcesses(late, 'SIGTERM');
        return; // the SIGKILL timer stays armed for these
      }
      this.cancelKill();
    }, 20);
    poll.unref();
  }
}
