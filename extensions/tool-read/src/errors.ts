import { opendir } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { visibleName } from '@airlock/tool-common';

/**
 * Errors worded for the model: what went wrong with which path, and what to do instead.
 */

/** The message for a failed open/stat of `path` (the path the model gave is `shown`). */
export async function describeFsError(error: unknown, path: string, shown: string): Promise<string> {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return notFound(path, shown);
    case 'EISDIR':
      return isDirectory(shown);
    case 'EACCES':
    case 'EPERM':
      return `Permission denied: cannot read ${shown}. The file exists but this process may not read it.`;
    case 'ENOTDIR':
      return `Cannot read ${shown}: a part of the path before the file name is a file, not a folder.`;
    case 'ELOOP':
      return `Cannot read ${shown}: too many levels of symbolic links (a symlink loop?).`;
    case 'ENAMETOOLONG':
      return `Cannot read ${shown}: the path is too long.`;
    default:
      return `Cannot read ${shown}: ${error instanceof Error ? error.message : String(error)}`;
  }
}

export function isDirectory(shown: string): string {
  return `${shown} is a directory, not a file. Use the ls tool to list its contents, then read a file in it.`;
}

async function notFound(path: string, shown: string): Promise<string> {
  const dir = dirname(path);
  let names: string[];
  try {
    names = await listNames(dir);
  } catch {
    return `File not found: ${shown}. Its folder ${dir} does not exist either.`;
  }
  const close = closeNames(basename(path), names);
  if (close.length === 0) return `File not found: ${shown}.`;
  return `File not found: ${shown}. Did you mean ${close.map((n) => `"${visibleName(n)}"`).join(', ')} in ${dir}?`;
}

/** At most this many entries are compared: a folder of a million files must not stall a read. */
const MAX_ENTRIES = 10_000;

async function listNames(dir: string): Promise<string[]> {
  const names: string[] = [];
  const handle = await opendir(dir);
  for await (const entry of handle) {
    names.push(entry.name);
    if (names.length >= MAX_ENTRIES) break;
  }
  return names;
}

/**
 * Names in the folder close to `wanted`: same name ignoring case, or within a small edit
 * distance (about a third of the name), best first, at most three.
 *
 * @example closeNames('readme.md', ['README.md', 'src']) // ['README.md']
 */
export function closeNames(wanted: string, names: readonly string[], max = 3): string[] {
  const w = wanted.toLowerCase();
  const threshold = Math.max(1, Math.floor(w.length / 3));
  const scored: { name: string; d: number }[] = [];
  for (const name of names) {
    const n = name.toLowerCase();
    if (Math.abs(n.length - w.length) > threshold) continue;
    const d = editDistance(w, n);
    if (d <= threshold) scored.push({ name, d });
  }
  scored.sort((a, b) => a.d - b.d || a.name.localeCompare(b.name));
  return scored.slice(0, max).map((s) => s.name);
}

/** Optimal-string-alignment distance: insertions, deletions, substitutions, adjacent swaps. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  const width = b.length + 1;
  let prev2 = new Array<number>(width).fill(0);
  let prev = Array.from({ length: width }, (_, j) => j);
  let row = new Array<number>(width).fill(0);
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, (prev2[j - 2] ?? 0) + 1);
      row[j] = best;
    }
    [prev2, prev, row] = [prev, row, prev2];
  }
  return prev[b.length] ?? 0;
}
