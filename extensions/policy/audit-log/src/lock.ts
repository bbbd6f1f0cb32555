import { randomUUID } from 'node:crypto';
import { closeSync, lstatSync, mkdirSync, openSync, readFileSync, rmdirSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';

/** A lock older than this was left by a process that died while holding it (a record takes microseconds). */
const STALE_MS = 10_000;
/** Waiting longer than this for a live holder means it hangs: the record is written without the lock. */
export const LOCK_WAIT_MS = 5_000;
/** Between creating the lock file and writing its owner into it, a peer sees it empty; never for longer than this. */
const BEING_WRITTEN_MS = 1_000;

/** What `lockLog` got: the release function, and why the record goes on without the lock, if it does. */
export interface LockHold {
  release(): void;
  /** Set when the lock is not held (planted, not an Airlock lock, or held too long): say so in the record. */
  problem?: string;
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
 * Hold `<log>.lock` while one record is stamped and appended, so two runs writing one log chain
 * their records one after the other. The lock is a file created with O_EXCL (atomic on local
 * file systems) naming its owner (host, pid, a random token), so a lock can be judged:
 *
 * - held by a live process: wait, up to `waitMs`; then write anyway, saying so in the record;
 * - left by a process that is gone (same host, pid not running), or older than 10 s: taken over;
 * - anything else at that path (a folder, a link, a file that names no owner): it is not an
 *   Airlock lock and nothing of ours to delete, so the record is written without the lock, saying so.
 *
 * A record is never dropped because of the lock: it is written, and the lock's problem goes into
 * its `lock` field, where `airlock audit verify` shows it.
 *
 * @example const hold = await lockLog(path); try { append({ ...record, ...(hold.problem ? { lock: hold.problem } : {}) }) } finally { hold.release() }
 */
export async function lockLog(path: string, options: LockOptions = {}): Promise<LockHold> {
  const lock = `${path}.lock`;
  const waitMs = options.waitMs ?? LOCK_WAIT_MS;
  const me: Owner = { host: hostname(), pid: process.pid, token: randomUUID() };
  const started = Date.now();
  let tookOver: string | undefined;
  for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
    let created: boolean;
    try {
      created = create(lock, me);
    } catch (error) {
      // The folder refuses new files (its write permission taken away, a read-only mount) while the
      // log itself may still be appendable: the record must not be lost to that either.
      return unlocked(`${lock} could not be created (${(error as NodeJS.ErrnoException).code ?? String(error)}), so the record was written without the lock (check the permissions of ${dirname(lock)})`);
    }
    if (created) return { release: () => release(lock, me.token), ...(tookOver === undefined ? {} : { problem: tookOver }) };
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
      tookOver = `took over ${lock}: it was ${Math.round(age / 1000)} s old, older than any record takes`;
      remove(lock, found.stats);
      continue;
    }
    if (found.kind === 'unnamed' && age > BEING_WRITTEN_MS) return unlocked(`${lock} names no owner; it is not an Airlock lock, so the record was written without the lock (remove it if no Airlock run made it)`);
    if (Date.now() - started > waitMs) {
      options.givenUp?.add(identity);
      return unlocked(held(lock, found));
    }
    await new Promise((resume) => setTimeout(resume, pause));
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
  return { release: () => undefined, problem };
}
