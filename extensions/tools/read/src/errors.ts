import { lstat, opendir, readlink } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { closestNames, errnoCode, errnoWords, isPermissionDenied } from '@airlock/toolkit/util';
import { visibleName } from '@airlock/tool-common';

/**
 * Errors worded for the model: what went wrong with which path, and what to do instead.
 */

/** The message for a failed open/stat of `path` (the path the model gave is `shown`). */
export async function describeFsError(error: unknown, path: string, shown: string): Promise<string> {
  const code = errnoCode(error);
  if (code === 'ENOENT') return notFound(path, shown);
  if (code === 'EISDIR') return isDirectory(shown);
  if (isPermissionDenied(code)) return `Permission denied: cannot read ${shown}. The file exists but this process may not read it.`;
  const words = errnoWords(code);
  if (code === 'ELOOP') return `Cannot read ${shown}: ${words} (a symlink loop?).`;
  if (words === undefined) return `Cannot read ${shown}: ${error instanceof Error ? error.message : String(error)}`;
  return `Cannot read ${shown}: ${words}.`;
}

export function isDirectory(shown: string): string {
  return `${shown} is a directory, not a file. Use the ls tool to list its contents, then read a file in it.`;
}

async function notFound(path: string, shown: string): Promise<string> {
  // A link to nothing: the name is there, so "did you mean" would only offer the name itself.
  const target = await danglingTarget(path);
  if (target !== undefined) return `File not found: ${shown} is a symbolic link to ${visibleName(target)}, which does not exist.`;
  const dir = dirname(path);
  let names: string[];
  try {
    names = await listNames(dir);
  } catch {
    return `File not found: ${shown}. Its folder ${dir} does not exist either.`;
  }
  const close = closestNames(basename(path), names);
  if (close.length === 0) return `File not found: ${shown}.`;
  return `File not found: ${shown}. Did you mean ${close.map((n) => `"${visibleName(n)}"`).join(', ')} in ${dir}?`;
}

/** What `path` links to, when it is a symbolic link. */
async function danglingTarget(path: string): Promise<string | undefined> {
  try {
    return (await lstat(path)).isSymbolicLink() ? await readlink(path) : undefined;
  } catch {
    return undefined;
  }
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
