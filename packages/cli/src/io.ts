import type { BundledExtensions } from '@airlock/host';

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
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Airlock's own extensions compiled into the single-file CLI (see scripts/bundle-entry.mjs). */
  bundled?: BundledExtensions;
  /**
   * Ends the process at once, skipping Node's exit (which waits for every thread-pool thread).
   * Only the real binary has one; see leaveIfStuck.
   */
  killSelf?: () => void;
}

export function processIO(bundled?: BundledExtensions): IO {
  return {
    ...(bundled === undefined ? {} : { bundled }),
    stdout: process.stdout,
    stderr: process.stderr,
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    isTTY: process.stdin.isTTY === true,
    env: process.env,
    cwd: process.cwd(),
    killSelf: () => process.kill(process.pid, 'SIGKILL'),
  };
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
