import { randomUUID } from 'node:crypto';
import { closeSync, fstatSync, lstatSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { errnoCode } from '@airlock/toolkit/util';
import { sameIdentity, type FileIdentity } from './judged.js';
import { ChangedSinceJudgedError, type JudgedFolder } from './open-judged.js';

/**
 * A lock between Airlock processes changing one file, so that two of them editing the same file
 * cannot both read the old content and both report success while the second rename throws the
 * first edit away. (Inside one process the kernel's mutation queue already orders the calls.)
 *
 * The lock is a file `.<name>.airlock-lock` created with O_EXCL next to the target, inside the
 * judged folder, holding `pid host token`. It lives only while one edit or write runs.
 *
 * Stale locks (a process killed mid-edit): a lock whose process is gone on this host, one that
 * stayed empty for STALE_EMPTY_MS (killed between create and write), or one from another host
 * older than STALE_FOREIGN_MS is removed and the lock taken. Two processes breaking the same
 * stale lock at once could both go ahead; that needs a crash first and the compare-and-swap in
 * writeFileAtomic still refuses the second rename, so no success is reported for a lost write.
 *
 * It is advisory: bash, editors and other programs do not take it. The compare-and-swap before
 * the rename is what covers them (see writeFileAtomic's `expect`).
 */

/** How long a call waits for another process's edit of the same file before giving up. */
export const LOCK_WAIT_MS = 30_000;
const STALE_EMPTY_MS = 5_000;
const STALE_FOREIGN_MS = 10 * 60_000;
/** At most this many UTF-16 units of the file's name go into the lock's name (NAME_MAX). */
const NAME_KEPT = 50;

export interface FileLock {
  release(): void;
}

/** The lock's name for a file `name`. */
export function lockName(name: string): string {
  return `.${name.length > NAME_KEPT ? name.slice(0, NAME_KEPT) : name}.airlock-lock`;
}

/**
 * Take the lock for `name` in `folder`, waiting (up to `waitMs`, or until `signal` aborts) while
 * another live process holds it. Throws a message that says who holds it and what to do.
 *
 * @example
 * const lock = await lockFile(folder, 'a.txt', 'a.txt', signal);
 * try { … read, change, rename … } finally { lock.release(); }
 */
export async function lockFile(folder: JudgedFolder, name: string, shown: string, signal?: AbortSignal, waitMs = LOCK_WAIT_MS): Promise<FileLock> {
  const path = folder.entry(lockName(name));
  const mine = `${process.pid} ${hostname()} ${randomUUID()}\n`;
  const started = Date.now();
  let pause = 2;
  for (;;) {
    signal?.throwIfAborted();
    const identity = tryCreate(path, mine, shown);
    if (identity !== undefined) return { release: () => releaseLock(path, identity) };
    const holder = readHolder(path);
    if (holder !== undefined && isStale(holder)) {
      removeQuietly(path);
      continue;
    }
    if (Date.now() - started >= waitMs) {
      const who = holder?.pid === undefined ? 'another process' : `Airlock process ${holder.pid}${holder.host === hostname() ? '' : ` on ${holder.host}`}`;
      throw new Error(
        `${shown} is being changed by ${who} (it holds ${lockName(name)} in the same folder); waited ${Math.round(waitMs / 1000)} s. ` +
          'Nothing was changed. Retry when that process is done; if no such process runs, delete that lock file.',
      );
    }
    await sleep(pause, signal);
    pause = Math.min(pause * 2, 50);
  }
}

function tryCreate(path: string, content: string, shown: string): FileIdentity | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return undefined;
    // The folder was open and confirmed: ENOENT means it was removed or replaced since.
    if (errnoCode(error) === 'ENOENT') throw new ChangedSinceJudgedError(shown, 'folder');
    throw error;
  }
  try {
    writeSync(fd, content);
    const { dev, ino } = fstatSync(fd);
    return { dev, ino };
  } catch (error) {
    removeQuietly(path);
    throw error;
  } finally {
    closeSync(fd);
  }
}

interface Holder {
  pid: number | undefined;
  host: string | undefined;
  ageMs: number;
}

function readHolder(path: string): Holder | undefined {
  try {
    const ageMs = Date.now() - lstatSync(path).mtimeMs;
    const [pid, host] = readFileSync(path, 'utf8').trim().split(' ');
    const n = Number(pid);
    return { pid: Number.isSafeInteger(n) && n > 0 ? n : undefined, host, ageMs };
  } catch {
    return undefined; // gone meanwhile: try again
  }
}

function isStale(holder: Holder): boolean {
  if (holder.pid === undefined || holder.host === undefined) return holder.ageMs > STALE_EMPTY_MS;
  if (holder.host !== hostname()) return holder.ageMs > STALE_FOREIGN_MS;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    return errnoCode(error) === 'ESRCH';
  }
}

/** Remove the lock only while it is still the one this call made (a broken stale lock is not ours). */
function releaseLock(path: string, identity: FileIdentity): void {
  try {
    if (sameIdentity(lstatSync(path), identity)) unlinkSync(path);
  } catch {
    // already gone
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
