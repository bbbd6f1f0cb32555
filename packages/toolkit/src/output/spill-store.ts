import { randomBytes } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { lstat, mkdir, open, readdir, readFile, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SpillInfo, SpillOptions, SpillWriter } from '@airlock/contract';
import type { SpillMarkerName } from '@airlock/contract';
import { errnoCode } from '../util/errno.js';

/** Full outputs one session may keep on disk at once (256 MiB). */
export const DEFAULT_SPILL_BUDGET_BYTES = 256 * 1024 * 1024;
/** Other sessions' folders untouched this long are removed (7 days). */
export const DEFAULT_SPILL_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** All sessions' spill files together, under one root (1 GiB); past it the oldest sessions go. */
export const DEFAULT_SPILL_TOTAL_BYTES = 1024 * 1024 * 1024;
/** How often, at most, a session's spills trigger the retention pass over every session (see #pruneAfter). */
const PRUNE_EVERY_MS = 60_000;

export interface SpillStoreOptions {
  /** Folder holding one sub-folder per session. Default {@link defaultSpillRoot}: `<os.tmpdir()>/airlock-spill-<uid>`. */
  root?: string;
  /** Names this session's folder: 1-128 letters, digits, ".", "_" or "-". */
  sessionId: string;
  /** Bytes this session may keep; the oldest files are evicted to make room. */
  budgetBytes?: number;
  /** Age after which other sessions' folders are removed by the lazy cleanup. */
  retentionMs?: number;
  /** Bytes all sessions under `root` may keep together; the cleanup removes the oldest other sessions past it. */
  totalBudgetBytes?: number;
  /** Told about background failures (cleanup, eviction) that must not fail a spill. */
  onWarning?: (message: string, error: unknown) => void;
}

export interface SpillCleanupOptions {
  /** Remove session folders whose newest modification is older than this. */
  olderThanMs?: number;
  /** Session ids never to remove (the caller's own). Their files still count toward `maxTotalBytes`. */
  keep?: readonly string[];
  /** Then remove the oldest remaining sessions until all of them together hold at most this many bytes. */
  maxTotalBytes?: number;
}

export interface SpillCleanupResult {
  removed: string[];
  failed: string[];
}

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Whether `id` can name a session folder: no path separators, no "..", nothing hidden. */
export function isValidSessionId(id: string): boolean {
  return SESSION_ID.test(id) && !id.includes('..');
}

/** One file's share of the budget. A file is evictable once nothing writes to it any more. */
interface Entry {
  path: string;
  bytes: number;
  settled: boolean;
}

/**
 * The session's spill folder: full outputs that were cut for the model, under a size budget.
 *
 * @example
 * const store = createSpillStore({ sessionId: 's1' });
 * const info = await store.spill(fullOutput, { name: 'bash', ext: 'log' });
 * // info.path: /tmp/airlock-spill-1000/s1/20250102T030405123Z-bash-1a2b3c4d.log
 */
/**
 * One folder per user under the temp dir: users of one machine share /tmp, and a folder another
 * user created (0700) would make every spill of ours fail. Windows has no uid; its temp dir is per user.
 *
 * @example defaultSpillRoot(); // "/tmp/airlock-spill-1000"
 */
export function defaultSpillRoot(): string {
  const uid = process.getuid?.();
  return join(tmpdir(), uid === undefined ? 'airlock-spill' : `airlock-spill-${uid}`);
}

