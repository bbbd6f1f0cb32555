import { spawn, type ChildProcess } from 'node:child_process';

/**
 * Commands whose output is known byte for byte, for tests that check that every byte a finished
 * command wrote reaches its result (issue 24 §6: `echo n158` came back `ok` with "(no output)").
 * Shared by the bash tool's tests, the host's (through the OS sandbox) and the CLI's.
 *
 * The cases are generated: output shapes (stdout, stderr, both interleaved, a background process
 * that wrote and still holds the output open, a shell that exits or is killed right after
 * writing) × sizes around the boundaries where a read can end (pipe and socket buffers, Node's
 * 64 KiB reads, the model's 50 KB tail): 0 and 1 byte, no trailing newline, 4095/4096/4097,
 * 65535/65536/65537, past a socket buffer.
 */
export interface OutputCase {
  command: string;
  /** Exactly what the command writes, stdout and stderr merged in the order written. */
  output: string;
  /** How the shell ends: an exit code, or killed by this signal (seen through bubblewrap as 128 + n). */
  ending: { code: number } | { signal: 'SIGKILL' };
  /** A process it started may still run when the shell exits: the leftover notice may follow. */
  leftover?: boolean;
}

/** Sizes in bytes: around the boundaries where a read or a buffer ends. */
export const SIZES = [0, 1, 15, 16, 17, 4095, 4096, 4097, 65535, 65536, 65537, 212_993] as const;

const LINE = 'abcdefghijklmno\n';

/** The first `n` bytes of the generator's output: 16-byte lines, the last one cut short unless `n` is a multiple of 16. */
export function pattern(n: number): string {
  return LINE.repeat(Math.ceil(n / LINE.length)).slice(0, n);
}

const gen = (n: number): string => `yes abcdefghijklmno | head -c ${n}`;

/** Every shape at one size (and a small interleaving count derived from it). */
export function casesOfSize(n: number): OutputCase[] {
  const k = 1 + (n % 40);
  const interleaved = Array.from({ length: k }, (_, i) => `o${i + 1}\ne${i + 1}\n`).join('');
  return [
    { command: gen(n), output: pattern(n), ending: { code: 0 } },
    { command: `${gen(n)} >&2`, output: pattern(n), ending: { code: 0 } },
    { command: `for i in $(seq 1 ${k}); do echo o$i; echo e$i >&2; done`, output: interleaved, ending: { code: 0 } },
    { command: `${gen(n)}; ${gen(n % 5000)} >&2; printf end`, output: `${pattern(n)}${pattern(n % 5000)}end`, ending: { code: 0 } },
    { command: `${gen(n)}; exit 3`, output: pattern(n), ending: { code: 3 } },
    { command: `${gen(n)}; kill -9 $$`, output: pattern(n), ending: { signal: 'SIGKILL' } },
    // A background process writes, then keeps the output open (sleep holds it) while the shell
    // writes "fg" and exits: the shell waits on the pipe into `read` until the writer is done, so
    // the expected output does not depend on timing.
    {
      command: `{ ( ${gen(n)} >&5; sleep 30 >&5 2>&5 & echo go ) | read -r _; printf fg; } 5>&1`,
      output: `${pattern(n)}fg`,
      ending: { code: 0 },
      leftover: true,
    },
  ];
}

/** Every shape at every size: 84 cases. */
export function allCases(): OutputCase[] {
  return SIZES.flatMap((n) => casesOfSize(n));
}

/** Every shape at the sizes nearest the limits (empty, one byte, past a page, past a 64 KiB read): 28 cases, for shorter runs. */
export function boundaryCases(): OutputCase[] {
  return [0, 1, 4097, 65537].flatMap((n) => casesOfSize(n));
}

/**
 * How many times each generated case runs: unset in CI (once, and the slowest runs take the
 * boundary cases only); `pnpm bench output` sets it for thousands of commands.
 */
export const BENCH_ROUNDS: number | undefined = process.env.AIRLOCK_OUTPUT_ROUNDS === undefined ? undefined : Number(process.env.AIRLOCK_OUTPUT_ROUNDS);

/**
 * Whether a result is exactly right for its case: the whole output (when it was cut for the
 * model, the full-output file named in the notice holds every byte and the text shown is its
 * end), then the failure line for a non-zero ending; a leftover notice may follow the output when
 * the case may leave a process. Returns the problem in words, or undefined when all is right.
 */
export function checkResult(c: OutputCase, outcome: string, text: string, readFile: (path: string) => string): string | undefined {
  const expectOk = 'code' in c.ending && c.ending.code === 0;
  if ((outcome === 'ok') !== expectOk) return `outcome ${outcome}, expected ${expectOk ? 'ok' : 'error'}: ${preview(text)}`;
  let rest = text;
  if (!expectOk) {
    const failure = 'code' in c.ending ? /(?:^|\n\n)Command exited with code (\d+)$/ : /(?:^|\n\n)Command (?:exited with code 137|was killed by SIGKILL)$/;
    const m = failure.exec(rest);
    if (m === null || ('code' in c.ending && Number(m[1]) !== c.ending.code)) return `wrong failure line: ${preview(text)}`;
    rest = rest.slice(0, m.index);
  }
  if (c.leftover === true) rest = rest.replace(/(?:^|\n?\n)\[The command left (?:a process|\d+ processes) running; ended when it finished\.[^\]]*\]$/, '');
  const notice = /(?:^|\n?\n)\[Showing [^\]]*Full output: (\S+)\]$/.exec(rest);
  if (notice !== null) {
    const full = readFile(notice[1]!);
    if (full !== c.output) return `full output differs: ${preview(full)}, expected ${preview(c.output)}`;
    // The notice's blank line may have taken the output's own last newline.
    const shown = rest.slice(0, notice.index);
    if (!c.output.endsWith(shown) && !c.output.endsWith(`${shown}\n`)) return `the text shown is not the end of the output: ${preview(shown)}`;
    return undefined;
  }
  const expected = c.output === '' && expectOk ? '(no output)' : c.output;
  if (rest !== expected) return `text differs: got ${preview(rest)}, expected ${preview(expected)}`;
  return undefined;
}

function preview(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 50)}…${text.slice(-50)} (${text.length} chars)` : text);
}

/**
 * Load that makes the race between a process's exit and the end of its output likely: busy
 * processes on every core, and stalls of this process's own event loop (as a host doing
 * synchronous work for another call stalls it; `stallMs: 0` for none, when the process under
 * test is another one). Returns the function that stops it all.
 */
export function startLoad(options: { busyProcesses?: number; stallMs?: number; everyMs?: number } = {}): () => void {
  const busy: ChildProcess[] = [];
  for (let i = 0; i < (options.busyProcesses ?? 2); i++) {
    busy.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  }
  const stallMs = options.stallMs ?? 150;
  if (stallMs === 0) return () => busy.forEach((child) => child.kill('SIGKILL'));
  const stall = setInterval(() => {
    const until = Date.now() + stallMs;
    while (Date.now() < until) {
      // Block the event loop, as synchronous work does.
    }
  }, options.everyMs ?? 400);
  return () => {
    clearInterval(stall);
    for (const child of busy) child.kill('SIGKILL');
  };
}
