import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readlinkSync, type Stats } from 'node:fs';
import { dirname, join } from 'node:path';
import { errnoCode } from '@airlock/toolkit/util';
import { sameIdentity, type FileIdentity, type JudgedTarget } from './judged.js';

/**
 * Open what the policy judged, and prove it: the answer to "the policy judged a name, the tool
 * later opened a name" (a process swapping the name for a symlink in between).
 *
 * How the opened descriptor is confirmed to be the judged file:
 * - Linux: the kernel's own answer, `readlink /proc/self/fd/N`, must be the judged real path.
 *   It names the file the descriptor holds, whatever happened to names since. Files inside a
 *   folder are then reached through `/proc/self/fd/<folder>/<name>`, which resolves through the
 *   opened folder itself, not its name: the equivalent of openat/renameat, which Node lacks.
 * - Elsewhere (macOS, or Linux without /proc): device and inode of the descriptor must equal
 *   those recorded when the policy judged the path (when the caller passes them: a read does, an
 *   edit, which judged the name for writing, does not), and the judged path must still lead to
 *   the same device and inode without passing a symlink. This leaves a window: a process that swaps
 *   a folder on the way for a link and back at exactly the right moments, twice, between the
 *   open and the check. The OS sandbox is the layer for processes; this check makes the race
 *   narrow there and closes it on Linux.
 */

/** The error for a name that changed between the decision and the open: retrying is the fix. */
export class ChangedSinceJudgedError extends Error {
  constructor(shown: string, what = 'file') {
    super(
      `${shown} changed between the policy's decision and the open (the ${what} at that path is no longer the one that was judged: ` +
        'it was replaced, moved, or swapped for a symbolic link). Nothing was read or written. Retry the call; if it keeps ' +
        'happening, another process is changing that path.',
    );
    this.name = 'ChangedSinceJudgedError';
  }
}

/**
 * The judged path was a symbolic link leading nowhere (its real path could not be resolved), so
 * the link itself was judged, not a target; following it now could reach a file made since.
 */
export class DanglingLinkError extends Error {
  constructor(shown: string) {
    super(
      `${shown} was a symbolic link that could not be resolved when the call was judged (a broken link, or one being changed at that moment). ` +
        'Nothing was opened. Use the path of the file it should point to, or retry.',
    );
    this.name = 'DanglingLinkError';
  }
}

let procWorks: boolean | undefined;