export class SpillStore {
  /**
   * The retention policy: remove session folders under `root` not modified for `olderThanMs` (a
   * folder's age is that of its newest entry, so a session still appending to an old file is
   * kept), then, with `maxTotalBytes`, the oldest remaining ones until all sessions together fit.
   * Only folders this class made are touched: a real folder (not a symlink) owned by this user
   * that holds Airlock's session marker. Inside one, only its top-level files go; it is never
   * recursed into, so a folder that is not a spill session (or that someone nested a folder into)
   * survives.
   *
   * @example await SpillStore.cleanup('/tmp/airlock-spill-1000', { olderThanMs: 86_400_000, maxTotalBytes: 2 ** 30 })
   */
  static async cleanup(root: string, options: SpillCleanupOptions = {}): Promise<SpillCleanupResult> {
    const olderThanMs = options.olderThanMs ?? DEFAULT_SPILL_RETENTION_MS;
    const keep = new Set(options.keep ?? []);
    const result: SpillCleanupResult = { removed: [], failed: [] };
    let entries;
    try {
      entries = await readdir(root, { withFileTypes: true });
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return result;
      throw error;
    }
    const cutoff = Date.now() - olderThanMs;
    const remove = async (folder: string): Promise<boolean> => {
      try {
        await removeSessionFolder(folder);
        result.removed.push(folder);
        return true;
      } catch {
        result.failed.push(folder);
        return false;
      }
    };
    /** Sessions that stay after the age check, with what they hold. */
    const kept: { folder: string; newest: number; bytes: number; removable: boolean }[] = [];
    for (const entry of entries) {
      if (!entry.isDirectory() || !isValidSessionId(entry.name)) continue;
      const folder = join(root, entry.name);
      try {
        if (!(await isSpillSession(folder, entry.name))) continue;
        const { newest, bytes } = await measure(folder);
        const removable = !keep.has(entry.name);
        if (removable && newest < cutoff) {
          if (await remove(folder)) continue;
        }
        kept.push({ folder, newest, bytes, removable });
      } catch {
        result.failed.push(folder);
      }
    }
    if (options.maxTotalBytes !== undefined) {
      let total = kept.reduce((sum, k) => sum + k.bytes, 0);
      for (const k of kept.filter((k) => k.removable).sort((a, b) => a.newest - b.newest)) {
        if (total <= options.maxTotalBytes) break;
        if (await remove(k.folder)) total -= k.bytes;
      }
    }
    return result;
  }

  readonly root: string;
  readonly sessionId: string;
  /** This session's folder. */
  readonly dir: string;
  readonly budgetBytes: number;
  readonly retentionMs: number;
  readonly totalBudgetBytes: number;
  readonly #onWarning: (message: string, error: unknown) => void;
  /** Oldest first; the sum of `bytes` is what the budget has handed out. */
  readonly #entries: Entry[] = [];
  #usedBytes = 0;
  readonly #pending = new Set<Promise<unknown>>();
  readonly #writers = new Set<StreamSpillWriter>();
  #ready: Promise<void> | undefined;
  #pruning: Promise<void> | undefined;
  #pruneAgain = false;
  /** When the last retention pass started, and what this session wrote since (see #pruneAfter). */
  #prunedAt = 0;
  #sincePrune = 0;
  #disposed: Promise<void> | undefined;

  constructor(options: SpillStoreOptions) {
    if (!isValidSessionId(options.sessionId)) {
      throw new Error(
        `Invalid spill session id ${JSON.stringify(options.sessionId)}: use 1-128 letters, digits, ".", "_" or "-", ` +
          'starting with a letter or digit, with no path separators and no "..".',
      );
    }
    this.root = options.root ?? defaultSpillRoot();
    this.sessionId = options.sessionId;
    this.dir = join(this.root, this.sessionId);
    this.budgetBytes = positiveInteger('budgetBytes', options.budgetBytes ?? DEFAULT_SPILL_BUDGET_BYTES);
    this.retentionMs = options.retentionMs ?? DEFAULT_SPILL_RETENTION_MS;
    if (!(this.retentionMs >= 0)) throw new RangeError(`Spill retentionMs must be 0 or more, got ${String(this.retentionMs)}.`);
    this.totalBudgetBytes = positiveInteger('totalBudgetBytes', options.totalBudgetBytes ?? DEFAULT_SPILL_TOTAL_BYTES);
    this.#onWarning = options.onWarning ?? (() => {});
  }

  /** Bytes of this session's spill files, counting space reserved by writes still in flight. */
  get usedBytes(): number {
    return this.#usedBytes;
  }

  /**
   * Save a full output. If the budget is short, the oldest files of this session are evicted; an
   * output larger than the whole budget keeps its beginning (`capped: true`).
   *
   * @example const { path } = await store.spill(text, { name: 'read' });
   */
  async spill(data: string | Uint8Array, options: SpillOptions = {}): Promise<SpillInfo> {
    this.#assertOpen();
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    await this.#init();
    this.#assertOpen();
    const entry = this.#add(this.#newPath(options));
    const body = this.#reserve(entry, bytes);
    const write = writeFile(entry.path, body, { mode: 0o600, flag: 'wx' });
    this.#track(write);
    try {
      await write;
    } catch (error) {
      this.#release(entry);
      throw writeError(entry.path, error);
    }
    entry.settled = true;
    this.#pruneAfter(body.length);
    return { path: entry.path, bytes: body.length, offeredBytes: bytes.length, capped: body.length < bytes.length };
  }

