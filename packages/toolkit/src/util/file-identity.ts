import { lstatSync } from 'node:fs';
import { dirname } from 'node:path';
import type { FileIdentity, JudgedFile } from '@airlock/contract';

/**
 * `path` as it is now: the device and inode of what is there (a symlink itself, not followed) and
 * of its folder. The kernel records this for each file resource when the policy judges it
 * (ToolContext.judged); a tool running outside a kernel takes it just before it opens the file.
 *
 * @example judgedFileAt('/work/a.txt') // { path: '/work/a.txt', file: { dev: 2049, ino: 1234 }, folder: { dev: 2049, ino: 99 } }
 */
export function judgedFileAt(path: string): JudgedFile {
  let file: FileIdentity | undefined;
  let danglingLink = false;
  try {
    const s = lstatSync(path);
    file = { dev: s.dev, ino: s.ino };
    danglingLink = s.isSymbolicLink();
  } catch {
    // nothing there
  }
  return { path, file, folder: identityOf(dirname(path)), ...(danglingLink ? { danglingLink } : {}) };
}

/** The identity of whatever is at `path` itself (a symlink is not followed), or undefined. */
export function identityOf(path: string): FileIdentity | undefined {
  try {
    const s = lstatSync(path);
    return { dev: s.dev, ino: s.ino };
  } catch {
    return undefined;
  }
}

export function sameIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}
