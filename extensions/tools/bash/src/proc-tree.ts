import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';

/**
 * Processes a command started that left its process group, found through Linux's /proc.
 *
 * Why: the tool signals the shell's process group, but `setsid`, `setpgid` or a daemonizing
 * double fork moves a process out of it, and a group kill never reaches it. Two marks find them:
 *
 * - the environment: every command runs with `AIRLOCK_BASH_RUN=<id of this run>`, and children
 *   inherit it, even those that were re-parented to init after their parent died;
 * - the parent chain: descendants of the shell that cleared their environment are still found
 *   while the shell (or the process between them) is alive.
 *
 * Only a process that both cleared the variable and lost its parent chain escapes. Other systems
 * have no /proc: there the group kill is all there is (see the README).
 *
 * Called when a command is stopped, and at the end of every command that runs outside a PID
 * namespace of its own. A pass over all of /proc reads one file per process on the machine (a few
 * milliseconds, far more under load); `pidsSince` narrows it to the pids handed out since the
 * command started, so a short command pays for the processes it made, not for the machine's.
 */
export const RUN_MARKER = 'AIRLOCK_BASH_RUN';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** Start time in clock ticks since boot: tells a pid apart from a later process reusing it. */
  start: string;
  /** Exited but not yet reaped (state Z): nothing left to end, and it holds no resources. */
  zombie: boolean;
  /** Its process group. */
  pgrp: number;
}

/** Whether /proc can be scanned here. */
export const canScanProcesses = process.platform === 'linux';

/**
 * One buffer for every stat file: readFileSync gives a /proc file (size 0 to stat) a fresh 64 KiB
 * buffer, which in a scan of every process made most of the scan's time and garbage.
 */
const statBuffer = Buffer.allocUnsafe(4096);

/** A /proc file of at most 4 KiB as text; undefined if it cannot be read (the process is gone). */
function readSmall(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    let length = 0;
    for (let n = -1; n !== 0 && length < statBuffer.length; length += n) n = readSync(fd, statBuffer, length, statBuffer.length - length, null);
    return statBuffer.toString('latin1', 0, length);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** pid, parent and start time from /proc/<pid>/stat; undefined once the process is gone. */
/** Which pids a scan reads; the others are passed over without opening anything. */
export type PidFilter = (pid: number) => boolean;

/**
 * The pids a process started at or after `rootPid` (a process that started `ms` ago) can have:
 * `rootPid` up to the newest pid handed out now. Undefined (scan everything) when that is not
 * known for sure: the pid counter wrapped around since (it restarts low after pid_max, 32768 on
 * some systems), or the command ran long enough that it might have wrapped all the way round
 * unseen; a quarter of a second is far below the time even a fork loop needs for that.
 *
 * Why it holds: Linux hands out pids in increasing order until it wraps, and a process that
 * left its parent, its group or its session keeps its pid. So does one in a PID namespace of its
 * own, as seen from ours.
 */
export function pidsSince(rootPid: number, ms: number): PidFilter | undefined {
  if (ms > 250) return undefined;
  const last = lastPid();
  if (last === undefined || last < rootPid) return undefined;
  return (pid) => pid >= rootPid && pid <= last;
}

/** The pid most recently handed out in this PID namespace, from /proc/loadavg's last field. */
export function lastPid(): number | undefined {
  try {
    const last = Number(readFileSync('/proc/loadavg', 'latin1').trim().split(' ').at(-1));
    return Number.isInteger(last) && last > 0 ? last : undefined;
  } catch {
    return undefined;
  }
}

export function readProcess(pid: number): ProcessInfo | undefined {
  const stat = readSmall(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // The command name (field 2) is in parentheses and may itself hold spaces or ")": fields after
  // it start after the last ")".
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(fields[1]);
  const pgrp = Number(fields[2]);
  const start = fields[19];
  if (!Number.isInteger(ppid) || !Number.isInteger(pgrp) || start === undefined) return undefined;
  return { pid, ppid, start, zombie: fields[0] === 'Z', pgrp };
}

/**
 * Whether process group `pgid` has a member that has not exited. `kill(-pgid, 0)` also succeeds
 * for a group of zombies, and zombies re-parented to an init that does not reap (some container
 * inits; the sandbox's bwrap leaves one behind) stay for good: waiting for them to go would hold
 * every command's end for the whole kill grace period. Linux only (see canScanProcesses).
 */
export function groupHasLiving(pgid: number, only?: PidFilter): boolean {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return true; // cannot tell: assume it has
  }
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || (only !== undefined && !only(pid))) continue;
    const info = readProcess(pid);
    if (info !== undefined && info.pgrp === pgid && !info.zombie) return true;
  }
  return false;
}

function hasMarker(pid: number, mark: string): boolean {
  try {
    // Entries are NUL-separated; the leading NUL keeps a longer name ending in ours from matching.
    return `\0${readFileSync(`/proc/${pid}/environ`, 'latin1')}`.includes(`\0${mark}\0`);
  } catch {
    return false; // gone, or not ours to read (then not ours to kill either)
  }
}

/**
 * Processes of this run other than this Node process: carrying `RUN_MARKER=runId`, or descending
 * from `rootPid`. With `since` (the shell's start time in clock ticks), processes that started
 * before the shell are passed over without reading their environment: that keeps the scan at
 * every call's end cheap on a machine with many processes.
 */
export function findRunProcesses(rootPid: number, runId: string, since?: string, only?: PidFilter): ProcessInfo[] {
  if (!canScanProcesses) return [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const all = new Map<number, ProcessInfo>();
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid || (only !== undefined && !only(pid))) continue;
    const info = readProcess(pid);
    if (info !== undefined) all.set(pid, info);
  }
  const mark = `${RUN_MARKER}=${runId}`;
  const found: ProcessInfo[] = [];
  const after = since === undefined ? undefined : BigInt(since);
  for (const info of all.values()) {
    if (after !== undefined && BigInt(info.start) < after) continue;
    if (descendsFrom(info, rootPid, all) || hasMarker(info.pid, mark)) found.push(info);
  }
  return found;
}

function descendsFrom(info: ProcessInfo, rootPid: number, all: Map<number, ProcessInfo>): boolean {
  // The depth bound guards against a cycle from pids reused while we were reading.
  let current: ProcessInfo | undefined = info;
  for (let depth = 0; current !== undefined && depth < 512; depth++) {
    if (current.pid === rootPid) return true;
    if (current.ppid <= 1) return false;
    current = all.get(current.ppid);
  }
  return false;
}

/** Signal each process that is still the one we found (same pid and start time). */
export function signalProcesses(found: readonly ProcessInfo[], signal: NodeJS.Signals): void {
  for (const info of found) {
    if (readProcess(info.pid)?.start !== info.start) continue;
    try {
      process.kill(info.pid, signal);
    } catch {
      // gone in between, or not ours
    }
  }
}