  /**
   * Open a spill file for streamed output. Writes are queued in order; past the budget they are
   * counted in `offeredBytes` and dropped. Memory stays bounded by the budget.
   *
   * @example
   * const file = store.open({ name: 'bash', ext: 'log' });
   * child.stdout.on('data', (chunk) => file.write(chunk));
   * const info = await file.close();
   */
  open(options: SpillOptions = {}): SpillWriter {
    this.#assertOpen();
    const writer: StreamSpillWriter = new StreamSpillWriter(this.#add(this.#newPath(options)), {
      init: () => this.#init(),
      reserve: (entry, data) => this.#reserve(entry, data),
      release: (entry) => this.#release(entry),
      track: (promise) => this.#track(promise),
      done: (bytes) => {
        this.#writers.delete(writer);
        this.#pruneAfter(bytes);
      },
    });
    this.#writers.add(writer);
    return writer;
  }

  /**
   * Apply the retention policy to the other sessions under this root: older than `olderThanMs`
   * (default: this store's retention), then the oldest past the total budget.
   */
  cleanup(options: { olderThanMs?: number } = {}): Promise<SpillCleanupResult> {
    return SpillStore.cleanup(this.root, { olderThanMs: options.olderThanMs ?? this.retentionMs, maxTotalBytes: this.totalBudgetBytes, keep: [this.sessionId] });
  }

  /**
   * Stop accepting spills and let writes in flight finish. The session's files stay: a result may
   * have named one, and the model (or a later `airlock call read`) reads it after this process is
   * gone. The retention policy removes them later (see cleanup).
   */
  dispose(): Promise<void> {
    this.#disposed ??= (async () => {
      for (const writer of this.#writers) this.#track(writer.close().then(() => undefined, () => undefined));
      await this.idle();
    })();
    return this.#disposed;
  }

  /** Resolves when background work (cleanup, evictions, queued writes) has settled. */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  /** Grant `data` (or its beginning) budget for `entry`, evicting older files as needed. */
  #reserve(entry: Entry, data: Uint8Array): Uint8Array {
    if (data.length > this.budgetBytes - this.#usedBytes) this.#evictFor(data.length, entry);
    const granted = Math.max(0, Math.min(data.length, this.budgetBytes - this.#usedBytes));
    const body = granted < data.length ? data.subarray(0, utf8Boundary(data, granted)) : data;
    entry.bytes += body.length;
    this.#usedBytes += body.length;
    return body;
  }

  /** Forget a file that failed or was discarded; its bytes go back to the budget. */
  #release(entry: Entry): void {
    const index = this.#entries.indexOf(entry);
    if (index !== -1) this.#entries.splice(index, 1);
    this.#usedBytes -= entry.bytes;
    entry.bytes = 0;
  }

  #assertOpen(): void {
    if (this.#disposed !== undefined) {
      throw new Error(`The spill store for session ${this.sessionId} was disposed; create a new one to spill again.`);
    }
  }

  #add(path: string): Entry {
    const entry: Entry = { path, bytes: 0, settled: false };
    this.#entries.push(entry);
    return entry;
  }

  #evictFor(wanted: number, keep?: Entry): void {
    for (let i = 0; i < this.#entries.length && this.budgetBytes - this.#usedBytes < wanted; ) {
      const entry = this.#entries[i];
      if (entry === undefined || entry === keep || !entry.settled) {
        i++;
        continue;
      }
      this.#entries.splice(i, 1);
      this.#usedBytes -= entry.bytes;
      this.#track(
        unlink(entry.path).catch((error: unknown) => {
          if (errnoCode(error) !== 'ENOENT') this.#onWarning(`Could not evict spill file ${entry.path}`, error);
        }),
      );
    }
  }

  #init(): Promise<void> {
    if (this.#ready === undefined) {
      this.#ready = this.#prepare().catch((error: unknown) => {
        this.#ready = undefined; // let the next spill retry, e.g. once the folder was fixed
        throw error;
      });
      // Tracked so dispose() cannot remove the folder while it is still being created.
      this.#track(this.#ready);
    }
    return this.#ready;
  }

  async #prepare(): Promise<void> {
    let created = true;
    try {
      await mkdir(this.root, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new Error(
        `Cannot create the spill folder ${this.root} (${describe(error)}). Make its parent writable, or set limits.spillDir to a writable folder.`,
        { cause: error },
      );
    }
    await assertPrivateFolder(this.root, 'spill folder');
    try {
      await mkdir(this.dir, { mode: 0o700 }).catch((error: unknown) => {
        if (errnoCode(error) !== 'EEXIST') throw error;
        created = false;
      });
    } catch (error) {
      throw new Error(
        `Cannot create the spill folder ${this.dir} (${describe(error)}). ` +
          'Make it writable, or set limits.spillDir to a writable folder.',
        { cause: error },
      );
    }
    // A pre-planted symlink or foreign folder in a shared temp dir must not receive our outputs.
    await assertPrivateFolder(this.dir, 'spill session folder');
    if (created) {
      // The marker is what lets a later cleanup (ours or another session's) prove Airlock made this folder.
      await writeFile(join(this.dir, SESSION_MARKER), markerText(this.sessionId), { mode: 0o600, flag: 'wx' });
    } else if (!(await isSpillSession(this.dir, this.sessionId))) {
      // Files in a folder we did not make are not ours to count, evict or delete.
      throw new Error(
        `The spill folder ${this.dir} already exists and was not made by Airlock (no ${SESSION_MARKER} marker). ` +
          'Move it away, or set limits.spillDir to another folder.',
      );
    }
    await this.#adoptExisting();
    this.#prune();
  }

  /**
   * Apply the retention policy in the background: when the folder is first used, and after each
   * spill is complete (so the total counts what this session just wrote). One run at a time; a
   * request during a run makes one more run after it.
   */
  #prune(): void {
    this.#prunedAt = Date.now();
    this.#sincePrune = 0;
    if (this.#pruning !== undefined) {
      this.#pruneAgain = true;
      return;
    }
    this.#pruning = this.#track(
      this.cleanup()
        .then(({ failed }) => {
          if (failed.length > 0) this.#onWarning(`Could not remove old spill folders: ${failed.join(', ')}`, undefined);
        })
        .catch((error: unknown) => this.#onWarning(`Spill cleanup under ${this.root} failed`, error))
        .finally(() => {
          this.#pruning = undefined;
          if (this.#pruneAgain) {
            this.#pruneAgain = false;
            this.#prune();
          }
        }),
    );
  }

  /**
   * After a spill. The pass looks at every session under the root (an lstat per file), far more
   * than one spill's work on a machine that keeps many: so it runs at most every
   * PRUNE_EVERY_MS, or sooner once this session has written an eighth of the total budget since
   * the last pass, which bounds how far the total can overshoot between passes.
   */
  #pruneAfter(bytes: number): void {
    this.#sincePrune += bytes;
    if (Date.now() - this.#prunedAt < PRUNE_EVERY_MS && this.#sincePrune * 8 < this.totalBudgetBytes) return;
    this.#prune();
  }

  /** Files left by an earlier run of this session count against the budget, oldest first. */
  async #adoptExisting(): Promise<void> {
    const names = await readdir(this.dir);
    const found: { entry: Entry; mtimeMs: number }[] = [];
    for (const name of names) {
      if (name === SESSION_MARKER) continue;
      const path = join(this.dir, name);
      const info = await stat(path).catch(() => undefined);
      if (info?.isFile() !== true || this.#entries.some((entry) => entry.path === path)) continue;
      found.push({ entry: { path, bytes: info.size, settled: true }, mtimeMs: info.mtimeMs });
    }
    found.sort((a, b) => a.mtimeMs - b.mtimeMs);
    this.#entries.unshift(...found.map(({ entry }) => entry));
    for (const { entry } of found) this.#usedBytes += entry.bytes;
    if (this.#usedBytes > this.budgetBytes) this.#evictFor(0);
  }

  #newPath(options: SpillOptions): string {
    const stamp = new Date().toISOString().replace(/[-:.]/g, '');
    const name = label(options.name, 'output', 40);
    const ext = label(options.ext, 'txt', 16).replace(/[^A-Za-z0-9]/g, '') || 'txt';
    return join(this.dir, `${stamp}-${name}-${randomBytes(4).toString('hex')}.${ext}`);
  }

  #track<T>(promise: Promise<T>): Promise<T> {
    this.#pending.add(promise);
    const forget = (): void => {
      this.#pending.delete(promise);
    };
    promise.then(forget, forget);
    return promise;
  }
}

