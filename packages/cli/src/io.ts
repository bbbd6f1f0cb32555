import type { BundledExtensions } from '@airlock/host';
import { terminalSafe } from '@airlock/toolkit/display';
import type { Watchdog } from './watchdog.js';

/**
 * What a command runs with: where it reads and writes (real streams in the binary, buffers in
 * in-process tests), and the extension modules compiled into the binary.
 */
export interface IO {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Reads all of standard input (for `-` arguments). */
  readStdin(): Promise<string>;
  /** Standard input is a terminal (dialogs are possible). */
  isTTY: boolean;
  /** Standard error is a terminal: a person watches, so a running call's output streams there. */
  stderrIsTTY?: boolean;
  /** Standard output is a terminal too (then live output and the result would show twice without a rule between them). */
  stdoutIsTTY?: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The keyboard, for the interactive mode's line editor (the real binary's standard input). */
  stdin?: NodeJS.ReadStream;
  /**
   * The terminal itself, unfiltered, for the line editor's own cursor movements (which `stderr`
   * would escape). Only the editor writes here; everything it shows from others goes through `stderr`/`stdout`.
   */
  terminal?: NodeJS.WritableStream;
  /** Airlock's own extensions compiled into the bundled CLI (see scripts/bundle-entry.mjs). */
  bundled?: BundledExtensions;
  /**
   * Ends the process at once, skipping Node's exit (which waits for every thread-pool thread).
   * Only the real binary has one; see leaveIfStuck.
   */
  killSelf?: () => void;
  /**
   * The watchdog that ends the process when a call's time limit passes while the main thread is
   * stuck (see watchdog.ts). Only the real binary has one: it kills the whole process. Loaded
   * when a command opens a host, so `--version` and `--help` load none of it.
   */
  watchdog?: () => Promise<Watchdog>;
}

export function processIO(bundled?: BundledExtensions): IO {
  return {
    ...(bundled === undefined ? {} : { bundled }),
    // What reaches a terminal never carries a character it would interpret or hide, whatever a
    // formatter forgot (the formatters show each untrusted piece with displayText). stderr is for
    // people only; stdout is left byte for byte when it goes to a file or a program, and only
    // escaped on a terminal (terminalSafe keeps JSON valid and equal: its escapes are JSON's).
    stdout: process.stdout.isTTY === true ? guarded(process.stdout) : process.stdout,
    stderr: guarded(process.stderr),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    isTTY: process.stdin.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    stdoutIsTTY: process.stdout.isTTY === true,
    env: process.env,
    cwd: process.cwd(),
    stdin: process.stdin,
    terminal: process.stderr,
    killSelf: () => process.kill(process.pid, 'SIGKILL'),
    watchdog: async () => (await import('./watchdog.js')).processWatchdog(),
  };
}

/** A writer that passes every text through terminalSafe. */
export function guarded(stream: { write(text: string): unknown }): { write(text: string): unknown } {
  return { write: (text: string) => stream.write(terminalSafe(text)) };
}

/** Exit codes: the outcome of the call, or a problem before any call could run. */
export const EXIT = {
  ok: 0,
  /** The call ran through the pipeline and its outcome is not "ok" (denied, error, …). */
  outcome: 1,
  /** Usage, settings or load errors: nothing ran. */
  usage: 2,
} as const;

/** A problem that stops the command before any tool runs (exit code 2). */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

const readerGone = new AbortController();

/**
 * Aborted when the reader of standard output or error went away (`airlock … | head`): what runs
 * stops as on Ctrl-C (a call ends `aborted`, `audit tail -f` ends), its records are still written,
 * later output is dropped, and the exit code is the command's own. The `airlock` binary calls
 * `noteReaderGone` on EPIPE.
 */
export const outputClosed: AbortSignal = readerGone.signal;

/** Say that stdout or stderr lost its reader (see `outputClosed`). Calling it again does nothing. */
export function noteReaderGone(): void {
  if (!readerGone.signal.aborted) readerGone.abort(new Error('the output was closed by its reader'));
}

/** Run `onGone` when the output is closed, at once if it already is; returns the function that stops watching. */
export function whenOutputClosed(onGone: () => void): () => void {
  if (outputClosed.aborted) {
    onGone();
    return () => {};
  }
  outputClosed.addEventListener('abort', onGone, { once: true });
  return () => outputClosed.removeEventListener('abort', onGone);
}
