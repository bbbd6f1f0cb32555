import { appendFileSync } from 'node:fs';
import { createRunTempFolder, summarizeLeftovers, sweepRunTempFolder } from './run-temp-folder.js';

/** Set while this process owns a run temp folder; vitest calls a global setup once per project too. */
const OWNER = 'AIRLOCK_TEST_RUN_TMPDIR';

/**
 * Vitest global setup: point TMPDIR (hence `os.tmpdir()` in vitest, its workers and every child
 * process: the CLI, bash, rg) at a fresh folder this run owns. Whatever is left in it at the end
 * was made by the suite, so the teardown names it, fails the run (exit status 1) and removes it.
 * With AIRLOCK_TEST_LEFTOVERS_REPORT set, the names are also written to that file (`.ci/run`
 * counts them in its summary line).
 */
export default function setup(): (() => void) | undefined {
  if (process.env[OWNER]) return undefined;
  const dir = createRunTempFolder();
  const previous = process.env.TMPDIR;
  process.env[OWNER] = dir;
  process.env.TMPDIR = dir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    delete process.env[OWNER];
    let leftovers: string[];
    try {
      ({ leftovers } = sweepRunTempFolder(dir));
    } catch (error) {
      // vitest ignores an exception here (the run would pass): fail it by the exit status instead.
      process.exitCode = 1;
      process.stderr.write(`\nCould not remove the run's temp folder ${dir}: ${(error as Error).message}\n`);
      return;
    }
    if (leftovers.length === 0) return;
    process.exitCode = 1;
    process.stderr.write(
      `\nThe tests left ${leftovers.length} file(s) or folder(s) in the temp folder (now removed):\n  ${summarizeLeftovers(leftovers).join('\n  ')}\n` +
        'Each test must remove what it creates: makeTempDir() from @airlock/kernel/testing inside a test, rm(dir, { recursive: true, force: true }) in afterAll for a folder made in beforeAll, dispose() for a tool harness made outside a test.\n',
    );
    const report = process.env.AIRLOCK_TEST_LEFTOVERS_REPORT;
    // Appended: .ci/run runs `pnpm test` and `pnpm test:e2e` with one report file.
    if (report) appendFileSync(report, leftovers.join('\n') + '\n');
  };
}