/**
 * Open a session's spill store. Nothing touches the disk until the first spill.
 *
 * @example const store = createSpillStore({ sessionId: ctx.sessionId, root: settings.limits.spillDir });
 */
export function createSpillStore(options: SpillStoreOptions): SpillStore {
  return new SpillStore(options);
}

/** What a writer may ask of its store, without widening the store's public API. */
interface WriterHost {
  init(): Promise<void>;
  reserve(entry: Entry, data: Uint8Array): Uint8Array;
  release(entry: Entry): void;
  track<T>(promise: Promise<T>): Promise<T>;
  /** The writer is finished; `bytes` it kept (0 when discarded). */
  done(bytes: number): void;
}

/** Bytes handed to one write call, so a burst of small chunks becomes few system calls. */
const BATCH_BYTES = 1024 * 1024;

/** Streams chunks to one file through a single ordered queue. */
class StreamSpillWriter implements SpillWriter {
  readonly path: string;
  readonly #entry: Entry;
  readonly #host: WriterHost;
  #queue: Uint8Array[] = [];
  #offered = 0;
  #capped = false;
  #closed = false;
  #file: Promise<FileHandle> | undefined;
  #pump: Promise<void> | undefined;
  #error: unknown;
  #result: Promise<SpillInfo> | undefined;
  #discarding: Promise<void> | undefined;

