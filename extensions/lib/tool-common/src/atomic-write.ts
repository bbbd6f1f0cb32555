import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { accessSync, closeSync, constants, fchmodSync, fchownSync, fstatSync, lstatSync, openSync, renameSync, unlinkSync, writeSync, writevSync } from 'node:fs';
import { access, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { errnoCode } from '@airlock/toolkit/util';
import type { JudgedFolder } from './open-judged.js';

/**
 * The one way edit and write put content into a file: write a temp file in the same folder, then
 * rename it over the target. A reader (or a crash) sees the old file or the new one, never a
 * half-written one, and the temp file never outlives a failed write.
 *
 * Durability: there is no fsync. Rename is atomic for every reader without one; fsync only
 * matters if the machine loses power in the seconds after the write. ext4 (data=ordered, the
 * default) and btrfs already flush a file's data before a rename that replaces another file
 * commits, so even then the old or the new content survives; on other file systems a power cut
 * could leave an empty file. We accept that: it costs a 10 MB write ~6 ms of fsync (more than
 * the rest of the write), an agent's session does not survive a power cut either, and Pi and
 * most editors do not fsync.
 */

export interface AtomicWriteOptions {
  /**
   * The file being replaced. Its permission bits (and owner and group, where allowed) carry
   * over. Omit it for a new file, which gets the mode any new file gets under the umask.
   */
  replacing?: Stats | undefined;
  /** Runs just before the rename: the last moment a throw (e.g. an abort) leaves the target untouched. */
  beforeRename?: () => void;
  /**
   * The folder opened and confirmed as the judged one (see JudgedFolder): the temp file is made
   * and renamed inside it, so a folder swapped for a symlink cannot take the write elsewhere.
   * Without it, names go by the target's path.
   */
  folder?: JudgedFolder;
  /**
   * Compare-and-swap: what must be at the target just before the rename — the stats of the file
   * that was read (device, inode, size, mtime, ctime must all match), or null for "no file". On a
   * mismatch nothing is renamed and {@link ChangedDuringWriteError} is thrown: another process
   * wrote the file meanwhile, and reporting success would hide that its write, or ours, was lost.
   */
  expect?: Stats | null;
}

/**
 * The target changed between the read and the rename (see `expect`). The message says what to do;
 * `shownAs` lets a tool name the file the way the model wrote it.
 */
export class ChangedDuringWriteError extends Error {
  constructor(readonly target: string) {
    super(changedText(target));
    this.name = 'ChangedDuringWriteError';
  }

  /** The message with the file named as `shown`. */
  shownAs(shown: string): string {
    return changedText(shown);
  }
}

function changedText(shown: string): string {
  return (
    `${shown} changed on disk while this call was changing it (another process wrote it between the read and the write). ` +
    'Nothing was written, so that change is kept. Read the file again and redo the change.'
  );
}

/** Throw unless the target is still what `expect` says (see AtomicWriteOptions.expect). */
function checkUnchanged(path: string, target: string, expect: Stats | null | undefined): void {
  if (expect === undefined) return;
  let now: Stats | undefined;
  try {
    now = lstatSync(path);
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error;
  }
  if (expect === null ? now === undefined : now !== undefined && sameFile(now, expect)) return;
  throw new ChangedDuringWriteError(target);
}

function sameFile(a: Stats, b: Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
}

/** A rename confirmed after the fact to have gone to another folder: say so plainly. */
function landedElsewhere(target: string): Error {
  return new Error(
    `The folder of ${target} was swapped (for a symbolic link, or moved) during the rename that finishes the write, so the new ` +
      'content may have landed in another folder. Check the folder, and stop whatever process is changing it before retrying.',
  );
}

/** What the target is after the write, for the session's staleness ledger and the report. */
export interface AtomicWriteResult {
  /** Bytes written. */
  bytes: number;
  mtimeMs: number;
  size: number;
}

/**
 * Write `data` (a string, written as UTF-8, or byte chunks written back to back) to `target` atomically.
 * Throws the file system's error (with its `code`) when the folder refuses the temp file, the
 * disk is full and so on; the target is then untouched and no temp file remains.
 *
 * @example await writeFileAtomic('/repo/a.txt', 'hello\n', { replacing: await stat('/repo/a.txt') })
 */
export async function writeFileAtomic(target: string, data: string | readonly Uint8Array[], options: AtomicWriteOptions = {}): Promise<AtomicWriteResult> {
  const { replacing } = options;
  if (sizeOf(data) <= SYNC_LIMIT) return writeSmall(target, data, options);
  // Rename needs write permission on the folder only, so it would replace a file its owner made
  // read-only (or one owned by someone else). Respect the file's own permission, as writing in
  // place would: EACCES here, before anything is written.
  const { temp, dest, folder } = names(target, options);
  if (replacing) await access(dest, constants.W_OK);
  // Created with the replaced file's permission bits (the umask can only narrow them), so the
  // temp file is never more visible than the file it becomes. A new file gets the usual 0666, so
  // the umask and default ACLs apply as to any new file.
  const handle = await open(temp, 'wx', replacing ? replacing.mode & 0o777 : 0o666);
  let renamed = false;
  try {
    // Without /proc the temp file went by the folder's path: no content goes in unless that was the judged folder.
    folder?.confirm();
    let result: AtomicWriteResult;
    try {
      const bytes = typeof data === 'string' ? await writeString(handle, data) : await writeChunks(handle, data);
      if (replacing) await keepOwner(handle, replacing);
      // Rename, close and chmod keep mtime and size, so this is the target's stamp without
      // another lookup; its mode shows whether a chmod is still needed.
      const after = await handle.stat();
      if (replacing && (after.mode & 0o7777) !== (replacing.mode & 0o7777)) await handle.chmod(replacing.mode & 0o7777);
      result = { bytes, mtimeMs: after.mtimeMs, size: after.size };
    } finally {
      await handle.close();
    }
    options.beforeRename?.();
    folder?.confirm();
    checkUnchanged(dest, target, options.expect);
    await rename(temp, dest);
    renamed = true;
    if (!confirmed(folder)) throw landedElsewhere(target);
    return result;
  } finally {
    if (!renamed) await unlink(temp).catch(() => {});
  }
}

/** The temp file's and the target's paths: inside the judged folder when there is one. */
function names(target: string, options: AtomicWriteOptions): { temp: string; dest: string; folder: JudgedFolder | undefined } {
  const { folder } = options;
  const temp = tempName(basename(target));
  if (folder) return { temp: folder.entry(temp), dest: folder.entry(basename(target)), folder };
  return { temp: join(dirname(target), temp), dest: target, folder };
}

function confirmed(folder: JudgedFolder | undefined): boolean {
  try {
    folder?.confirm();
    return true;
  } catch {
    return false;
  }
}

/**
 * Up to this many bytes the whole write is synchronous: its seven system calls (access, open,
 * write, fstat, close, rename, and a chown/chmod when needed) each cost a thread-pool round
 * trip when asynchronous, more than the work itself for a small file. Bigger writes stay
 * asynchronous so they do not hold the event loop.
 */
const SYNC_LIMIT = 256 * 1024;

function sizeOf(data: string | readonly Uint8Array[]): number {
  if (typeof data === 'string') return data.length > SYNC_LIMIT ? Number.POSITIVE_INFINITY : Buffer.byteLength(data, 'utf8');
  let total = 0;
  for (const chunk of data) total += chunk.length;
  return total;
}

/** {@link writeFileAtomic} for small data, step for step, with synchronous calls. */
function writeSmall(target: string, data: string | readonly Uint8Array[], options: AtomicWriteOptions): AtomicWriteResult {
  const { replacing } = options;
  const { temp, dest, folder } = names(target, options);
  if (replacing) accessSync(dest, constants.W_OK);
  const fd = openSync(temp, 'wx', replacing ? replacing.mode & 0o777 : 0o666);
  let renamed = false;
  try {
    folder?.confirm();
    let result: AtomicWriteResult;
    try {
      const bytes = typeof data === 'string' ? writeAllSync(fd, Buffer.from(data, 'utf8')) : writeChunksSync(fd, data);
      if (replacing && !(replacing.uid === process.geteuid?.() && replacing.gid === process.getegid?.())) {
        try {
          fchownSync(fd, replacing.uid, replacing.gid);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
        }
      }
      const after = fstatSync(fd);
      if (replacing && (after.mode & 0o7777) !== (replacing.mode & 0o7777)) fchmodSync(fd, replacing.mode & 0o7777);
      result = { bytes, mtimeMs: after.mtimeMs, size: after.size };
    } finally {
      closeSync(fd);
    }
    options.beforeRename?.();
    folder?.confirm();
    checkUnchanged(dest, target, options.expect);
    renameSync(temp, dest);
    renamed = true;
    if (!confirmed(folder)) throw landedElsewhere(target);
    return result;
  } finally {
    if (!renamed) {
      try {
        unlinkSync(temp);
      } catch {
        // already gone
      }
    }
  }
}

function writeAllSync(fd: number, bytes: Uint8Array): number {
  let done = 0;
  while (done < bytes.length) {
    const n = writeSync(fd, bytes, done, bytes.length - done);
    if (n === 0) throw new Error('The file system accepted no bytes of the write.');
    done += n;
  }
  return bytes.length;
}

function writeChunksSync(fd: number, chunks: readonly Uint8Array[]): number {
  const pending = chunks.filter((chunk) => chunk.length > 0);
  let total = 0;
  for (const chunk of pending) total += chunk.length;
  const written = pending.length > 0 ? writevSync(fd, pending) : 0;
  // A short writev (a nearly full disk) is finished chunk by chunk.
  if (written < total) writeAllSync(fd, Buffer.concat(pending).subarray(written));
  return total;
}

/** At most this many UTF-16 units of the target's name go into the temp name, so it stays under NAME_MAX. */
const NAME_KEPT = 50;

function tempName(name: string): string {
  return `.${name.length > NAME_KEPT ? name.slice(0, NAME_KEPT) : name}.${randomBytes(6).toString('hex')}.airlock-tmp`;
}

/**
 * A string goes to the kernel in one write, encoded by Node on the way: cheaper than building a
 * Buffer of it first. A short write (a full disk returns one before ENOSPC) finishes from bytes.
 */
async function writeString(handle: FileHandle, text: string): Promise<number> {
  const pending = handle.write(text, null, 'utf8');
  // Counted while the write is in flight; needed to notice a short write.
  const total = Buffer.byteLength(text, 'utf8');
  const { bytesWritten } = await pending;
  if (bytesWritten < total) await writeChunks(handle, [Buffer.from(text, 'utf8').subarray(bytesWritten)]);
  return total;
}

/** Chunks in one writev (one round trip however many slices an edit has), continued after a short write. */
async function writeChunks(handle: FileHandle, chunks: readonly Uint8Array[]): Promise<number> {
  let pending = chunks.filter((chunk) => chunk.length > 0);
  let total = 0;
  for (const chunk of pending) total += chunk.length;
  while (pending.length > 0) {
    let { bytesWritten } = await handle.writev(pending);
    if (bytesWritten === 0) throw new Error('The file system accepted no bytes of the write.');
    const rest: Uint8Array[] = [];
    for (const chunk of pending) {
      if (bytesWritten >= chunk.length) bytesWritten -= chunk.length;
      else {
        rest.push(bytesWritten > 0 ? chunk.subarray(bytesWritten) : chunk);
        bytesWritten = 0;
      }
    }
    pending = rest;
  }
  return total;
}

/**
 * Give the new file the replaced file's owner and group. Only root may give a file away, so
 * EPERM just keeps ours. When the old file is already ours, so is the new one: no call. The
 * chown comes before the chmod in writeFileAtomic because a chown clears set-user-ID and
 * set-group-ID bits.
 */
async function keepOwner(handle: FileHandle, replacing: Stats): Promise<void> {
  if (replacing.uid === process.geteuid?.() && replacing.gid === process.getegid?.()) return;
  try {
    await handle.chown(replacing.uid, replacing.gid);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
  }
}
