import { spawn } from 'node:child_process';
import type { SandboxedCommand, SandboxStatus, SandboxWrapOptions } from '@airlock/contract';

/** Each of stdout and stderr is kept up to this many bytes; the rest is read and dropped. */
export const OUTPUT_CAP_BYTES = 1024 * 1024;

/** How long the pipes may stay open after the hook process exited. */
const PIPE_GRACE_MS = 500;

/** Where and how hooks run: the host's sandbox (when it offers one) and the scrubbed environment. */
export interface HookRunner {
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly sandbox?: SandboxStatus;
  readonly wrap?: (argv: readonly string[], options: SandboxWrapOptions) => Promise<SandboxedCommand>;
}

/** How one hook process ended. `problem` is set when it could not start or did not end by itself. */
export interface HookRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Could not start (no shell, the sandbox refused), or was stopped by a signal: words for the reason. */
  problem?: string;
  sandboxed: boolean;
}

/**
 * Run `command` with `sh -c` (as Claude Code does on Linux and macOS), `input` on stdin, in its
 * own process group so a timeout or an abort ends everything it started. Inside the OS sandbox
 * when it is active; refused when `sandbox.mode` is `required` and it cannot start (fail closed).
 * Never rejects: every way it can go wrong is in the returned `HookRun`.
 *
 * @example
 * const run = await runHook(runner, 'cat >/dev/null; echo no >&2; exit 2', '{}', 60_000);
 * run.exitCode // 2, run.stderr 'no\n'
 */
export async function runHook(runner: HookRunner, command: string, input: string, timeoutMs: number, signal?: AbortSignal): Promise<HookRun> {
  const argv = ['sh', '-c', command];
  let line: { file: string; args: readonly string[]; env: Record<string, string> } = { file: argv[0]!, args: argv.slice(1), env: runner.env };
  let wrapped: SandboxedCommand | undefined;
  if (runner.sandbox?.active === true) {
    try {
      if (runner.wrap === undefined) throw new Error('the host gives extensions no way to start a sandboxed process');
      wrapped = await runner.wrap(argv, { cwd: runner.cwd, env: runner.env, ...(signal === undefined ? {} : { signal }) });
      line = wrapped;
    } catch (error) {
      return { exitCode: null, stdout: '', stderr: '', timedOut: false, sandboxed: false, problem: `the OS sandbox could not start it (${(error as Error).message})` };
    }
  } else if (runner.sandbox?.mode === 'required') {
    return { exitCode: null, stdout: '', stderr: '', timedOut: false, sandboxed: false, problem: `sandbox.mode is "required" and the OS sandbox cannot start. ${runner.sandbox.problem ?? ''} ${runner.sandbox.fix ?? ''}`.trim() };
  }
  try {
    return await spawnBounded(line, runner.cwd, input, timeoutMs, signal, wrapped !== undefined);
  } finally {
    await wrapped?.release();
  }
}

function spawnBounded(line: { file: string; args: readonly string[]; env: Record<string, string> }, cwd: string, input: string, timeoutMs: number, signal: AbortSignal | undefined, sandboxed: boolean): Promise<HookRun> {
  return new Promise((resolve) => {
    const child = spawn(line.file, [...line.args], { cwd, env: line.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const out = collector();
    const err = collector();
    let timedOut = false;
    let aborted = false;
    let settled = false;
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (run: HookRun) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      // Whatever it left in its group (a `sleep &`) ends with it.
      killGroup();
      resolve(run);
    };
    child.stdout.on('data', out.add);
    child.stderr.on('data', err.add);
    // A hook that never reads stdin closes the pipe early: that is not a failure.
    child.stdin.on('error', () => {});
    child.stdin.end(input);
    child.on('error', (error) => finish({ exitCode: null, stdout: '', stderr: '', timedOut: false, sandboxed, problem: `it could not start (${error.message})` }));
    const ended = (code: number | null, sig: NodeJS.Signals | null) => {
      const base = { exitCode: code, stdout: out.text(), stderr: err.text(), timedOut, sandboxed };
      if (timedOut) finish({ ...base, problem: `it did not finish within ${timeoutMs / 1000} s and was stopped` });
      else if (aborted) finish({ ...base, problem: 'the run was aborted' });
      else if (code === null) finish({ ...base, problem: `it was ended by ${sig ?? 'a signal'}` });
      else finish(base);
    };
    child.on('close', ended);
    // A process that left its group (setsid) can hold the pipes open after the hook exited: read
    // what came within a moment, then answer rather than wait for it.
    child.on('exit', (code, sig) => {
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        ended(code, sig);
      }, PIPE_GRACE_MS).unref();
    });
  });
}

/** Keeps the first OUTPUT_CAP_BYTES of a stream. */
function collector() {
  const chunks: Buffer[] = [];
  let size = 0;
  return {
    add: (chunk: Buffer) => {
      if (size >= OUTPUT_CAP_BYTES) return;
      const kept = chunk.subarray(0, OUTPUT_CAP_BYTES - size);
      chunks.push(kept);
      size += kept.length;
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
  };
}