  constructor(entry: Entry, host: WriterHost) {
    this.#entry = entry;
    this.#host = host;
    this.path = entry.path;
  }

  write(chunk: Uint8Array | string): void {
    if (this.#closed) throw new Error(`Spill file ${this.path} is closed; open a new one to write more.`);
    const data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    this.#offered += data.length;
    if (this.#capped || this.#error !== undefined || data.length === 0) return;
    const body = this.#host.reserve(this.#entry, data);
    if (body.length < data.length) this.#capped = true;
    if (body.length === 0) return;
    // Copy: the caller may reuse its buffer as soon as write() returns.
    this.#queue.push(typeof chunk === 'string' ? body : body.slice());
    this.#pump ??= this.#host.track(this.#drain());
  }

  close(): Promise<SpillInfo> {
    this.#closed = true;
    this.#result ??= (async () => {
      await this.#settle();
      this.#host.done(this.#error === undefined ? this.#entry.bytes : 0);
      if (this.#error !== undefined) {
        this.#host.release(this.#entry);
        throw writeError(this.path, this.#error);
      }
      this.#entry.settled = true;
      return { path: this.path, bytes: this.#entry.bytes, offeredBytes: this.#offered, capped: this.#capped };
    })();
    return this.#result;
  }

  discard(): Promise<void> {
    this.#closed = true;
    this.#queue = [];
    this.#discarding ??= (async () => {
      await this.#settle();
      await unlink(this.path).catch((error: unknown) => {
        if (errnoCode(error) !== 'ENOENT') throw error;
      });
      this.#host.release(this.#entry);
      this.#host.done(0);
    })();
    return this.#discarding;
  }

  /** Wait for queued chunks, make sure the file exists (even if empty), and close it. */
  async #settle(): Promise<void> {
    while (this.#pump !== undefined) await this.#pump;
    try {
      await (await this.#open()).close();
    } catch (error) {
      this.#error ??= error;
    }
  }

  #open(): Promise<FileHandle> {
    this.#file ??= this.#host.init().then(() => open(this.path, 'wx', 0o600));
    return this.#file;
  }

  /** The only code that writes the file, so chunks land in the order they were queued. */
  async #drain(): Promise<void> {
    try {
      const file = await this.#open();
      while (this.#queue.length > 0) {
        let count = 0;
        let size = 0;
        for (const chunk of this.#queue) {
          if (count > 0 && size + chunk.length > BATCH_BYTES) break;
          count++;
          size += chunk.length;
        }
        const batch = this.#queue.splice(0, count);
        const buffer = batch.length === 1 && batch[0] !== undefined ? batch[0] : Buffer.concat(batch, size);
        for (let done = 0; done < buffer.length; ) {
          done += (await file.write(buffer, done, buffer.length - done)).bytesWritten;
        }
      }
    } catch (error) {
      this.#error ??= error;
      this.#queue = [];
    } finally {
      this.#pump = undefined;
    }
  }
}

/** Largest cut ≤ n that does not split a UTF-8 sequence (binary data loses at most 3 bytes). */
function utf8Boundary(data: Uint8Array, n: number): number {
  let cut = n;
  for (let steps = 0; steps < 3 && cut > 0 && cut < data.length && ((data[cut] ?? 0) & 0xc0) === 0x80; steps++) cut--;
  return cut;
}

