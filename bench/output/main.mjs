// The output bench: thousands of generated commands through bash, every output checked byte for
// byte (issue 24 §6: a finished command's output was lost and the call still said ok). It runs
// the same tests as CI, bigger: the bash tool alone and the host with the OS sandbox, quiet and
// under an artificial load, then the CLI's 600-call batch under load. Run through `pnpm bench output`.

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CASES = 84; // allCases() in extensions/tools/bash/test/support/output-cases.ts
const FILES = ['extensions/tools/bash/test/output-whole.test.ts', 'packages/host/test/sandbox/output-whole.test.ts', 'test/e2e/bash-output-whole.test.ts'];

export const description = 'thousands of generated bash commands (tool, host + OS sandbox, CLI batch), quiet and under load: every output whole and byte-exact';

export const usage = `pnpm bench output [options]
  --rounds N         every generated case N times per run (default 12: about 4,000 commands; CI runs 1)`;

function parseArgs(argv) {
  const opts = { rounds: 12 };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--rounds') opts.rounds = Number(argv[++i]);
    else throw new Error(`unknown option for the output bench: ${argv[i]}\n${usage}`);
  }
  if (!(Number.isInteger(opts.rounds) && opts.rounds > 0)) throw new Error('--rounds needs a positive integer');
  return opts;
}

export async function main(argv) {
  const { rounds } = parseArgs(argv);
  // Four generated runs (tool and host, quiet and under load) plus the CLI's batch of 600 calls.
  const commands = 4 * CASES * rounds + 600;
  console.error(`[bench] output: about ${commands} commands (${rounds} rounds of ${CASES} cases in 4 runs, then the 600-call CLI batch under load)`);
  const started = performance.now();
  const pnpm = process.platform === 'win32' ? 'pnpm.cmd' : 'pnpm';
  const res = spawnSync(pnpm, ['vitest', 'run', ...FILES], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, AIRLOCK_OUTPUT_ROUNDS: String(rounds), AIRLOCK_OUTPUT_LOAD: '1' },
  });
  const seconds = (performance.now() - started) / 1000;
  console.log(`output bench: ${commands} commands in ${seconds.toFixed(1)} s, ${res.status === 0 ? 'every output whole' : 'FAILED (see above)'}`);
  if (res.status !== 0) process.exitCode = 1;
}
