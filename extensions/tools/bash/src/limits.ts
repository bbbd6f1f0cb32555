import { basename } from 'node:path';
import Type, { type Static } from 'typebox';

/**
 * Resource limits (setrlimit) for every command bash runs, and how the model learns that one
 * ended a command.
 *
 * Node cannot set limits on a child, so the shell sets them on itself before it runs the command:
 * `ulimit` lowers soft and hard limit together, then `exec` replaces that shell with a fresh one
 * running the command, which inherits them. A process without CAP_SYS_RESOURCE can never raise a
 * hard limit again, so the command cannot undo them. A limit is only ever lowered: where the
 * current hard limit is already below the setting, it stays.
 *
 * Known gaps (documented in the README): Linux exempts root from RLIMIT_NPROC, and a process that
 * has CAP_SYS_RESOURCE (root outside a container) may raise its hard limits again.
 */
export const ResourceLimits = Type.Object(
  {
    fileSizeBytes: Type.Integer({
      minimum: 0,
      default: 1024 ** 3,
      description: 'Largest file a command may write (RLIMIT_FSIZE), in bytes. Default 1 GiB. 0 = no limit.',
    }),
    processes: Type.Integer({
      minimum: 0,
      default: 8192,
      description:
        'Most processes and threads the user may have (RLIMIT_NPROC). It counts ALL of the user\'s processes and threads, ' +
        'not only this command\'s, and does not apply to root. Default 8192. 0 = no limit.',
    }),
    cpuSeconds: Type.Integer({
      minimum: 0,
      default: 3600,
      description: 'CPU time one process may use (RLIMIT_CPU), in seconds. Default 3600. 0 = no limit.',
    }),
  },
  // An untrusted project could lift them: the host takes them only from a trusted layer.
  { default: { fileSizeBytes: 1024 ** 3, processes: 8192, cpuSeconds: 3600 }, 'x-airlock-value': 'limit' },
);
export type ResourceLimits = Static<typeof ResourceLimits>;

export const DEFAULT_RESOURCE_LIMITS: ResourceLimits = Object.freeze({ fileSizeBytes: 1024 ** 3, processes: 8192, cpuSeconds: 3600 });

/** Exit status the prelude uses when a limit cannot be set: the command does not run (fail closed). */
export const LIMIT_SETUP_FAILED = 125;

/**
 * The arguments for `spawn(shell, args)` that run `command` under the limits, its stderr joined
 * to its stdout. `$0` is the shell and `$1` the command, so the command's text is never pasted
 * into the script.
 *
 * Why one stream: the tool merges stdout and stderr for the model. Read from two pipes, the
 * order between them is whichever pipe the event loop happens to read first, so `echo a; echo
 * b >&2; echo c` could come back as "a c b". On one pipe the bytes arrive in the order written.
 *
 * @example
 * limitedShellArgs('/bin/bash', 'yes > f', { fileSizeBytes: 1 << 20, processes: 0, cpuSeconds: 0 })
 * // ['-c', '…ulimit -f 1024…exec "$0" -c "$1" 2>&1', '/bin/bash', 'yes > f']
 */
export function limitedShellArgs(shell: string, command: string, limits: ResourceLimits, target: string = shell): string[] {
  const settings = limitFlags(shell, limits);
  const run = 'exec "$0" -c "$1" 2>&1';
  if (settings.length === 0) return ['-c', run, target, command];
  const fail = `{ echo "airlock: could not set the resource limit ulimit $1 $2; the command did not run. Change tool-bash's limits setting if this shell cannot set it." >&2; exit ${LIMIT_SETUP_FAILED}; }`;
  // airlock_limit FLAG SOFT HARD. Soft first (a soft limit above the hard one is refused, and
  // fails harmlessly when the hard limit is lower still), then hard. Raising a hard limit fails
  // without privilege, which is fine only when it is already at or below HARD: checked then, so
  // the usual path forks nothing.
  const lower =
    'airlock_limit() { ulimit -S "$1" "$2" 2>/dev/null; ' +
    `ulimit -H "$1" "$3" 2>/dev/null || { h=$(ulimit -H "$1"); [ "$h" != unlimited ] && [ "$h" -le "$3" ]; } || ${fail}; }`;
  const calls = settings.map(([flag, soft, hard]) => `airlock_limit ${flag} ${soft} ${hard}`).join('; ');
  return ['-c', `${lower}; ${calls}; unset -f airlock_limit; ${run}`, target, command];
}

