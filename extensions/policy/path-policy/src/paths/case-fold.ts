import { closeSync, openSync, opendirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

/** true: names differing only in case are one file there; false: they are not; undefined: unknown. */
export type FoldProbe = (dir: string) => boolean | undefined;

/**
 * Whether the filesystem holding `dir` folds case, found by looking: stat an existing name with
 * its case swapped (same inode → it folds). When the folder has no such name, create a probe file
 * and look for its upper-case twin. Answers are cached per folder: one probe per root.
 *
 * @example createCaseProbe()('/Users/me/project') // true on a default macOS volume
 */
export function createCaseProbe(): FoldProbe {
  const cache = new Map<string, boolean | undefined>();
  return (dir) => {
    if (!cache.has(dir)) cache.set(dir, probe(dir));
    return cache.get(dir);
  };
}

function probe(dir: string): boolean | undefined {
  try {
    // The first 200 names, read as such: a root of millions of names is not listed whole.
    const handle = opendirSync(dir, { bufferSize: 200 });
    try {
      for (let entry = handle.readSync(), n = 0; entry !== null && n < 200; entry = handle.readSync(), n++) {
        const swapped = swapCase(entry.name);
        if (swapped === entry.name) continue;
        const answer = sameFile(join(dir, entry.name), join(dir, swapped));
        if (answer !== undefined) return answer;
      }
    } finally {
      handle.closeSync();
    }
  } catch {
    // Unreadable folder: fall through to the probe file, which fails too, and say "unknown".
  }
  const file = join(dir, `.airlock-case-probe-${process.pid}-${Date.now()}`);
  try {
    closeSync(openSync(file, 'wx'));
  } catch {
    return undefined;
  }
  try {
    return sameFile(file, join(dir, swapCase(file.slice(dir.length + 1))));
  } finally {
    try {
      unlinkSync(file);
    } catch {
      // Gone already; nothing to clean up.
    }
  }
}

function sameFile(a: string, b: string): boolean | undefined {
  try {
    const x = statSync(a);
    try {
      const y = statSync(b);
      return x.ino === y.ino && x.dev === y.dev;
    } catch {
      return false;
    }
  } catch {
    return undefined;
  }
}

function swapCase(name: string): string {
  return [...name].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
}