/** Whether /proc/self/fd names descriptors here (Linux with /proc mounted); probed once. */
export function canNameDescriptors(): boolean {
  if (procWorks !== undefined) return procWorks;
  let fd: number | undefined;
  try {
    fd = openSync('/', constants.O_RDONLY);
    procWorks = readlinkSync(`/proc/self/fd/${fd}`) === '/';
  } catch {
    procWorks = false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return procWorks;
}

/**
 * Tests only: `false` makes this process check as it would without /proc (macOS), so the
 * portable checks run on Linux too; `undefined` probes again.
 */
export function setDescriptorNamingForTests(enabled: false | undefined): void {
  procWorks = enabled;
}

/** The path the kernel has for descriptor `fd`, or undefined where it cannot say (see module comment). */
export function descriptorPath(fd: number): string | undefined {
  if (!canNameDescriptors()) return undefined;
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/**
 * Does descriptor `fd` (with stats `stats`) hold the thing judged at `path` (identity `judged`,
 * when one was recorded)? See the module comment for how, per platform.
 */
function isJudged(fd: number, stats: Stats, path: string, judged: FileIdentity | undefined): boolean {
  const named = descriptorPath(fd);
  // The kernel's name for the descriptor is the proof: the file opened sits at the judged path.
  // (Not its inode: an earlier edit replacing the file by rename is no reason to refuse.)
  if (named !== undefined) return named === path;
  if (judged !== undefined && !sameIdentity(stats, judged)) return false;
  return leadsWithoutLinks(path, stats);
}

/** `path` still reaches `target` (device and inode) with no symlink on the way. */
function leadsWithoutLinks(path: string, target: FileIdentity): boolean {
  try {
    for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) if (lstatSync(dir).isSymbolicLink()) return false;
    return sameIdentity(lstatSync(path), target);
  } catch {
    return false;
  }
}

/** Flags every judged open adds: never follow a final symlink (the judged path has none), never block on a FIFO. */
const SAFE = constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Open the file the policy judged (read-only) and confirm it is that file; returns the descriptor
 * and its stats. Throws the file system's error (ENOENT, EACCES …) for a path that cannot be
 * opened, and {@link ChangedSinceJudgedError} for one that no longer leads to the judged file.
 *
 * @example
 * const { fd, stats } = openJudgedFile(judgedFor(ctx) ?? judgeNow(real), 'notes.txt');
 */
export function openJudgedFile(judged: JudgedTarget, shown: string): { fd: number; stats: Stats } {
  let fd: number;
  try {
    fd = openSync(judged.path, constants.O_RDONLY | SAFE);
  } catch (error) {
    // The judged path is a real path (no link in it) unless it was a link leading nowhere: a
    // link met now was put there after the decision (it may be gone again by the time we look).
    if (errnoCode(error) === 'ELOOP') throw judged.danglingLink === true ? new DanglingLinkError(shown) : new ChangedSinceJudgedError(shown);
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!isJudged(fd, stats, judged.path, judged.file)) throw new ChangedSinceJudgedError(shown);
    return { fd, stats };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Anything but a plain non-folder there now (a link, a folder, or nothing): not a genuine ENOTDIR. */
function isLinkOrFolderNow(path: string): boolean {
  try {
    const s = lstatSync(path);
    return s.isSymbolicLink() || s.isDirectory();
  } catch {
    return true;
  }
}

/**
 * A folder opened and confirmed to be the one judged, for work on names inside it: on Linux
 * `entry(name)` is a path through the open folder itself, so a swap of the folder's name (or of
 * any folder above it) for a symlink cannot redirect what is opened, created or renamed there.
 *
 * @example
 * const folder = JudgedFolder.open('/repo/src', judged.folder, 'src/a.ts');
 * try { writeFileSync(folder.entry('a.ts'), '…'); folder.confirm(); } finally { folder.close(); }
 */
export class JudgedFolder {
  private constructor(
    readonly path: string,
    readonly fd: number,
    readonly identity: FileIdentity,
    private readonly shown: string,
    /** Names inside go through the descriptor (Linux) instead of the folder's path. */
    private readonly viaDescriptor: boolean,
  ) {}

  /**
   * Open folder `path` (a real path) and confirm it is the judged one (`judged`: its identity at
   * the decision, when it existed then). `shown` names the file for messages.
   */
  static open(path: string, judged: FileIdentity | undefined, shown: string): JudgedFolder {
    return JudgedFolder.#open(path, path, judged, shown);
  }

  /** Open the folder `name` inside this one (e.g. one just made), confirmed the same way. */
  openWithin(name: string): JudgedFolder {
    return JudgedFolder.#open(this.entry(name), join(this.path, name), undefined, this.shown);
  }

  static #open(via: string, path: string, judged: FileIdentity | undefined, shown: string): JudgedFolder {
    let fd: number;
    try {
      fd = openSync(via, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    } catch (error) {
      const code = errnoCode(error);
      // O_DIRECTORY|O_NOFOLLOW refused it, yet a folder, a link or nothing is there now: it changed meanwhile.
      if ((code === 'ELOOP' || code === 'ENOTDIR') && isLinkOrFolderNow(via)) throw new ChangedSinceJudgedError(shown, 'folder');
      throw error;
    }
    try {
      const stats = fstatSync(fd);
      if (!isJudged(fd, stats, path, judged)) throw new ChangedSinceJudgedError(shown, 'folder');
      return new JudgedFolder(path, fd, { dev: stats.dev, ino: stats.ino }, shown, descriptorPath(fd) !== undefined);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** The path to use for `name` inside this folder. */
  entry(name: string): string {
    return this.viaDescriptor ? `/proc/self/fd/${this.fd}/${name}` : join(this.path, name);
  }

  /**
   * Throw {@link ChangedSinceJudgedError} unless the folder's path still leads to this folder.
   * Needed only where names go by path (no /proc): call it just before and just after a rename.
   */
  confirm(): void {
    if (this.viaDescriptor) return;
    if (!leadsWithoutLinks(this.path, this.identity)) throw new ChangedSinceJudgedError(this.shown, 'folder');
  }

  /**
   * The file system's errors name the path they were given, here `/proc/self/fd/N/…`: put the
   * folder's own path back, so a message says which file. Returns `error` (changed in place).
   */
  plain<E>(error: E): E {
    const via = `/proc/self/fd/${this.fd}`;
    if (this.viaDescriptor && error instanceof Error) {
      error.message = error.message.split(via).join(this.path);
      const e = error as Error & { path?: unknown; dest?: unknown };
      if (typeof e.path === 'string') e.path = e.path.split(via).join(this.path);
      if (typeof e.dest === 'string') e.dest = e.dest.split(via).join(this.path);
    }
    return error;
  }

  close(): void {
    closeSync(this.fd);
  }
}

/**
 * The folder `path` (a real path), opened and confirmed as in {@link JudgedFolder.open}; missing
 * folders on the way are made one by one inside the confirmed folder above them, so a folder
 * swapped for a symlink meanwhile cannot make them appear somewhere else. Throws the file
 * system's error (EEXIST/ENOTDIR where a file is in the way, EACCES …).
 *
 * @example const folder = openOrMakeFolder('/repo/src/new/deep', judged.folder, 'src/new/deep/a.ts');
 */
export function openOrMakeFolder(path: string, judged: FileIdentity | undefined, shown: string): JudgedFolder {
  const missing: string[] = [];
  let existing = path;
  while (!isFolderNow(existing)) {
    const parent = dirname(existing);
    if (parent === existing) break;
    missing.unshift(existing.slice(parent.length + (parent.endsWith('/') ? 0 : 1)));
    existing = parent;
  }
  let folder = vanishedMeansChanged(() => JudgedFolder.open(existing, missing.length === 0 ? judged : undefined, shown), shown);
  for (const name of missing) {
    try {
      try {
        // Without /proc the folder is named by path: check it still leads here right before, which
        // leaves only the microsecond window docs/security.md names (an empty folder, no file).
        folder.confirm();
        vanishedMeansChanged(() => mkdirSync(folder.entry(name)), shown);
      } catch (error) {
        if (errnoCode(error) !== 'EEXIST') throw error;
      }
      const next = vanishedMeansChanged(() => folder.openWithin(name), shown);
      folder.close();
      folder = next;
    } catch (error) {
      folder.close();
      throw error;
    }
  }
  return folder;
}

function isFolderNow(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** ENOENT inside a folder just confirmed to exist: it was moved or removed meanwhile. */
function vanishedMeansChanged<T>(step: () => T, shown: string): T {
  try {
    return step();
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') throw new ChangedSinceJudgedError(shown, 'folder');
    throw error;
  }
}