/**
 * The program and arguments that run `shell -c command` under the limits (see limitedShellArgs).
 * `prelude` is the shell that sets them and then execs `shell`: where /bin/sh is dash (see
 * preludeShell), dash, which starts in a fraction of bash's time; the command still runs in
 * `shell -c`, exactly as without limits.
 *
 * @example
 * limitedCommand('/usr/bin/bash', 'make', DEFAULT_RESOURCE_LIMITS, '/bin/sh')
 * // { file: '/bin/sh', args: ['-c', '…ulimit -p 8192…exec "$0" -c "$1" 2>&1', '/usr/bin/bash', 'make'] }
 */
export function limitedCommand(shell: string, command: string, limits: ResourceLimits, prelude: string = shell): { file: string; args: string[] } {
  return { file: prelude, args: limitedShellArgs(prelude, command, limits, shell) };
}

/**
 * Seconds between the soft CPU limit (SIGXCPU, which says what happened) and the hard one
 * (SIGKILL, which says nothing): with both equal the kernel sends SIGKILL at once.
 */
const CPU_HARD_MARGIN = 5;

/** [ulimit flag, soft, hard value in that flag's unit] for each limit that is on. */
function limitFlags(shell: string, limits: ResourceLimits): [string, number, number][] {
  const name = basename(shell);
  // bash counts -f in KiB blocks (outside POSIX mode); POSIX shells, zsh and ksh in 512-byte blocks.
  const block = name === 'bash' ? 1024 : 512;
  const flags: [string, number, number][] = [];
  const blocks = Math.max(1, Math.floor(limits.fileSizeBytes / block));
  if (limits.fileSizeBytes > 0) flags.push(['-f', blocks, blocks]);
  if (limits.cpuSeconds > 0) flags.push(['-t', limits.cpuSeconds, limits.cpuSeconds + CPU_HARD_MARGIN]);
  // dash calls the process count -p; bash, zsh and ksh -u.
  if (limits.processes > 0) flags.push([name === 'dash' || name === 'sh' ? '-p' : '-u', limits.processes, limits.processes]);
  return flags;
}

/** Which limit, as the model is told. */
export type LimitHit = 'fileSize' | 'cpu' | 'processes';

/** Signal numbers on Linux and macOS alike. */
const SIGXCPU = 24;
const SIGXFSZ = 25;

/**
 * Which limits probably ended (part of) a command: from the signal or the shell's 128+n exit
 * status, and from the words the shell and libc print when a limit strikes a child.
 */
export function limitsHit(ending: { signal?: string; code?: number }, output: string): LimitHit[] {
  const hits = new Set<LimitHit>();
  if (ending.signal === 'SIGXFSZ' || ending.code === 128 + SIGXFSZ || /File size limit exceeded/.test(output)) hits.add('fileSize');
  if (ending.signal === 'SIGXCPU' || ending.code === 128 + SIGXCPU || /CPU time limit exceeded/.test(output)) hits.add('cpu');
  if (/fork: (?:retry: )?Resource temporarily unavailable|Cannot fork|can't fork/i.test(output)) hits.add('processes');
  return [...hits];
}

/** The line that tells the model which limit ended the command and what to do. */
export function limitNotice(hits: readonly LimitHit[], limits: ResourceLimits): string | undefined {
  if (hits.length === 0) return undefined;
  const parts = hits.map((hit) => {
    switch (hit) {
      case 'fileSize':
        return `the file size limit (RLIMIT_FSIZE: no file may grow past ${formatBytes(limits.fileSizeBytes)}; setting limits.fileSizeBytes)`;
      case 'cpu':
        return `the CPU time limit (RLIMIT_CPU: ${limits.cpuSeconds} s of CPU per process; setting limits.cpuSeconds)`;
      case 'processes':
        return `the process limit (RLIMIT_NPROC: ${limits.processes} processes and threads for this user; setting limits.processes)`;
    }
  });
  return (
    `[Resource limit reached: ${parts.join('; ')}. The command was stopped by the operating system, not by an error in it. ` +
    'Write less, use fewer processes or less CPU; only the user can raise the limit (tool-bash settings).]'
  );
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3 && bytes % 1024 ** 3 === 0) return `${bytes / 1024 ** 3} GiB`;
  if (bytes >= 1024 ** 2 && bytes % 1024 ** 2 === 0) return `${bytes / 1024 ** 2} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
