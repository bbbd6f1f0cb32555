import { randomUUID } from 'node:crypto';
import { closeSync, lstatSync, mkdirSync, openSync, readFileSync, rmdirSync, statSync, unlinkSync, utimesSync, writeFileSync, writeSync, type Stats } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';

/** A lock older than this was left by a process that died while holding it (a record takes microseconds). */
const STALE_MS = 10_000;
/** Waiting longer than this for a live holder means it hangs: the record is written without the lock. */
export const LOCK_WAIT_MS = 5_000;
/** Between creating the lock file and writing its owner into it, a peer sees it empty; never for longer than this. */
const BEING_WRITTEN_MS = 1_000;
/**
 * A writer keeps the lock while its records flow (writer.ts), so the lock's age no longer says
 * how long one record took: a holder refreshes the lock's time this often, and a lock is stale
 * only when nobody refreshed it for STALE_MS.
 */
export const TOUCH_MS = 2_000;
/** A waiter re-posts its want at every try; one not re-posted for this long was left by a waiter that is gone. */
const WANT_FRESH_MS = 1_000;
/** The longest pause between two tries of a waiter: a holder hands the lock over at its next record, so a waiter must come soon. */
const MAX_PAUSE_MS = 10;

/** What `lockLog` got: the release function, and why the record goes on without the lock, if it does. */
export interface LockHold {
  /** True when this run holds the lock (possibly taken over: then `problem` says from whom). */
  held: boolean;
  release(): void;
  /** Set when the lock is not held (planted, not an Airlock lock, or held too long): say so in the record. */
  problem?: string;
  /** True while another writer waits for this lock (it posted `<log>.lock.want`): hand it over soon. */
  wanted(): boolean;
  /**
   * Refresh the lock's time, so a long hold is not taken for a stale one (call at least every
   * TOUCH_MS). False when the lock is no longer this holder's (taken over after a long pause).
   */
  touch(): boolean;
}

export interface LockOptions {
  /** How long to wait for a live holder (default LOCK_WAIT_MS). */
  waitMs?: number;
  /**
   * Locks already waited out (by their identity): a planted lock that names a live process is not
   * waited for on every record again. One set per writer.
   */
  givenUp?: Set<string>;
}

interface Owner {
  host: string;
  pid: number;
  token: string;
}

/**
 * Hold `<log>.lock` while records are stamped and appended, so two runs writing one log chain
 * their records one after the other. The lock is a file created with O_EXCL (atomic on local
 * file systems) naming its owner (host, pid, a random token), so a lock can be judged:
 *
 * - held by a live process: post a want (`<log>.lock.want`, naming this waiter) and wait, up to
 *   `waitMs`; the holder hands the lock over at its next record or when idle (writer.ts); after
 *   `waitMs`, write anyway, saying so in the record;
 * - free, but another waiter's fresh want is posted: let that waiter go first (a holder that has
 *   just handed the lock over must not take it straight back, or a busy run would starve the other);
 * - left by a process that is gone (same host, pid not running), or not refreshed for 10 s: taken over;
 * - anything else at that path (a folder, a link, a file that names no owner): it is not an
 *   Airlock lock and nothing of ours to delete, so the record is written without the lock, saying so.
 *
 * A record is never dropped because of the lock: it is written, and the lock's problem goes into
 * its `lock` field, where `airlock audit verify` shows it.
 *
 * @example const hold = await lockLog(path); try { append({ ...record, ...(hold.problem ? { lock: hold.problem } : {}) }) } finally { hold.release() }
 */
export async function lockLog(path: string, options: LockOptions = {}): Promise<LockHold> {
  const want = `${path}.lock.want`;
  const token = randomUUID();
  const hold = await takeLock(path, want, token, options);
  // Going on without the lock: a want left behind would make the holder hand over for nothing,
  // and other writers defer to it for a second.
  if (!hold.held && ownWant(want, token)) removeQuietly(want);
  return hold;
}

async function takeLock(path: string, want: string, token: string, options: LockOptions): Promise<LockHold> {
  const lock = `${path}.lock`;
  const waitMs = options.waitMs ?? LOCK_WAIT_MS;
  const me: Owner = { host: hostname(), pid: process.pid, token };
  const started = Date.now();
  let tookOver: string | undefined;
  const pause = async (ms: number) => new Promise((resume) => setTimeout(resume, ms));
  for (let wait = 1; ; wait = Math.min(wait * 2, MAX_PAUSE_MS)) {
    if (otherWant(want, me.token) && Date.now() - started <= waitMs) {
      await pause(wait);
      continue;
    }
    let created: boolean;
    try {
      created = create(lock, me);
    } catch (error) {
      // The folder refuses new files (its write permission taken away, a read-only mount) while the
      // log itself may still be appendable: the record must not be lost to that either.
      return unlocked(`${lock} could not be created (${(error as NodeJS.ErrnoException).code ?? String(error)}), so the record was written without the lock (check the permissions of ${dirname(lock)})`);
    }
    if (created) {
      // Ours now: a want we posted is answered (another waiter re-posts its own at its next try).
      if (ownWant(want, me.token)) removeQuietly(want);
      return {
        held: true,
        release: () => release(lock, me.token),
        wanted: () => otherWant(want, me.token),
        touch: () => touch(lock, me.token),
        ...(tookOver === undefined ? {} : { problem: tookOver }),
      };
    }
    const found = inspect(lock);
    if (found.kind === 'gone') continue;
    if (found.kind === 'foreign') return unlocked(`${lock} ${found.what}; it is not an Airlock lock, so the record was written without the lock (remove it if no Airlock run made it)`);
    const { identity } = found;
    if (options.givenUp?.has(identity)) return unlocked(held(lock, found));
    const age = Date.now() - found.stats.mtimeMs;
    if (found.kind === 'owned' && found.owner.host === me.host && !alive(found.owner.pid)) {
      tookOver = `took over ${lock}: process ${found.owner.pid}, which held it, is no longer running`;
      remove(lock, found.stats);
      continue;
    }
    if (age > STALE_MS) {
      tookOver = `took over ${lock}: it was ${Math.round(age / 1000)} s old: its holder had stopped refreshing it`;
      remove(lock, found.stats);
      continue;
    }
    if (found.kind === 'unnamed' && age > BEING_WRITTEN_MS) return unlocked(`${lock} names no owner; it is not an Airlock lock, so the record was written without the lock (remove it if no Airlock run made it)`);
    if (Date.now() - started > waitMs) {
      options.givenUp?.add(identity);
      return unlocked(held(lock, found));
    }
    postWant(want, me);
    await pause(wait);
  }
}