/** A session folder's newest modification and the bytes of its spill files (top level only, links not followed). */
async function measure(folder: string): Promise<{ newest: number; bytes: number }> {
  let newest = (await lstat(folder)).mtimeMs;
  let bytes = 0;
  for (const name of await readdir(folder)) {
    const info = await lstat(join(folder, name)).catch(() => undefined);
    if (info === undefined) continue;
    newest = Math.max(newest, info.mtimeMs);
    if (info.isFile() && name !== SESSION_MARKER) bytes += info.size;
  }
  return { newest, bytes };
}

/**
 * Spill files are this user's tool outputs (they can hold anything a command printed), and the
 * model is allowed to read them back: the folder must be a real folder (not a link) that this user
 * owns and nobody else can write, or another user could swap files the model will trust.
 */
async function assertPrivateFolder(path: string, what: string): Promise<void> {
  const info = await lstat(path);
  const uid = process.getuid?.();
  if (!info.isDirectory()) {
    throw new Error(`The ${what} ${path} is not a folder (${info.isSymbolicLink() ? 'a symlink' : 'a file'}). Remove it, or set limits.spillDir to a private folder.`);
  }
  if (uid !== undefined && info.uid !== uid) {
    throw new Error(`The ${what} ${path} belongs to another user (uid ${info.uid}, you are ${uid}). Set limits.spillDir to a folder of your own.`);
  }
  if (process.platform !== 'win32' && (info.mode & 0o022) !== 0) {
    throw new Error(
      `The ${what} ${path} can be written by other users (mode ${(info.mode & 0o777).toString(8)}). ` +
        `Make it private (chmod 700 ${path}), or set limits.spillDir to a private folder.`,
    );
  }
}

/** The file that marks a folder as a spill session Airlock made; it names the session. */
const SESSION_MARKER: SpillMarkerName = '.airlock-spill-session';

function markerText(sessionId: string): string {
  return `airlock spill session ${sessionId}\n`;
}

/**
 * Whether `folder` is a spill session this user's Airlock made: a real folder (not a link) owned
 * by this user, holding a marker file (not a link, ours) that names this very session.
 */
async function isSpillSession(folder: string, sessionId: string): Promise<boolean> {
  const uid = process.getuid?.();
  const folderInfo = await lstat(folder).catch(() => undefined);
  if (folderInfo?.isDirectory() !== true || (uid !== undefined && folderInfo.uid !== uid)) return false;
  const marker = join(folder, SESSION_MARKER);
  const info = await lstat(marker).catch(() => undefined);
  if (info?.isFile() !== true || (uid !== undefined && info.uid !== uid) || info.size > 512) return false;
  return (await readFile(marker, 'utf8').catch(() => '')) === markerText(sessionId);
}

/**
 * Delete a session folder without recursing: its top-level files and links go (unlink never
 * follows a link), the marker last, then the folder itself. A folder nested inside is never
 * entered: the session folder is then kept (with its marker) and the call fails.
 */
async function removeSessionFolder(folder: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return;
    throw error;
  }
  const foreign: string[] = [];
  for (const name of names) {
    if (name === SESSION_MARKER) continue;
    const path = join(folder, name);
    const info = await lstat(path).catch(() => undefined);
    if (info === undefined) continue;
    if (info.isDirectory()) {
      foreign.push(name);
      continue;
    }
    await unlink(path).catch((error: unknown) => {
      if (errnoCode(error) !== 'ENOENT') throw error;
    });
  }
  // Keep the marker: the folder stays recognisable, and what is nested in it stays untouched.
  if (foreign.length > 0) throw new Error(`${folder} holds folders a spill session never makes (${foreign.join(', ')}); left in place`);
  await unlink(join(folder, SESSION_MARKER)).catch((error: unknown) => {
    if (errnoCode(error) !== 'ENOENT') throw error;
  });
  await rmdir(folder).catch((error: unknown) => {
    if (errnoCode(error) !== 'ENOENT') throw error;
  });
}

function label(value: string | undefined, fallback: string, max: number): string {
  const clean = (value ?? '').replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, max);
  return clean.length > 0 ? clean : fallback;
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`Spill ${name} must be a whole number of at least 1, got ${String(value)}.`);
  }
  return value;
}

function writeError(path: string, error: unknown): Error {
  const hint =
    errnoCode(error) === 'ENOSPC' || errnoCode(error) === 'EDQUOT'
      ? ' Free some disk space, or set limits.spillDir to a folder on another disk.'
      : ' Check that the folder is writable, or set limits.spillDir to another folder.';
  return new Error(`Could not write spill file ${path} (${describe(error)}).${hint}`, { cause: error });
}


function describe(error: unknown): string {
  return errnoCode(error) ?? (error instanceof Error ? error.message : String(error));
}
