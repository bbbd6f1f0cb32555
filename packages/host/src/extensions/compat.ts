import semver from 'semver';
import type { Diagnostic } from '@airlock/contract';
import { diagnostic, type Subject } from './diagnostics.js';

/**
 * Does the running kernel satisfy the range an extension declares? Two different failures,
 * because they have different fixes: an *invalid* range is the author's typo (semver's
 * `satisfies` would just say false), an *unsatisfied* one means one side must be upgraded.
 * Prereleases count (`1.3.0-beta.1` satisfies `^1.2.0`): a beta kernel should load the
 * extensions written for its line, not refuse them all.
 */

const OPTIONS = { includePrerelease: true } as const;

export interface CompatInput {
  packageName: string;
  version: string;
  /** package.json#airlock.kernel */
  range: string;
  kernelVersion: string;
}

/**
 * `undefined` when compatible, else the diagnostic (AIRLOCK_EXTENSION_KERNEL_RANGE_INVALID or
 * AIRLOCK_EXTENSION_INCOMPATIBLE), naming the extension, its range and the running kernel.
 *
 * @example
 * checkKernelRange({ packageName: 'x', version: '1.0.0', range: '^2.0.0', kernelVersion: '1.0.0' }, { extension: 'x' });
 * // → AIRLOCK_EXTENSION_INCOMPATIBLE: "… needs kernel "^2.0.0", but this Airlock runs kernel 1.0.0 …" (fix: upgrade Airlock)
 */
export function checkKernelRange(input: CompatInput, subject: Subject): Diagnostic | undefined {
  const { range, kernelVersion } = input;
  const details = { packageName: input.packageName, version: input.version, range, kernelVersion };
  if (range.trim() === '' || semver.validRange(range, OPTIONS) === null) {
    return diagnostic('AIRLOCK_EXTENSION_KERNEL_RANGE_INVALID', subject, details);
  }
  if (semver.satisfies(kernelVersion, range, OPTIONS)) return undefined;
  // Which side to upgrade: a range wholly above the kernel needs a newer Airlock, one wholly
  // below needs a newer extension; a range with a hole around the kernel gets both options.
  const upgrade = semver.gtr(kernelVersion, range, OPTIONS) ? 'extension' : semver.ltr(kernelVersion, range, OPTIONS) ? 'airlock' : undefined;
  return diagnostic('AIRLOCK_EXTENSION_INCOMPATIBLE', subject, { ...details, ...(upgrade ? { upgrade } : {}) });
}

/**
 * Whether a package version falls in a range (prereleases count, as for kernel ranges).
 *
 * @example versionSatisfies('1.0.0', '^1.0.0') // true
 */
export function versionSatisfies(version: string, range: string): boolean {
  return semver.validRange(range, OPTIONS) !== null && semver.satisfies(version, range, OPTIONS);
}
