import { chmodSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// By path, not by package name: vitest loads a global setup without the `source` condition, so
// the package name would need a build (dist/) first.
import { removeTree } from '../../packages/kernel/src/testing/temp-dir.js';

/**
 * Names the code under test creates in the temp folder on purpose and keeps by design, so they
 * are not a test's leftovers: the spill folders (`airlock-spill-<uid>`, one per user, kept for 7
 * days so the model can read full outputs later) and jiti's transpile cache (`jiti`).
 */
const KEPT_BY_DESIGN = [/^airlock-spill(-\d+)?$/, /^jiti$/];

/** Whether a name in the run's temp folder is the product's own (spills, caches) rather than a leftover. */
export function isKeptByDesign(name: string): boolean {
  return KEPT_BY_DESIGN.some((pattern) => pattern.test(name));
}

/**
 * A fresh temp folder for one test run, under the current one. Mode 1777 like /tmp itself:
 * permission tests run code as another user ("nobody"), which must reach its fixtures and may
 * create its own spill folder here; the sticky bit keeps users from removing each other's files.
 *
 * @example const dir = createRunTempFolder(); process.env.TMPDIR = dir;
 */
export function createRunTempFolder(parent: string = tmpdir()): string {
  const dir = mkdtempSync(join(parent, 'airlock-test-run-'));
  chmodSync(dir, 0o1777);
  return dir;
}

export interface RunTempReport {
  /** What tests left behind: the run fails on these. */
  leftovers: string[];
  /** What the code under test keeps by design (spills, caches): removed without failing. */
  keptByDesign: string[];
}

/**
 * Leftover names grouped by what made them: mkdtemp's random 6-character tail is replaced by
 * "*", so 145 `airlock-kernel-test-XXXXXX` folders read as one line with a count and an example.
 *
 * @example summarizeLeftovers(['airlock-e2e-a1B2c3', 'airlock-e2e-Zz9yX8', 'x.log']) // ['airlock-e2e-* (2, e.g. airlock-e2e-a1B2c3)', 'x.log']
 */
export function summarizeLeftovers(names: readonly string[]): string[] {
  const groups = new Map<string, string[]>();
  for (const name of names) {
    const key = name.replace(/[A-Za-z0-9]{6}$/, '*');
    groups.set(key, [...(groups.get(key) ?? []), name]);
  }
  return [...groups].map(([key, all]) => (all.length === 1 ? all[0]! : `${key} (${all.length}, e.g. ${all[0]})`));
}

/**
 * List what a run left in its temp folder, then remove the folder and all of it.
 *
 * @example const { leftovers } = sweepRunTempFolder(dir); if (leftovers.length) process.exitCode = 1;
 */
export function sweepRunTempFolder(dir: string): RunTempReport {
  const names = readdirSync(dir).sort();
  removeTree(dir);
  return { leftovers: names.filter((n) => !isKeptByDesign(n)), keptByDesign: names.filter(isKeptByDesign) };
}
