import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { SpillWriter, ToolContext } from '@airlock/contract';
import { canScanProcesses, findRunProcesses, RUN_MARKER, signalProcesses } from './proc-tree.js';

/**
 * Commands the model asked to run in the background (`bash` with `background: true`): the only
 * processes allowed to outlive their call. Each is tracked here, its output goes to a file the
 * model can read, `bash_jobs` lists and stops them, and every one still running is ended when the
 * session closes (or the process exits). Everything else a command leaves behind is ended when
 * its call ends (see run.ts).
 */

export interface JobInfo {
  id: string;
  pid: number;
  command: string;
  /** ISO time the job started. */
  started: string;
  state: 'running' | 'exited' | 'stopped';
  exitCode?: number | null;
  signal?: string | null;
  /** Where stdout and stderr go (capped by the session's spill budget). */
  outputPath: string;
}

interface Job {
  info: JobInfo;
  /** Hold the event loop open while waiting for this job (its handles are unref'd while it runs). */
  hold: () => void;
  runId: string;
  output: SpillWriter;
  done: Promise<void>;
}

export interface StartJob {
  shell: string;
  args: readonly string[];
  command: string;
  cwd: string;
  env: Record<string, string>;
  ctx: ToolContext;
  /** Called once the job has ended (the sandbox closes what it opened for this command). */
  onEnd?: () => void;
}

/** Jobs of one bash tool (one session). */
export class BackgroundJobs {
  readonly #jobs = new Map<string, Job>();
  #next = 1;
  readonly #onExit = (): void => this.killAll();

  /** Start a job; resolves once it is running (or rejects when the shell cannot start). */
  start(options: StartJob): Promise<JobInfo> {
    const runId = randomBytes(8).toString('hex');
    const env = canScanProcesses ? { ...options.env, [RUN_MARKER]: runId } : options.env;
    const id = `job-${this.#next++}`;
    const output = options.ctx.openSpill({ name: `bash-${id}`, ext: 'log' });
    return new Promise((resolve, reject) => {
      const child = spawn(options.shell, options.args, { cwd: options.cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      child.once('error', (error) => {
        void output.discard().catch(() => undefined);
        options.onEnd?.();
        reject(new Error(`Could not start the shell ${options.shell}: ${error.message}`));
      });
      child.once('spawn', () => {
        const info: JobInfo = {
          id,
          pid: child.pid!,
          command: options.command,
          started: new Date().toISOString(),
          state: 'running',
          outputPath: output.path,
        };
        const write = (chunk: Uint8Array): void => output.write(chunk);
        child.stdout!.on('data', write);
        child.stderr!.on('data', write);
        const done = new Promise<void>((settle) =>
          child.once('close', (code, signal) => {
            if (info.state === 'running') info.state = 'exited';
            info.exitCode = code;
            info.signal = signal;
            void output.close().catch(() => undefined);
            options.onEnd?.();
            settle();
          }),
        );
        // Its pipes must not keep a CLI process alive; the exit handler below ends the job.
        child.unref();
        (child.stdout as unknown as { unref?: () => void }).unref?.();
        (child.stderr as unknown as { unref?: () => void }).unref?.();
        if (this.#jobs.size === 0) process.once('exit', this.#onExit);
        const hold = (): void => {
          child.ref();
          (child.stdout as unknown as { ref?: () => void }).ref?.();
          (child.stderr as unknown as { ref?: () => void }).ref?.();
        };
        this.#jobs.set(id, { info, runId, output, done, hold });
        resolve({ ...info });
      });
    });
  }

  /** Every job of the session, oldest first. */
  list(): JobInfo[] {
    return [...this.#jobs.values()].map((job) => ({ ...job.info }));
  }

  /**
   * Stop one job: SIGTERM to its process group (and processes that left it), SIGKILL after
   * `graceMs`. Resolves with its final state.
   */
  async stop(id: string, graceMs = 1000): Promise<JobInfo> {
    const job = this.#jobs.get(id);
    if (job === undefined) {
      const known = [...this.#jobs.keys()];
      throw new Error(`No background job "${id}". ${known.length === 0 ? 'None was started in this session.' : `Known jobs: ${known.join(', ')}.`}`);
    }
    if (job.info.state === 'running') {
      job.info.state = 'stopped';
      job.hold();
      this.#signal(job, 'SIGTERM');
      const timer = setTimeout(() => this.#signal(job, 'SIGKILL'), graceMs);
      await job.done;
      clearTimeout(timer);
      // The shell is gone; whatever of its group ignored SIGTERM is not.
      this.#signal(job, 'SIGKILL');
    }
    return { ...job.info };
  }

  /** End every job at once (SIGKILL): the session is closing. Synchronous, so it works in an exit handler. */
  killAll(): void {
    for (const job of this.#jobs.values()) {
      if (job.info.state === 'running') job.info.state = 'stopped';
      this.#signal(job, 'SIGKILL');
    }
    process.off('exit', this.#onExit);
  }

  /** End every job and wait for each to be reaped, then forget them. */
  async close(): Promise<void> {
    for (const job of this.#jobs.values()) job.hold();
    this.killAll();
    await Promise.all([...this.#jobs.values()].map((job) => job.done));
    this.#jobs.clear();
  }

  #signal(job: Job, signal: NodeJS.Signals): void {
    const strays = findRunProcesses(job.info.pid, job.runId);
    try {
      process.kill(-job.info.pid, signal);
    } catch {
      // the group is gone
    }
    signalProcesses(strays, signal);
  }
}
