import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import type { ToolContext, TruncationLimits, TruncationResult } from '@airlock/contract';
import { RunTimers } from './after-poll.js';
import { canScanProcesses, RUN_MARKER } from './proc-tree.js';
import { RunOutput } from './run-output.js';
import { RunProcesses } from './run-processes.js';

/** How a finished command ended. */
export type Ending =
  | { kind: 'exit'; code: number }
  | { kind: 'signal'; signal: string }
  | { kind: 'timeout'; seconds: number }
  | { kind: 'aborted' };

export interface RunOptions {
  command: string;
  shell: string;
  /** The shell's arguments (default `-c command`); see limits.ts for the ones that set limits first. */
  args?: readonly string[];
  /** Runs `shell -c command` through this program (the sandbox's bubblewrap and its arguments before the shell). */
  wrapper?: { file: string; args: readonly string[] };
  /**
   * Every process of the command lives in a PID namespace that ends when the spawned process
   * exits (the OS sandbox's, see SandboxedCommand.processesEndWithIt): once it has exited on its
   * own, nothing is left to look for.
   */
  contained?: boolean;
  cwd: string;
  env: Record<string, string>;
  /** 0 = no limit. */
  timeoutSeconds: number;
  killGraceMs: number;
  signal: AbortSignal | undefined;
  ctx: ToolContext;
  /** Called with the current tail, at most once per `updateIntervalMs`. */
  onTail?: (tail: TruncationResult, fullOutputPath: string | undefined) => void;
  updateIntervalMs?: number;
  /** After the shell exits, end what it left running once the pipes have been quiet this long. */
  idleAfterExitMs?: number;
  /** …and in any case this long after the shell exits (a leftover that keeps writing). */
  maxWaitAfterExitMs?: number;
  /** Once processes are being ended, wait this long past the SIGKILL (`killGraceMs`) for the pipes to close. */
  maxWaitAfterStopMs?: number;
}

export interface RunResult {
  ending: Ending;
  tail: TruncationResult;
  /** Raw size of the last line (for the partial-line notice). */
  lastLineBytes: number;
  fullOutputPath?: string;
  /** The spill file keeps only the beginning (the session's spill budget ran out). */
  fullOutputCapped?: boolean;
  /**
   * The output may be incomplete: the pipes had not closed (a process still held them, even after
   * SIGKILL) or failed when the call stopped reading. Whatever was written after that is missing.
   */
  pipesHeldOpen: boolean;
  /** Processes the command left running when it ended normally, which the call then ended. */
  leftovers: number;
}

/**
 * The kernel's backstop measures the whole result text against the context limits, so the tail
 * leaves room for what follows it: a blank line and the notice (with its path), and for a failure
 * a blank line and the reason. Without this the backstop would cut our own notice off.
 */
export function tailLimits(limits: TruncationLimits): TruncationLimits {
  return {
    maxLines: Math.max(1, limits.maxLines - 4),
    maxBytes: Math.max(1, limits.maxBytes - Math.min(1024, Math.floor(limits.maxBytes / 4))),
  };
}

/** Thrown for problems before the command runs (missing cwd, the shell cannot start). */
export class BashSetupError extends Error {
  override name = 'BashSetupError';
}

/**
 * Run `shell -c command` in its own process group with stdin closed, merging stdout and stderr
 * into the context's rolling tail and, once the output is too big for the model, a spill file.
 *
 * The result holds every byte the command's processes wrote, or says it may not
 * (`pipesHeldOpen`). The call ends when the pipes close (every process holding them is gone).
 * Once the shell has exited, processes it left behind may hold them open: when the pipes have
 * been quiet `idleAfterExitMs` (or at the latest `maxWaitAfterExitMs` after the exit), those
 * processes get SIGTERM, SIGKILL after `killGraceMs`, and the call reads on until the pipes close,
 * `maxWaitAfterStopMs` past the SIGKILL at most. A timeout or abort ends them the same way.
 *
 * Why "quiet" is confirmed after a poll (see after-poll.ts): Node may report the exit before the
 * output written before it, and a timer can fire after a stall before the loop reads the pipe.
 * Deciding on a timer alone once turned `echo n158` into an `ok` with "(no output)".
 */
