import { lstat, readlink, realpath as fsRealpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { errnoCode } from './util/errno.js';

/** Options for one {@link FileMutationQueue.run} call. */
export interface FileMutationOptions {
  /** Aborting while the call still waits for its turn rejects it with an `AbortError`; `fn` never runs. */
  signal?: AbortSignal;
  /** Folder a relative `path` resolves against (default `process.cwd()`). */
  cwd?: string;
}

export interface FileMutationQueueOptions {
  /**
   * Replaces `fs.promises.realpath` for key resolution. Meant for tests that need a slow or failing
   * resolution; production code leaves it unset.
   */
  realpath?: (path: string) => Promise<string>;
}

/** The real path of a file to be mutated could not be determined (e.g. EACCES, ELOOP). */
export class FileMutationKeyError extends Error {
  override readonly name = 'FileMutationKeyError';
  /** The path as the caller gave it. */
  readonly path: string;
  /** The errno code of the underlying failure, when there is one (`"EACCES"`, `"ELOOP"`). */
  readonly code: string | undefined;

  constructor(path: string, cause: unknown) {
    const code = errnoCode(cause);
    const detail = cause instanceof Error ? cause.message : String(cause);
    super(`Cannot lock "${path}" for mutation: its real path could not be resolved (${detail})`, { cause });
    this.path = path;
    this.code = code;
  }
}

// Same as the Linux kernel's limit on symlinks followed in one lookup.
const MAX_SYMLINK_HOPS = 40;

type TicketState = 'resolving' | 'resolved' | 'queued' | 'running' | 'gone';

interface Ticket {
  state: TicketState;
  key: string;
  fn: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
  detach: () => void;
}

interface Lane {
  /** Waiters behind the running call, in call order. */
  waiters: Ticket[];
}

/**
 * Serialises mutations of the same file: calls whose paths name the same real file run one at a
 * time in call order, calls on different files run concurrently. One instance per kernel.
 *
 * Ordering: every call takes a ticket in call order and starts resolving its key at once, so
 * resolutions run concurrently. A ticket joins its key's lane only after every earlier ticket has
 * resolved (or left), so a call whose realpath is slow still runs before later calls on the same
 * file. Later calls wait for earlier *resolutions*, never for earlier calls on other files to run.
 *
 * @example
 * const queue = new FileMutationQueue();
 * await queue.run('notes.md', async () => {
 *   const text = await readFile('notes.md', 'utf8');
 *   await writeFile('notes.md', text + '\nmore');
 * }, { cwd: '/project', signal });
 */
export class FileMutationQueue {
  readonly #realpath: (path: string) => Promise<string>;
  /** Tickets not yet handed to a lane, in call order. */
  readonly #order: Ticket[] = [];
  readonly #lanes = new Map<string, Lane>();

  constructor(options: FileMutationQueueOptions = {}) {
    this.#realpath = options.realpath ?? ((p) => fsRealpath(p));
  }

  /** Files with a running or waiting mutation. Zero once the queue is idle (no leaked entries). */
  get activeKeyCount(): number {
    return this.#lanes.size;
  }

  /** Calls whose key is still resolving or that wait for an earlier call's key to resolve. */
  get resolvingCount(): number {
    return this.#order.length;
  }

  /**
   * Run `fn` while holding the lock of the real file `path` names. Resolves or rejects with `fn`'s
   * outcome. An error in `fn` or an abort never blocks later callers. Once `fn` runs, aborting
   * does not release the lock: it stays held until `fn` settles, since its write may be in flight.
   *
   * @example
   * await queue.run('/repo/a.ts', () => editFile('/repo/a.ts', edits), { signal });
   */
  run<T>(path: string, fn: () => Promise<T>, options: FileMutationOptions = {}): Promise<T> {
    const { signal, cwd } = options;
    return new Promise<T>((resolvePromise, rejectPromise) => {
      if (signal?.aborted) {
        rejectPromise(abortError(path, signal));
        return;
      }
      const ticket: Ticket = {
        state: 'resolving',
        key: '',
        fn,
        resolve: resolvePromise as (value: unknown) => void,
        reject: rejectPromise,
        detach: () => {},
      };
      if (signal) {
        const onAbort = (): void => this.#abandon(ticket, abortError(path, signal));
        signal.addEventListener('abort', onAbort, { once: true });
        ticket.detach = () => signal.removeEventListener('abort', onAbort);
      }
      this.#order.push(ticket);
      this.keyFor(path, cwd).then(
        (key) => {
          if (ticket.state !== 'resolving') return;
          ticket.key = key;
          ticket.state = 'resolved';
          this.#drain();
        },
        (error: unknown) => this.#abandon(ticket, error),
      );
    });
  }

  /**
   * The lock key of `path`: its real path, or for a path that does not exist yet, the real path of
   * its nearest existing parent joined with the rest. A dangling symlink is followed to where a
   * write would create its target. `..` is resolved the way the file system resolves it (after
   * symlinks), not lexically.
   *
   * @example
   * await queue.keyFor('src/new-file.ts', '/link-to-repo'); // "/real/repo/src/new-file.ts"
   */
  async keyFor(path: string, cwd?: string): Promise<string> {
    // No path.resolve on the caller's path: it collapses "link/.." lexically, which can name a
    // different file than the one fs calls on the same string touch.
    const absolute = isAbsolute(path) ? path : joinRaw(resolve(cwd ?? process.cwd()), path);
    try {
      return await this.#keyOf(absolute, 0);
    } catch (error) {
      throw new FileMutationKeyError(path, error);
    }
  }

  async #keyOf(absolute: string, hops: number): Promise<string> {
    const rest: string[] = [];
    let current = absolute;
    let real: string | undefined;
    while (real === undefined) {
      try {
        real = await this.#realpath(current);
      } catch (error) {
        // EACCES: a folder we may not search hides the rest; the write will fail there anyway,
        // so the path as far as it resolves is key enough (and the tool reports the real error).
        const code = errnoCode(error);
        if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'EACCES') throw error;
        const parent = dirname(current);
        if (parent === current) throw error;
        rest.unshift(basename(current));
        current = parent;
      }
    }
    const [first, ...remaining] = rest;
    if (first === undefined) return real;
    const link = await symlinkTarget(join(real, first));
    if (link === undefined) return join(real, ...rest);
    // A dangling symlink: writing through it creates its target, so the target is the key.
    if (hops >= MAX_SYMLINK_HOPS) throw errnoError('ELOOP', `too many symbolic links in ${absolute}`);
    const target = isAbsolute(link) ? link : joinRaw(real, link);
    return this.#keyOf(remaining.length > 0 ? joinRaw(target, remaining.join(sep)) : target, hops + 1);
  }

  /** Hand tickets to their lanes in call order, up to the first one still resolving. */
  #drain(): void {
    while (this.#order.length > 0) {
      const head = this.#order[0] as Ticket;
      if (head.state === 'resolving') return;
      this.#order.shift();
      if (head.state !== 'resolved') continue;
      const lane = this.#lanes.get(head.key);
      if (lane) {
        head.state = 'queued';
        lane.waiters.push(head);
      } else {
        this.#lanes.set(head.key, { waiters: [] });
        this.#start(head);
      }
    }
  }

  #start(ticket: Ticket): void {
    ticket.detach();
    ticket.state = 'running';
    let pending: Promise<unknown>;
    try {
      pending = Promise.resolve(ticket.fn());
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      (value) => {
        this.#release(ticket.key);
        ticket.resolve(value);
      },
      (error: unknown) => {
        this.#release(ticket.key);
        ticket.reject(error);
      },
    );
  }

  #release(key: string): void {
    const lane = this.#lanes.get(key);
    const next = lane?.waiters.shift();
    if (next) this.#start(next);
    else this.#lanes.delete(key);
  }

  /** Remove a ticket that has not started (abort or key failure) without delaying anyone else. */
  #abandon(ticket: Ticket, reason: unknown): void {
    const previous = ticket.state;
    if (previous === 'running' || previous === 'gone') return;
    ticket.state = 'gone';
    ticket.detach();
    if (previous === 'queued') {
      const lane = this.#lanes.get(ticket.key);
      const index = lane?.waiters.indexOf(ticket) ?? -1;
      if (index >= 0) lane?.waiters.splice(index, 1);
    } else {
      // Not synchronously: an abort listener must not run other callers' fn inside abort().
      queueMicrotask(() => this.#drain());
    }
    ticket.reject(reason);
  }
}

/** Join without normalising, so the file system, not string rules, resolves `..` after symlinks. */
function joinRaw(base: string, relative: string): string {
  return base.endsWith(sep) ? base + relative : base + sep + relative;
}

async function symlinkTarget(path: string): Promise<string | undefined> {
  try {
    const stats = await lstat(path);
    return stats.isSymbolicLink() ? await readlink(path) : undefined;
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES') return undefined;
    throw error;
  }
}

function abortError(path: string, signal: AbortSignal): Error {
  // Shaped like Node's own AbortError (fs, timers) so callers can test `name` or `code`.
  const error = new Error(`Aborted while waiting to mutate "${path}"`, { cause: signal.reason });
  error.name = 'AbortError';
  return Object.assign(error, { code: 'ABORT_ERR' });
}

function errnoError(code: string, message: string): Error {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}
