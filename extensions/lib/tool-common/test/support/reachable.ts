import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { TestRunner } from 'vitest';

/** The unprivileged user permission tests run as when the suite runs as root (root ignores modes). */
export const NOBODY = 65534;
export const isRoot = process.getuid?.() === 0;

/**
 * Why `nobody` cannot reach `path`: the first folder on the way it may not search, or undefined
 * when every folder on the way lets others in (mode o+x).
 *
 * @example whyNobodyCannotReach('/root/tmp/x') // "/root has mode 700: others may not enter it"
 */
export function whyNobodyCannotReach(path: string): string | undefined {
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    const mode = statSync(dir).mode & 0o7777;
    if ((mode & 0o001) === 0) return `${dir} has mode ${mode.toString(8)}: others may not enter it`;
    if (dir === dirname(dir)) return undefined;
  }
}

/**
 * Skip the running test, with a note naming the folder, when `nobody` cannot reach `path`:
 * the test would fail for a reason it does not test.
 */
export function skipUnlessNobodyCanReach(path: string): void {
  const why = whyNobodyCannotReach(path);
  if (why === undefined) return;
  const test = TestRunner.getCurrentTest();
  const note = `needs a folder the user nobody can reach, but ${why} (set TMPDIR to one, e.g. /tmp)`;
  if (test === undefined) throw new Error(note);
  // The note shows next to the test in verbose output; the line shows in every reporter.
  console.warn(`skipped: ${note}`);
  test.context.skip(note);
}
