import { chmod, mkdir, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { constants, statSync, writeSync } from 'node:fs';
import { GENESIS, lineHash } from '@airlock/audit-format';
import { readTail } from './file-tail.js';
import { HeadFile, headPathFor, HEAD_VERSION, readHead, realLogPath } from './head.js';
import { FORMAT_VERSION, type AuditRecord, type HeadMismatchRecord, type RecordBody } from './record.js';
import { lockLog, TOUCH_MS, type LockHold } from './lock.js';
import { followsHead } from './head-lag.js';
import { hostname } from 'node:os';
import { listSet, rotatedPath } from './rotation.js';
import { sha256Hex } from '@airlock/audit-format';

export type FsyncPolicy = 'always' | 'interval' | 'never';

export interface WriterOptions {
  /** The active file, e.g. `…/audit.jsonl`. */
  path: string;
  session: string;
  fsync: FsyncPolicy;
  fsyncIntervalMs: number;
  maxBytes: number;
  maxFiles: number;
  /**
   * Where the chain's head is kept (head.ts), one file per log: outside the log's folder, e.g.
   * `$XDG_STATE_HOME/airlock/audit-heads` (location.ts `headsDir`).
   */
  headsDir: string;
  /** How long to wait for another writer's lock before writing without it (default 5 s). */
  lockWaitMs?: number;
  /**
   * Told when something is wrong that the records alone would only show at the next verify: the
   * log did not match its head, or a record was written without the lock. Once per distinct message.
   */
  onWarning?: (message: string) => void;
  now?: () => Date;
}

/** Counters tests and `airlock audit` can read: what the writer actually did. */
export interface WriterStats {
  records: number;
  /** write(2) calls: one per record (plus one per recovery). */
  writes: number;
  fsyncs: number;
  rotations: number;
  recoveries: number;
  /** Runs of this writer that found the log did not match its head (a head-mismatch record each). */
  mismatches: number;
}

const APPEND_READ = constants.O_APPEND | constants.O_CREAT | constants.O_RDWR;

/**
 * An idle file is closed after this long: a long-lived host opens many sessions and the extension
 * gets no dispose call, so holding descriptors until garbage collection would leak them. The next
 * record reopens the file and re-reads its tail.
 */
const IDLE_CLOSE_MS = 2000;

/**
 * The lock is kept while records flow and let go after this long without one (or at once when
 * another writer waits, at the end of the record being written): a batch of calls pays for the
 * lock once, and a second run in the same project waits at most this long for an idle one.
 */
const LOCK_IDLE_MS = 100;

/** How often a busy holder looks for a waiter's want (lock.ts). */
const WANT_CHECK_MS = 2;

/** Writers holding a lock: let go (head moved, lock removed) when the process exits without close(). */
const holding = new Set<AuditWriter>();
let exitHook = false;

/**
 * Appends records to the active file and keeps the chain.
 *
 * - One in-process queue: records get their `seq` and `prev` in the order they are written, so the
 *   chain is right however many calls finish at once.
 * - One write(2) per record on an O_APPEND descriptor: a line is never split between writes, so
 *   two writers (two runs in one project) can never interleave parts of lines.
 * - Each record is written under `<log>.lock` (lock.ts), and before it the writer checks that the
 *   file is still the one it holds and has the size it expects; if another process appended or
 *   rotated, it re-reads the tail. Two runs in one project chain their records one after the
 *   other instead of forking.
 * - The lock is kept while records flow: taken at the first record, let go after LOCK_IDLE_MS
 *   without one, at the end of the record being written when another writer waits for it, at
 *   close() and at process exit. Taking it costs a file creation and removal; a small call writes
 *   two records, so holding it is most of what makes a record cheap.
 * - The head moves with the lock: when the lock is taken (marked `writing`: records of this
 *   session may follow the head's record), on the fsync interval, at rotation, and when the lock
 *   is let go (unmarked: the head names the last record). Whenever nobody holds the lock, the head
 *   names the log's last record; a run killed while holding it leaves a marked head,
 *   which verify and the next run accept only for records of that session that chain from it.
 * - The file is created on the first record, not at start-up: a run that calls no tool leaves no trace.
 */
export class AuditWriter {
  readonly stats: WriterStats = { records: 0, writes: 0, fsyncs: 0, rotations: 0, recoveries: 0, mismatches: 0 };
  readonly #o: WriterOptions;
  #queue: Promise<unknown> = Promise.resolve();
  #file: FileHandle | undefined;
  #ino = 0;
  #size = 0;
  #prev = GENESIS;
  #seq = 0;
  #dirty = false;
  #timer: NodeJS.Timeout | undefined;
  #idle: NodeJS.Timeout | undefined;
  #lastWrite = 0;
  #closed = false;
  /** Rotated numbers up to this one were pruned (carried in the head). */
  #pruned = 0;
  #head: HeadFile | undefined;
  #realPath: string | undefined;
  /** While a record is being written: why it goes on without the lock (stamped into every record written under that hold). */
  #lockProblem: string | undefined;
  readonly #givenUp = new Set<string>();
  /** The lock, while this writer keeps it between records. */
  #hold: LockHold | undefined;
  #touched = 0;
  #wantChecked = 0;
  #lockIdle: NodeJS.Timeout | undefined;
  /** The head on disk carries this hold's `writing` mark. */
  #headMarked = false;
  /** Records were written since the head last moved. */
  #headBehind = false;
  readonly #warned = new Set<string>();
  #headError: Error | undefined;

  constructor(options: WriterOptions) {
    this.#o = options;
  }

  get path(): string {
    return this.#o.path;
  }

  /** Stamp (seq, time, session, prev) and append one record; then move the head to it. Resolves once both are written. */
  append(body: RecordBody): Promise<AuditRecord> {
    return this.#enqueue(async () => {
      if (this.#closed) throw new Error(`The audit log ${this.#o.path} is closed; records after close() are not written.`);
      // Another run may write the same log: from reading its last line to appending ours and
      // moving the head, no one else may. A lock that cannot be had never drops the record (lock.ts).
      const { hold, problem: lockProblem } = await this.#lock();
      this.#lockProblem = lockProblem;
      if (lockProblem !== undefined) this.#warn(`${lockProblem}.`);
      let record: AuditRecord;
      let target: FileHandle;
      try {
        const file = await this.#ready();
        // The head was deleted or replaced while this run held it: check it again, as at start.
        if (this.#head?.moved()) await this.#recordMismatch(file, this.#checkHead(this.#seq === 0 ? undefined : { seq: this.#seq - 1, prev: undefined, hash: this.#prev }));
        // Before the first record of a hold, the head says records of this session may follow it.
        if (hold.held && !this.#headMarked) this.#saveHead();
        record = this.#stamp(body);
        const line = JSON.stringify(record);
        const bytes = Buffer.from(`${line}\n`);
        target = this.#size > 0 && this.#size + bytes.length > this.#o.maxBytes ? await this.#rotate(file) : file;
        await this.#write(target, bytes);
        this.#advance(line);
        this.stats.records += 1;
        this.#headBehind = true;
        // Without the lock the head moves with every record, as it always did; after a rotation
        // too, so that the head's record is in the active file.
        // And at the first record of a new log, which had no head to mark.
        if (!hold.held || target !== file || !this.#headMarked) this.#saveHead();
      } finally {
        this.#lockProblem = undefined;
      }
      await this.#afterWrite(target);
      if (this.#hold !== undefined && this.#handOver()) this.#letGo();
      else if (this.#hold !== undefined) this.#armLockIdle();
      const headError = this.#headError;
      this.#headError = undefined;
      if (headError !== undefined) throw headError;
      return record;
    });
  }

  /** The head file this writer keeps (known once the log's folder exists). */
  get headPath(): string {
    return this.#head?.path ?? headPathFor(this.#o.path, this.#o.headsDir);
  }

  /** fsync now whatever the policy (written records reach the disk). */
  flush(): Promise<void> {
    return this.#enqueue(() => this.#sync());
  }

  /** Sync what is pending and close the file. Later appends fail. */
  close(): Promise<void> {
    return this.#enqueue(async () => {
      this.#closed = true;
      this.#clearTimer();
      this.#letGo();
      if (this.#file === undefined) return this.#head?.close();
      if (this.#o.fsync !== 'never') await this.#sync();
      this.#head?.close();
      await this.#file.close();
      this.#file = undefined;
    });
  }

  #enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task);
    // A failed record must not poison the queue: the next one tries again (and reopens).
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /**
   * The lock this record is written under: the one kept from the last record, or a new one. The
   * problem is given once per hold (a lock taken over is said in the first record written under it).
   */
  async #lock(): Promise<{ hold: LockHold; problem?: string }> {
    if (this.#hold !== undefined) {
      if (Date.now() - this.#touched < TOUCH_MS) return { hold: this.#hold };
      this.#touched = Date.now();
      if (this.#hold.touch()) return { hold: this.#hold };
      // Taken over while this run kept it (its process stood still for longer than STALE_MS):
      // it is someone else's now, so take it again like any writer.
      this.#hold = undefined;
      holding.delete(this);
    }
    const hold = await lockLog(this.#o.path, { waitMs: this.#o.lockWaitMs, givenUp: this.#givenUp }).catch((error: unknown) => {
      throw problem(`open ${this.#o.path}`, error, 'Check that the folder is writable, or set the audit-log option "path" to a file you can write.');
    });
    if (hold.held) {
      this.#hold = hold;
      this.#touched = Date.now();
      this.#headMarked = false;
      holding.add(this);
      if (!exitHook) {
        exitHook = true;
        // Synchronous, so it runs in 'exit': a CLI run ends without closing its host.
        process.on('exit', () => {
          for (const writer of holding) writer.#letGo();
        });
      }
    }
    return { hold, ...(hold.problem === undefined ? {} : { problem: hold.problem }) };
  }

  /** Move the head to the last record (unmarked) and let the lock go. Synchronous: it also runs at process exit. */
  #letGo(): void {
    const hold = this.#hold;
    if (hold === undefined) return;
    this.#hold = undefined;
    holding.delete(this);
    if (this.#lockIdle !== undefined) clearTimeout(this.#lockIdle);
    this.#lockIdle = undefined;
    // Unmarked: nobody holds the lock, so the head names the last record.
    if (this.#headBehind || this.#headMarked) this.#saveHead();
    hold.release();
  }

  /**
   * Does another writer wait for the lock? Asked at most every WANT_CHECK_MS: a waiter polls no
   * faster than that, and a burst of records then costs one stat, not one per record.
   */
  #handOver(): boolean {
    const now = Date.now();
    if (now - this.#wantChecked < WANT_CHECK_MS) return false;
    this.#wantChecked = now;
    return this.#hold?.wanted() ?? false;
  }

  /** One timer, re-armed only when it fires early (as #armIdle), so a busy writer pays nothing per record. */
  #armLockIdle(ms = LOCK_IDLE_MS): void {
    if (this.#lockIdle !== undefined) return;
    this.#lockIdle = setTimeout(() => {
      this.#lockIdle = undefined;
      const left = this.#lastWrite + LOCK_IDLE_MS - Date.now();
      if (left > 0) return this.#armLockIdle(left);
      void this.#enqueue(async () => this.#letGo()).catch(() => undefined);
    }, ms);
    this.#lockIdle.unref();
  }

  #now(): string {
    return (this.#o.now?.() ?? new Date()).toISOString();
  }

  /** The open active file, re-synchronised if someone else changed it since our last record. */
  async #ready(): Promise<FileHandle> {
    if (this.#file !== undefined) {
      // Synchronous on the hot path: two thread-pool round trips per record (stat, write) cost more
      // than the work, and every call writes two records. Both are a few microseconds here.
      const current = statSync(this.#o.path, { throwIfNoEntry: false });
      if (current !== undefined && current.ino === this.#ino && current.size === this.#size) return this.#file;
      // Rotated or removed by another writer (different inode), or appended to (different size).
      if (current === undefined || current.ino !== this.#ino) {
        await this.#file.close().catch(() => undefined);
        this.#file = undefined;
      } else {
        await this.#resync(this.#file);
        return this.#file;
      }
    }
    const file = await this.#open();
    await this.#resync(file);
    return file;
  }

  async #open(): Promise<FileHandle> {
    const { dir } = listSet(this.#o.path);
    try {
      // 0700 folder, 0600 files: the log holds what the agent did on this machine; it is nobody else's to read.
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await chmod(dir, 0o700).catch(() => undefined);
      const file = await open(this.#o.path, APPEND_READ, 0o600);
      await file.chmod(0o600).catch(() => undefined);
      this.#file = file;
      this.#ino = (await file.stat()).ino;
      // Now that the folder exists, its real path names the head (a link to the folder finds the same one).
      this.#realPath ??= realLogPath(this.#o.path);
      this.#head ??= new HeadFile(headPathFor(this.#o.path, this.#o.headsDir));
      return file;
    } catch (error) {
      throw problem(`open ${this.#o.path}`, error, 'Check that the folder is writable, or set the audit-log option "path" to a file you can write.');
    }
  }

  /**
   * Continue the chain from the file's last complete line (or, for an empty file, from the last
   * line of the newest rotated file, or from GENESIS), and check that line against the head.
   *
   * - A torn last line, left by a crash in the middle of a write, is sealed: a newline ends it and
   *   a recovery record naming its bytes and hash follows, chained from the last complete line.
   *   The torn bytes stay (evidence), and verify accepts them only with that recovery record after.
   * - A log that does not end where the head says (records cut off, the log deleted or replaced,
   *   the head deleted) gets a head-mismatch record naming both, and the chain goes on from what
   *   the log holds: the evidence stays in the log, and verify reports it.
   */
  async #resync(file: FileHandle): Promise<void> {
    const tail = await readTail(file);
    this.#size = tail.size;
    let anchor = tail.lastLine;
    if (anchor === undefined) anchor = await this.#previousFileLastLine();
    this.#prev = anchor === undefined ? GENESIS : lineHash(anchor);
    this.#seq = anchor === undefined ? 0 : nextSeq(anchor);
    const mismatch = this.#checkHead(anchor === undefined ? undefined : chainFields(anchor));
    if (tail.fragment !== undefined) {
      const line = JSON.stringify(this.#stamp({ type: 'recovery', torn: { bytes: tail.fragment.length, sha256: sha256Hex(tail.fragment) } }));
      await this.#write(file, Buffer.from(`\n${line}\n`));
      this.#advance(line);
      this.stats.recoveries += 1;
      this.#saveHead();
      await this.#afterWrite(file);
    }
    await this.#recordMismatch(file, mismatch);
  }

  async #recordMismatch(file: FileHandle, mismatch: MismatchBody | undefined): Promise<void> {
    if (mismatch === undefined) return;
    this.#warn(
      `${this.#o.path} did not end where its head said (head: ${mismatch.head === null ? 'none' : `seq ${mismatch.head.seq}`}, ` +
        `log: ${mismatch.found === null ? 'no records' : `seq ${mismatch.found.seq ?? '?'}`}): records were removed or the log or its head replaced. ` +
        'A head-mismatch record now says so in the log; run `airlock audit verify`.',
    );
    const line = JSON.stringify(this.#stamp(mismatch));
    await this.#write(file, Buffer.from(`${line}\n`));
    this.#advance(line);
    this.stats.mismatches += 1;
    this.#saveHead();
    await this.#afterWrite(file);
  }

  /**
   * Compare the log's last line with the head. The head may lag by one record (a run stopped
   * between appending a record and moving the head: the record chains from the head); anything
   * else is a mismatch, returned as the record that reports it.
   */
  #checkHead(found: ChainFields | undefined): MismatchBody | undefined {
    const headFile = this.headPath;
    const read = readHead(headFile);
    const head = read.kind === 'head' ? read.head : undefined;
    this.#pruned = Math.max(this.#pruned, head?.pruned ?? 0);
    if (head === undefined && found === undefined) return undefined; // a new log: nothing written yet
    if (head !== undefined && found !== undefined) {
      if (found.seq === head.seq && found.hash === head.hash) return undefined;
      if (found.seq === head.seq + 1 && found.prev === head.hash) return undefined;
      // A run that held the lock stopped without moving the head: its records follow the head's.
      if (head.writing !== undefined && found.seq !== undefined && found.seq > head.seq && followsHead(this.#o.path, head, head.writing.session)) return undefined;
    }
    return {
      type: 'head-mismatch',
      head: head === undefined ? null : { seq: head.seq, hash: head.hash },
      found: found === undefined ? null : { seq: found.seq ?? null, hash: found.hash },
      headFile,
    };
  }

  #warn(message: string): void {
    if (this.#warned.has(message)) return;
    this.#warned.add(message);
    this.#o.onWarning?.(message);
  }

  #stamp(body: RecordBody): AuditRecord {
    const lock = this.#lockProblem === undefined ? {} : { lock: this.#lockProblem };
    return { v: FORMAT_VERSION, seq: this.#seq, time: this.#now(), session: this.#o.session, ...body, ...lock, prev: this.#prev } as AuditRecord;
  }

  #advance(line: string): void {
    this.#prev = lineHash(line);
    this.#seq += 1;
  }

  /** Move the head to the last record written (under the lock, like the records); marked `writing` while this writer keeps the lock. */
  #saveHead(): void {
    // Nothing written yet (a new log): there is no record to name.
    if (this.#seq === 0) return;
    const marked = this.#hold !== undefined;
    try {
      this.#head ??= new HeadFile(headPathFor(this.#o.path, this.#o.headsDir));
      this.#head.write({
        v: HEAD_VERSION,
        log: this.#realPath ?? realLogPath(this.#o.path),
        seq: this.#seq - 1,
        hash: this.#prev,
        pruned: this.#pruned,
        time: this.#now(),
        ...(marked ? { writing: { session: this.#o.session, pid: process.pid, host: hostName() } } : {}),
      });
      this.#headMarked = marked;
      this.#headBehind = false;
    } catch (error) {
      // Kept until the record being appended is written too: a head that cannot move must not
      // cost the record; append reports it afterwards.
      this.#headError ??= problem(
        `update the head ${this.headPath}`,
        error,
        'The record itself was written; until the head is updated, `airlock audit verify` reports the log as not matching its head. ' +
          'Check that the folder is writable and that the head is a plain file (not a link).',
      );
    }
  }

  async #previousFileLastLine(): Promise<Buffer | undefined> {
    const newest = listSet(this.#o.path).rotated.at(-1);
    if (newest === undefined) return undefined;
    const file = await open(newest.path, 'r');
    try {
      const tail = await readTail(file);
      return tail.lastLine;
    } finally {
      await file.close();
    }
  }

  async #write(file: FileHandle, bytes: Buffer): Promise<void> {
    try {
      let done = 0;
      // One write(2) in practice; the loop only matters if the kernel reports a short write (disk full).
      while (done < bytes.length) {
        const bytesWritten = writeSync(file.fd, bytes, done, bytes.length - done);
        this.stats.writes += 1;
        done += bytesWritten;
      }
      this.#size += bytes.length;
    } catch (error) {
      throw problem(`append to ${this.#o.path}`, error, 'Free disk space or fix the permissions; the call itself went on (the audit log fails open).');
    }
  }

  async #afterWrite(file: FileHandle): Promise<void> {
    this.#dirty = true;
    this.#lastWrite = Date.now();
    this.#armIdle(IDLE_CLOSE_MS);
    if (this.#o.fsync === 'always') {
      if (this.#headBehind) this.#saveHead();
      await this.#sync(file);
    } else if (this.#timer === undefined && (this.#o.fsync === 'interval' || this.#headBehind)) {
      // The head moves on the same interval as fsync (with "never" too), so a long hold never
      // leaves it further behind than the records a power cut could cost.
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        void this.#enqueue(async () => {
          if (this.#headBehind && this.#hold !== undefined) this.#saveHead();
          if (this.#o.fsync === 'interval') await this.#sync();
        }).catch(() => undefined);
      }, this.#o.fsyncIntervalMs);
      // A pending fsync must not keep the process alive: records are already written, and the
      // OS flushes its cache after exit; only a power cut within the interval can lose them.
      this.#timer.unref();
    }
  }

  async #sync(file = this.#file): Promise<void> {
    if (file === undefined || !this.#dirty) return;
    await file.datasync();
    this.#head?.sync();
    this.#dirty = false;
    this.stats.fsyncs += 1;
  }

  /** Move the full active file aside as `<stem>.<n>.jsonl`, prune, and start a new one. The chain goes on. */
  async #rotate(file: FileHandle): Promise<FileHandle> {
    if (this.#o.fsync !== 'never') await this.#sync(file);
    await file.close();
    this.#file = undefined;
    const set = listSet(this.#o.path);
    const n = (set.rotated.at(-1)?.n ?? 0) + 1;
    try {
      await rename(this.#o.path, rotatedPath(set.dir, set.stem, n));
      const rotated = [...set.rotated, { n, path: rotatedPath(set.dir, set.stem, n) }];
      for (const old of rotated.slice(0, Math.max(0, rotated.length - (this.#o.maxFiles - 1)))) {
        await unlink(old.path).catch(() => undefined);
        // The head remembers what rotation removed, so verify can tell pruning from deletion.
        this.#pruned = Math.max(this.#pruned, old.n);
      }
    } catch (error) {
      throw problem(`rotate ${this.#o.path}`, error, 'Check that the folder is writable.');
    }
    this.stats.rotations += 1;
    const next = await this.#open();
    this.#size = 0;
    return next;
  }

  /** One timer, re-armed only when it fires early, so a busy writer pays nothing per record. */
  #armIdle(ms: number): void {
    if (this.#idle !== undefined) return;
    this.#idle = setTimeout(() => {
      this.#idle = undefined;
      const left = this.#lastWrite + IDLE_CLOSE_MS - Date.now();
      if (left > 0) return this.#armIdle(left);
      void this.#enqueue(() => this.#release()).catch(() => undefined);
    }, ms);
    this.#idle.unref();
  }

  /** Close the file while idle (syncing first unless the policy is "never"); the next record reopens it. */
  async #release(): Promise<void> {
    const file = this.#file;
    if (file === undefined || Date.now() - this.#lastWrite < IDLE_CLOSE_MS) return;
    this.#letGo();
    if (this.#o.fsync !== 'never') await this.#sync(file);
    this.#file = undefined;
    this.#head?.close();
    await file.close();
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    if (this.#idle !== undefined) clearTimeout(this.#idle);
    this.#timer = this.#idle = undefined;
  }
}

let host: string | undefined;
function hostName(): string {
  host ??= hostname();
  return host;
}

type MismatchBody = Omit<HeadMismatchRecord, 'v' | 'seq' | 'time' | 'session' | 'prev' | 'lock'>;

interface ChainFields {
  seq: number | undefined;
  prev: string | undefined;
  hash: string;
}

/** seq and prev of a stored line, and its hash; seq/prev undefined when it is not a record. */
function chainFields(line: Buffer): ChainFields {
  let seq: number | undefined;
  let prev: string | undefined;
  try {
    const value = JSON.parse(line.toString('utf8')) as { seq?: unknown; prev?: unknown };
    if (typeof value.seq === 'number' && Number.isInteger(value.seq) && value.seq >= 0) seq = value.seq;
    if (typeof value.prev === 'string') prev = value.prev;
  } catch {
    // Not a record (a damaged line).
  }
  return { seq, prev, hash: lineHash(line) };
}

function nextSeq(line: Buffer): number {
  try {
    const seq = (JSON.parse(line.toString('utf8')) as { seq?: unknown }).seq;
    return typeof seq === 'number' && Number.isInteger(seq) && seq >= 0 ? seq + 1 : 0;
  } catch {
    // Not a record (a damaged line): chain from its bytes anyway; verify will point at it.
    return 0;
  }
}

function problem(what: string, error: unknown, fix: string): Error {
  const e = error as { code?: string; message?: string };
  return new Error(`audit-log could not ${what} (${e.code ?? e.message ?? String(error)}). ${fix}`, { cause: error });
}
