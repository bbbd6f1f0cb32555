import { chmod, mkdir, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { constants, statSync, writeSync } from 'node:fs';
import { GENESIS, lineHash } from './chain.js';
import { readTail } from './file-tail.js';
import { FORMAT_VERSION, type AuditRecord, type RecordBody } from './record.js';
import { lockLog } from './lock.js';
import { listSet, rotatedPath } from './rotation.js';
import { sha256Hex } from './canonical.js';

export type FsyncPolicy = 'always' | 'interval' | 'never';

export interface WriterOptions {
  /** The active file, e.g. `…/audit.jsonl`. */
  path: string;
  session: string;
  fsync: FsyncPolicy;
  fsyncIntervalMs: number;
  maxBytes: number;
  maxFiles: number;
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
}

const APPEND_READ = constants.O_APPEND | constants.O_CREAT | constants.O_RDWR;

/**
 * An idle file is closed after this long: a long-lived host opens many sessions and the extension
 * gets no dispose call, so holding descriptors until garbage collection would leak them. The next
 * record reopens the file and re-reads its tail.
 */
const IDLE_CLOSE_MS = 2000;

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
 * - The file is created on the first record, not at start-up: a run that calls no tool leaves no trace.
 */
export class AuditWriter {
  readonly stats: WriterStats = { records: 0, writes: 0, fsyncs: 0, rotations: 0, recoveries: 0 };
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

  constructor(options: WriterOptions) {
    this.#o = options;
  }

  get path(): string {
    return this.#o.path;
  }

  /** Stamp (seq, time, session, prev) and append one record. Resolves once it is written. */
  append(body: RecordBody): Promise<AuditRecord> {
    return this.#enqueue(async () => {
      if (this.#closed) throw new Error(`The audit log ${this.#o.path} is closed; records after close() are not written.`);
      // Another run may write the same log: from reading its last line to appending ours, no one else may.
      const release = await lockLog(this.#o.path).catch((error: unknown) => {
        // A file-system error here is the folder's (cannot be created or written): say it as for opening the file.
        throw (error as NodeJS.ErrnoException).code !== undefined
          ? problem(`open ${this.#o.path}`, error, 'Check that the folder is writable, or set the audit-log option "path" to a file you can write.')
          : problem(`lock ${this.#o.path}`, error, 'The record was not written; the call itself went on (the audit log fails open).');
      });
      let record: AuditRecord;
      let target: FileHandle;
      try {
        const file = await this.#ready();
        record = { v: FORMAT_VERSION, seq: this.#seq, time: this.#now(), session: this.#o.session, ...body, prev: this.#prev } as AuditRecord;
        const line = JSON.stringify(record);
        const bytes = Buffer.from(`${line}\n`);
        target = this.#size > 0 && this.#size + bytes.length > this.#o.maxBytes ? await this.#rotate(file) : file;
        await this.#write(target, bytes);
        this.#prev = lineHash(line);
        this.#seq += 1;
        this.stats.records += 1;
      } finally {
        release();
      }
      await this.#afterWrite(target);
      return record;
    });
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
      if (this.#file === undefined) return;
      if (this.#o.fsync !== 'never') await this.#sync();
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
      return file;
    } catch (error) {
      throw problem(`open ${this.#o.path}`, error, 'Check that the folder is writable, or set the audit-log option "path" to a file you can write.');
    }
  }

  /**
   * Continue the chain from the file's last complete line (or, for an empty file, from the last
   * line of the newest rotated file, or from GENESIS). A torn last line, left by a crash in the
   * middle of a write, is sealed: a newline ends it and a recovery record naming its bytes and
   * hash follows, chained from the last complete line. The torn bytes stay (evidence), and verify
   * accepts them only with that recovery record right after.
   */
  async #resync(file: FileHandle): Promise<void> {
    const tail = await readTail(file);
    this.#size = tail.size;
    let anchor = tail.lastLine;
    if (anchor === undefined) anchor = await this.#previousFileLastLine();
    this.#prev = anchor === undefined ? GENESIS : lineHash(anchor);
    this.#seq = anchor === undefined ? 0 : nextSeq(anchor);
    if (tail.fragment === undefined) return;
    const record: AuditRecord = {
      v: FORMAT_VERSION,
      seq: this.#seq,
      time: this.#now(),
      session: this.#o.session,
      type: 'recovery',
      torn: { bytes: tail.fragment.length, sha256: sha256Hex(tail.fragment) },
      prev: this.#prev,
    };
    const line = JSON.stringify(record);
    await this.#write(file, Buffer.from(`\n${line}\n`));
    this.#prev = lineHash(line);
    this.#seq += 1;
    this.stats.recoveries += 1;
    await this.#afterWrite(file);
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
    if (this.#o.fsync === 'always') await this.#sync(file);
    else if (this.#o.fsync === 'interval' && this.#timer === undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        void this.#enqueue(() => this.#sync()).catch(() => undefined);
      }, this.#o.fsyncIntervalMs);
      // A pending fsync must not keep the process alive: records are already written, and the
      // OS flushes its cache after exit; only a power cut within the interval can lose them.
      this.#timer.unref();
    }
  }

  async #sync(file = this.#file): Promise<void> {
    if (file === undefined || !this.#dirty) return;
    await file.datasync();
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
      for (const old of rotated.slice(0, Math.max(0, rotated.length - (this.#o.maxFiles - 1)))) await unlink(old.path).catch(() => undefined);
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
    if (this.#o.fsync !== 'never') await this.#sync(file);
    this.#file = undefined;
    await file.close();
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    if (this.#idle !== undefined) clearTimeout(this.#idle);
    this.#timer = this.#idle = undefined;
  }
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
