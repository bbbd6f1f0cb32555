import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import type { SpillWriter, ToolContext, TruncationLimits, TruncationResult } from '@airlock/contract';
import { afterNextPoll } from './after-poll.js';
import { canScanProcesses, findRunProcesses, groupHasLiving, pidsSince, readProcess, RUN_MARKER, signalProcesses, type ProcessInfo } from './proc-tree.js';

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
  let cwdOk = false;
  try {
    cwdOk = statSync(options.cwd).isDirectory();
  } catch {
    cwdOk = false;
  }
  if (!cwdOk) {
    return Promise.reject(new BashSetupError(`Working directory does not exist: ${options.cwd}\nCannot execute bash commands.`));
  }
  if (options.signal?.aborted) return Promise.reject(new BashSetupError('Command aborted before it started.'));

  const idleAfterExitMs = options.idleAfterExitMs ?? 100;
  const maxWaitAfterExitMs = options.maxWaitAfterExitMs ?? 2000;
  // Short, so that killGraceMs plus this stays inside the kernel's grace period (see index.ts).
  const maxWaitAfterStopMs = options.maxWaitAfterStopMs ?? 250;
  const updateIntervalMs = options.updateIntervalMs ?? 100;
  const limits = tailLimits(ctx.limits);
  const tail = ctx.truncate.stream(limits);
  // Marks every process of this run, so a stop can find the ones that left the process group.
  const runId = randomBytes(8).toString('hex');
  const env = canScanProcesses ? { ...options.env, [RUN_MARKER]: runId } : options.env;

  return new Promise<RunResult>((resolve, reject) => {
    let child: ReturnType<typeof spawn>;
    try {
      const shellArgs = options.args ?? ['-c', options.command];
      const [file, args] = options.wrapper === undefined ? [options.shell, shellArgs] : [options.wrapper.file, [...options.wrapper.args, options.shell, ...shellArgs]];
      child = spawn(file, args, {
        cwd: options.cwd,
        env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      reject(new BashSetupError(`Could not start the shell ${options.shell}: ${(error as Error).message}`));
      return;
    }

    let finished = false;
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let stopReason: Ending | undefined;
    /** Processes are being ended (a stop, or what the command left running): only the pipes are awaited now. */
    let stopping = false;
    /** What endLeftovers found, once it ran. */
    let leftovers: number | undefined;
    /** Chunks read so far: a decision confirmed after a poll compares it with the count it saw. */
    let chunks = 0;
    let streamFailed = false;
    let killTimer: NodeJS.Timeout | undefined;
    let timeoutTimer: NodeJS.Timeout | undefined;
    let idleTimer: NodeJS.Timeout | undefined;
    let capTimer: NodeJS.Timeout | undefined;
    let deadlineTimer: NodeJS.Timeout | undefined;
    let updateTimer: NodeJS.Timeout | undefined;
    let lastUpdate = 0;
    /** Cancels the pending confirmations (afterNextPoll). */
    const polls = new Set<() => void>();
    const afterPoll = (fn: () => void): void => {
      const cancel = afterNextPoll(() => {
        polls.delete(cancel);
        fn();
      });
      polls.add(cancel);
    };

    // Spill lazily: hold the first chunks (at most ~maxBytes) until the output is too big for the
    // model, so small outputs never touch the disk.
    let spill: SpillWriter | undefined;
    let pending: Uint8Array[] | undefined = [];
    const needsSpill = (): boolean => tail.totalBytes > limits.maxBytes || tail.totalLines > limits.maxLines;
    const openSpill = (): void => {
      spill = ctx.openSpill({ name: 'bash', ext: 'log' });
      for (const chunk of pending ?? []) spill.write(chunk);
      pending = undefined;
    };

    const pid = child.pid;
    const spawnedAt = performance.now();
    /** The pids a scan needs to read: those handed out since the shell started, while that is sure. */
    const scope = () => (pid === undefined ? undefined : pidsSince(pid, performance.now() - spawnedAt));
    // The shell's start time: no process of this run started before it (see findRunProcesses).
    const since = canScanProcesses && pid !== undefined ? readProcess(pid)?.start : undefined;
    const groupAlive = (): boolean => {
      if (pid === undefined) return false;
      try {
        process.kill(-pid, 0);
      } catch {
        return false;
      }
      // Zombies alone keep the group "alive" for kill(0): look closer where we can.
      return !canScanProcesses || groupHasLiving(pid, scope());
    };
    const killGroup = (signal: NodeJS.Signals): void => {
      if (pid === undefined) return;
      try {
        process.kill(-pid, signal);
      } catch {
        try {
          child.kill(signal);
        } catch {
          // already gone
        }
      }
    };

    /** Processes of this run outside the group (setsid, daemons); Linux only, see proc-tree.ts. */
    const strays = (): ProcessInfo[] => (pid === undefined ? [] : findRunProcesses(pid, runId, since, scope()));

    /** SIGTERM to the whole group now, SIGKILL to whatever is left after the grace period. */
    const stop = (reason: Ending): void => {
      if (stopReason !== undefined || finished) return;
      // The command has ended on its own: only its output is awaited, and what it left running
      // is ended now instead of after the quiet wait. Its exit status stands.
      if (exited !== undefined) return endRest();
      stopReason = reason;
      const termed = strays();
      killGroup('SIGTERM');
      signalProcesses(termed, 'SIGTERM');
      // Outlives the call on purpose: the promise may settle first (the shell died, a grandchild
      // trapping TERM did not), and no process of the run may survive.
      killTimer = setTimeout(() => {
        if (groupAlive()) killGroup('SIGKILL');
        // Those seen at SIGTERM time too: re-parented to init, they no longer descend from the shell.
        signalProcesses([...termed, ...strays()], 'SIGKILL');
      }, options.killGraceMs);
      awaitPipes(options.killGraceMs + maxWaitAfterStopMs);
    };

    /**
     * Processes are being ended: read on until the pipes close (finish on 'close'), but no longer
     * than `ms`. The deadline too is confirmed after a poll, so bytes already in a pipe are read.
     */
    const awaitPipes = (ms: number): void => {
      stopping = true;
      if (idleTimer !== undefined) clearTimeout(idleTimer);
      if (capTimer !== undefined) clearTimeout(capTimer);
      if (deadlineTimer === undefined) deadlineTimer = setTimeout(() => afterPoll(() => void finish()), ms);
    };

    /**
     * The shell has exited and the pipes are still open: processes it left behind hold them.
     * End those (SIGTERM, SIGKILL after the grace period) and read what they write until they
     * are gone and the pipes close.
     */
    const endRest = (): void => {
      if (finished || stopping) return;
      const ended = endLeftovers();
      leftovers = ended.count;
      // Nothing of this run left to end: whatever holds the pipes is beyond reach (or closing them
      // right now); wait briefly, then the result says the output may be incomplete.
      awaitPipes(ended.signalled ? options.killGraceMs + maxWaitAfterStopMs : maxWaitAfterStopMs);
    };

    const emitUpdate = (): void => {
      updateTimer = undefined;
      if (finished || options.onTail === undefined) return;
      lastUpdate = Date.now();
      options.onTail(tail.snapshot(), spill?.path);
    };
    const scheduleUpdate = (): void => {
      if (options.onTail === undefined || updateTimer !== undefined) return;
      updateTimer = setTimeout(emitUpdate, Math.max(0, lastUpdate + updateIntervalMs - Date.now()));
    };

    const onData = (chunk: Uint8Array): void => {
      if (finished) return; // late callbacks after the call settled are ignored (Pi #5208)
      chunks++;
      tail.push(chunk);
      if (spill !== undefined) spill.write(chunk);
      else {
        pending!.push(chunk);
        if (needsSpill()) openSpill();
      }
      scheduleUpdate();
      if (exited !== undefined && !stopping) armIdle();
    };

    /** Quiet for idleAfterExitMs, confirmed by a poll that read nothing new: then end the rest. */
    const armIdle = (): void => {
      if (idleTimer !== undefined) clearTimeout(idleTimer);
      idleTimer = setTimeout(() => {
        const seen = chunks;
        afterPoll(() => {
          if (finished || stopping) return;
          if (chunks === seen) endRest();
          else armIdle();
        });
      }, idleAfterExitMs);
    };

    const onAbort = (): void => stop({ kind: 'aborted' });

    const cleanup = (): void => {
      if (timeoutTimer !== undefined) clearTimeout(timeoutTimer);
      if (idleTimer !== undefined) clearTimeout(idleTimer);
      if (capTimer !== undefined) clearTimeout(capTimer);
      if (deadlineTimer !== undefined) clearTimeout(deadlineTimer);
      for (const cancel of polls) cancel();
      polls.clear();
      if (updateTimer !== undefined) clearTimeout(updateTimer);
      options.signal?.removeEventListener('abort', onAbort);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      // Background processes may still hold the write ends; let go of ours. A SIGKILL timer
      // (a stop, or leftovers being ended) stays armed: no process of the run may survive.
      child.stdout?.destroy();
      child.stderr?.destroy();
    };

    /**
     * The command ended on its own, but processes it started may live on (`sleep 23 &`, a
     * daemon that called setsid): nothing outlives its call unless the model asked for a
     * background job. SIGTERM now, SIGKILL after the grace period. Returns how many were found
     * (1 where processes cannot be listed) and whether anything was signalled.
     */
    const endLeftovers = (): { count: number; signalled: boolean } => {
      // A zombie (exited, parent not reaping yet) still counts as a group member: not a leftover.
      const found = strays().filter((p) => !p.zombie);
      const group = groupAlive();
      if (found.length === 0 && !group) return { count: 0, signalled: false };
      if (group) killGroup('SIGTERM');
      signalProcesses(found, 'SIGTERM');
      killTimer = setTimeout(() => {
        if (groupAlive()) killGroup('SIGKILL');
        signalProcesses([...found, ...strays()], 'SIGKILL');
      }, options.killGraceMs);
      releaseWhenGone(found);
      return { count: canScanProcesses ? found.length : 1, signalled: true };
    };

    /**
     * Most leftovers are gone milliseconds after SIGTERM (often only the sandbox's processes,
     * exiting with the command, or zombies not reaped yet). The SIGKILL timer would still hold the
     * whole program open for the grace period after the call ended (1.5 s on every sandboxed bash
     * call): look every few milliseconds, and once the group and everything found are gone, and a
     * last scan finds nothing new, drop the timer.
     */
    const releaseWhenGone = (found: readonly ProcessInfo[]): void => {
      const until = Date.now() + options.killGraceMs;
      const poll = setInterval(() => {
        if (killTimer === undefined || Date.now() > until) return clearInterval(poll);
        if (groupAlive() || found.some((p) => readProcess(p.pid)?.start === p.start && !readProcess(p.pid)?.zombie)) return;
        clearInterval(poll);
        const late = strays().filter((p) => !p.zombie);
        if (late.length > 0) {
          signalProcesses(late, 'SIGTERM');
          return; // the SIGKILL timer stays armed for these
        }
        clearTimeout(killTimer);
        killTimer = undefined;
      }, 20);
      poll.unref();
    };

    const finish = async (): Promise<void> => {
      if (finished) return;
      // Output that came after the last update is shown before the result: whoever watches sees
      // every line the command printed, however soon it ended (an update waits for its timer).
      if (updateTimer !== undefined) {
        clearTimeout(updateTimer);
        emitUpdate();
      }
      finished = true;
      // Both ends reached: every byte written was delivered to onData. Otherwise a process may still write.
      const pipesHeldOpen = streamFailed || !(child.stdout?.readableEnded ?? true) || !(child.stderr?.readableEnded ?? true);
      cleanup();
      // In a PID namespace that ended with the shell's wrapper, nothing can be left: no scan.
      leftovers ??= stopReason !== undefined || (options.contained === true && exited !== undefined) ? 0 : endLeftovers().count;
      const result = tail.end();
      let fullOutputPath: string | undefined;
      let fullOutputCapped: boolean | undefined;
      try {
        if (result.truncated) {
          if (spill === undefined) openSpill();
          const info = await spill!.close();
          fullOutputPath = info.path;
          if (info.capped) fullOutputCapped = true;
        } else if (spill !== undefined) {
          await spill.discard();
        }
      } catch (error) {
        ctx.log.warn(`bash: could not save the full output: ${(error as Error).message}`);
        fullOutputPath = undefined;
      }
      pending = undefined;
      let ending: Ending;
      if (stopReason !== undefined) ending = stopReason;
      else if (exited?.code !== null && exited?.code !== undefined) ending = { kind: 'exit', code: exited.code };
      else ending = { kind: 'signal', signal: exited?.signal ?? 'unknown signal' };
      resolve({
        ending,
        tail: result,
        lastLineBytes: tail.lastLineBytes,
        ...(fullOutputPath === undefined ? {} : { fullOutputPath }),
        ...(fullOutputCapped === undefined ? {} : { fullOutputCapped }),
        pipesHeldOpen,
        leftovers,
      });
    };

    child.on('error', (error) => {
      // Spawn failed (no such shell, not executable…): no process, nothing to wait for.
      if (finished) return;
      finished = true;
      cleanup();
      if (killTimer !== undefined) clearTimeout(killTimer);
      void spill?.discard().catch(() => undefined);
      reject(new BashSetupError(`Could not start the shell ${options.shell}: ${error.message}`));
    });

    if (pid === undefined) return; // 'error' follows
    for (const stream of [child.stdout!, child.stderr!]) {
      stream.on('data', onData);
      // A failed read loses what was not read yet: the result says so (and the host does not crash).
      stream.on('error', () => void (streamFailed = true));
    }
    child.on('exit', (code, signal) => {
      exited = { code, signal };
      // The command is over: what remains is collecting its output, bounded by the waits here.
      if (timeoutTimer !== undefined) clearTimeout(timeoutTimer);
      if (stopping) return; // a stop is under way, with its own deadline
      armIdle();
      capTimer = setTimeout(() => afterPoll(endRest), maxWaitAfterExitMs);
    });
    // Every pipe closed and the shell exited: done, no waiting.
    child.on('close', () => void finish());

    if (options.timeoutSeconds > 0) {
      timeoutTimer = setTimeout(() => stop({ kind: 'timeout', seconds: options.timeoutSeconds }), options.timeoutSeconds * 1000);
    }
    options.signal?.addEventListener('abort', onAbort, { once: true });
  });
}