export function runCommand(options: RunOptions): Promise<RunResult> {
  const { ctx } = options;
  const refused = startProblem(options);
  if (refused !== undefined) return Promise.reject(refused);

  // A quarter second: a leftover that writes right after the shell exits must get scheduled
  // within it, and on a loaded machine 100 ms was missed. Only a command that leaves processes
  // holding the pipes waits for it at all.
  const idleAfterExitMs = options.idleAfterExitMs ?? 250;
  const maxWaitAfterExitMs = options.maxWaitAfterExitMs ?? 2000;
  // Short, so that killGraceMs plus this stays inside the kernel's grace period (see index.ts).
  const maxWaitAfterStopMs = options.maxWaitAfterStopMs ?? 250;
  // Marks every process of this run, so a stop can find the ones that left the process group.
  const runId = randomBytes(8).toString('hex');
  const env = canScanProcesses ? { ...options.env, [RUN_MARKER]: runId } : options.env;

  return new Promise<RunResult>((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawnShell(options, env);
    } catch (error) {
      reject(new BashSetupError(`Could not start the shell ${options.shell}: ${(error as Error).message}`));
      return;
    }
    const output = new RunOutput(ctx, tailLimits(ctx.limits), { ...(options.onTail === undefined ? {} : { onTail: options.onTail }), updateIntervalMs: options.updateIntervalMs ?? 100 });
    const procs = new RunProcesses(child, runId);

    let finished = false;
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let stopReason: Ending | undefined;
    /** Processes are being ended (a stop, or what the command left running): only the pipes are awaited now. */
    let stopping = false;
    /** What endLeftovers found, once it ran. */
    let leftovers: number | undefined;
    let streamFailed = false;
    const timers = new RunTimers();

    /** SIGTERM to the whole run now, SIGKILL to whatever is left after the grace period. */
    const stop = (reason: Ending): void => {
      if (stopReason !== undefined || finished) return;
      // The command has ended on its own: only its output is awaited, and what it left running
      // is ended now instead of after the quiet wait. Its exit status stands.
      if (exited !== undefined) return endRest();
      stopReason = reason;
      // The SIGKILL timer outlives the call on purpose: the promise may settle first (the shell
      // died, a grandchild trapping TERM did not), and no process of the run may survive.
      procs.terminate(options.killGraceMs);
      awaitPipes(options.killGraceMs + maxWaitAfterStopMs);
    };

    /**
     * Processes are being ended: read on until the pipes close (finish on 'close'), but no longer
     * than `ms`. The deadline too is confirmed after a poll, so bytes already in a pipe are read.
     */
    const awaitPipes = (ms: number): void => {
      stopping = true;
      timers.clear('idle');
      timers.clear('cap');
      if (!timers.has('deadline')) timers.set('deadline', () => timers.afterPoll(() => void finish()), ms);
    };

    /**
     * The shell has exited and the pipes are still open: processes it left behind hold them.
     * End those (SIGTERM, SIGKILL after the grace period) and read what they write until they
     * are gone and the pipes close.
     */
    const endRest = (): void => {
      if (finished || stopping) return;
      const ended = procs.endLeftovers(options.killGraceMs);
      leftovers = ended.count;
      // Nothing of this run left to end: whatever holds the pipes is beyond reach (or closing them
      // right now); wait briefly, then the result says the output may be incomplete.
      awaitPipes(ended.signalled ? options.killGraceMs + maxWaitAfterStopMs : maxWaitAfterStopMs);
    };

    const onData = (chunk: Uint8Array): void => {
      if (finished) return; // late callbacks after the call settled are ignored (Pi #5208)
      output.push(chunk);
      if (exited !== undefined && !stopping) armIdle();
    };

    /** Quiet for idleAfterExitMs, confirmed by a poll that read nothing new: then end the rest. */
    const armIdle = (): void => {
      timers.set('idle', () => {
        const seen = output.chunks;
        timers.afterPoll(() => {
          if (finished || stopping) return;
          if (output.chunks === seen) endRest();
          else armIdle();
        });
      }, idleAfterExitMs);
    };

    const onAbort = (): void => stop({ kind: 'aborted' });

    const cleanup = (): void => {
      timers.clearAll();
      options.signal?.removeEventListener('abort', onAbort);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      // Background processes may still hold the write ends; let go of ours. A SIGKILL timer
      // (a stop, or leftovers being ended) stays armed: no process of the run may survive.
      child.stdout?.destroy();
      child.stderr?.destroy();
    };

    const finish = async (): Promise<void> => {
      if (finished) return;
      output.flushUpdates();
      finished = true;
      // Both ends reached: every byte written was delivered to onData. Otherwise a process may still write.
      const pipesHeldOpen = streamFailed || !(child.stdout?.readableEnded ?? true) || !(child.stderr?.readableEnded ?? true);
      cleanup();
      // In a PID namespace that ended with the shell's wrapper, nothing can be left: no scan.
      leftovers ??= stopReason !== undefined || (options.contained === true && exited !== undefined) ? 0 : procs.endLeftovers(options.killGraceMs).count;
      const kept = await output.close();
      resolve({ ending: stopReason ?? endingOf(exited), ...kept, pipesHeldOpen, leftovers });
    };

    child.on('error', (error) => {
      // Spawn failed (no such shell, not executable…): no process, nothing to wait for.
      if (finished) return;
      finished = true;
      cleanup();
      procs.cancelKill();
      output.discard();
      reject(new BashSetupError(`Could not start the shell ${options.shell}: ${error.message}`));
    });

    if (procs.pid === undefined) return; // 'error' follows
    for (const stream of [child.stdout!, child.stderr!]) {
      stream.on('data', onData);
      // A failed read loses what was not read yet: the result says so (and the host does not crash).
      stream.on('error', () => void (streamFailed = true));
    }
    child.on('exit', (code, signal) => {
      exited = { code, signal };
      // The command is over: what remains is collecting its output, bounded by the waits here.
      timers.clear('timeout');
      if (stopping) return; // a stop is under way, with its own deadline
      armIdle();
      timers.set('cap', () => timers.afterPoll(endRest), maxWaitAfterExitMs);
    });
    // Every pipe closed and the shell exited: done, no waiting.
    child.on('close', () => void finish());

    if (options.timeoutSeconds > 0) {
      timers.set('timeout', () => stop({ kind: 'timeout', seconds: options.timeoutSeconds }), options.timeoutSeconds * 1000);
    }
    options.signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Why the command cannot start at all (no such working folder, aborted already), if it cannot. */
function startProblem(options: RunOptions): BashSetupError | undefined {
  let cwdOk = false;
  try {
    cwdOk = statSync(options.cwd).isDirectory();
  } catch {
    cwdOk = false;
  }
  if (!cwdOk) return new BashSetupError(`Working directory does not exist: ${options.cwd}\nCannot execute bash commands.`);
  if (options.signal?.aborted) return new BashSetupError('Command aborted before it started.');
  return undefined;
}

/** `shell -c command` (through the sandbox's wrapper, if any) in a process group of its own, stdin closed. */
function spawnShell(options: RunOptions, env: Record<string, string>): ChildProcess {
  const shellArgs = options.args ?? ['-c', options.command];
  const [file, args] = options.wrapper === undefined ? [options.shell, shellArgs] : [options.wrapper.file, [...options.wrapper.args, options.shell, ...shellArgs]];
  return spawn(file, args, { cwd: options.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** How the shell ended on its own: its exit code, or the signal that ended it. */
function endingOf(exited: { code: number | null; signal: NodeJS.Signals | null } | undefined): Ending {
  if (exited?.code !== null && exited?.code !== undefined) return { kind: 'exit', code: exited.code };
  return { kind: 'signal', signal: exited?.signal ?? 'unknown signal' };
}