/** Tell the holder a writer waits: re-posted at every try, so its time says the waiter is still there. */
function postWant(want: string, me: Owner): void {
  try {
    writeFileSync(want, JSON.stringify(me), { mode: 0o600 });
  } catch {
    // The holder then hands over when idle instead of at its next record.
  }
}

function readWant(want: string): { token: string | undefined; fresh: boolean } | undefined {
  // The common case, nobody waiting, costs one stat that finds nothing.
  const stats = statSync(want, { throwIfNoEntry: false });
  if (stats === undefined) return undefined;
  let token: string | undefined;
  try {
    token = parseOwner(readFileSync(want, 'utf8').slice(0, 4096))?.token;
  } catch {
    return undefined;
  }
  return { token, fresh: Date.now() - stats.mtimeMs <= WANT_FRESH_MS };
}

/** A fresh want posted by another waiter. */
function otherWant(want: string, token: string): boolean {
  const found = readWant(want);
  return found !== undefined && found.fresh && found.token !== token;
}

function ownWant(want: string, token: string): boolean {
  return readWant(want)?.token === token;
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}

function touch(lock: string, token: string): boolean {
  try {
    if (parseOwner(readFileSync(lock, 'utf8'))?.token !== token) return false;
    const now = new Date();
    utimesSync(lock, now, now);
    return true;
  } catch {
    return false; // removed
  }
}

type Found =
  | { kind: 'gone' }
  | { kind: 'foreign'; what: string }
  | { kind: 'owned'; owner: Owner; stats: Stats; identity: string }
  | { kind: 'unnamed'; stats: Stats; identity: string };

function create(lock: string, me: Owner): boolean {
  let fd: number;
  try {
    fd = openSync(lock, 'wx', 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      mkdirSync(dirname(lock), { recursive: true, mode: 0o700 });
      return create(lock, me);
    }
    if (code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, JSON.stringify(me));
  } finally {
    closeSync(fd);
  }
  return true;
}

function inspect(lock: string): Found {
  let stats: Stats;
  try {
    stats = lstatSync(lock);
  } catch {
    return { kind: 'gone' };
  }
  if (stats.isDirectory()) {
    // Older Airlock versions locked with a folder; an empty one left behind is safe to remove once stale.
    if (Date.now() - stats.mtimeMs > STALE_MS) {
      try {
        rmdirSync(lock);
        return { kind: 'gone' };
      } catch {
        // Not empty, or not ours to remove.
      }
    }
    return { kind: 'foreign', what: 'is a folder' };
  }
  if (stats.isSymbolicLink()) return { kind: 'foreign', what: 'is a symbolic link' };
  if (!stats.isFile()) return { kind: 'foreign', what: 'is not a regular file' };
  let text = '';
  try {
    text = readFileSync(lock, 'utf8').slice(0, 4096);
  } catch {
    return { kind: 'gone' };
  }
  const identity = `${stats.ino}:${text}`;
  const owner = parseOwner(text);
  return owner === undefined ? { kind: 'unnamed', stats, identity } : { kind: 'owned', owner, stats, identity };
}

function parseOwner(text: string): Owner | undefined {
  try {
    const value = JSON.parse(text) as Partial<Owner>;
    return typeof value.host === 'string' && Number.isInteger(value.pid) && (value.pid ?? 0) > 0 && typeof value.token === 'string'
      ? { host: value.host, pid: value.pid!, token: value.token }
      : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Remove a stale lock file, unless it was replaced in the meantime (another writer took it over first). */
function remove(lock: string, seen: Stats): void {
  try {
    if (lstatSync(lock).ino === seen.ino) unlinkSync(lock);
  } catch {
    // Already gone.
  }
}

function release(lock: string, token: string): void {
  try {
    // Only our own lock: if ours was taken over as stale (a very long pause), the file is someone else's now.
    if (parseOwner(readFileSync(lock, 'utf8'))?.token === token) unlinkSync(lock);
  } catch {
    // Already gone.
  }
}

function held(lock: string, found: Extract<Found, { kind: 'owned' | 'unnamed' }>): string {
  const who = found.kind === 'owned' ? `process ${found.owner.pid} on ${found.owner.host}` : 'an unnamed holder';
  return `${lock} was held by ${who} for longer than a record takes, so the record was written without the lock (if no Airlock run is writing this log, remove ${lock})`;
}

function unlocked(problem: string): LockHold {
  return { held: false, release: () => undefined, wanted: () => false, touch: () => false, problem };
}
