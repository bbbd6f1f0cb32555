import { closeSync, constants, existsSync, fdatasyncSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, realpathSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { sha256Hex } from '@airlock/audit-format';
import { HASH_PATTERN } from '@airlock/audit-format';

/**
 * The chain's head, kept outside the log: the `seq` and line hash of the last record written,
 * and how far rotation has pruned. The chain alone cannot show that its end was cut off, that
 * the oldest files were deleted, or that the whole log was replaced by a fresh, valid-looking
 * chain; compared with the head, each of those shows.
 *
 * It lives in its own folder (`$XDG_STATE_HOME/airlock/audit-heads/`), not beside the log: a
 * process that reached the log's folder (through a link, or a `path` option inside the project)
 * has not thereby found the head. It is a check against accidents and careless tampering, not a
 * proof: without a key or another machine, a process running as the same user can rewrite both.
 */

export const HEAD_VERSION = 1;

export const Head = Type.Object({
  v: Type.Literal(HEAD_VERSION),
  /** The active log file this head belongs to (its real path). */
  log: Type.String(),
  /** seq of the last record written. */
  seq: Type.Integer({ minimum: 0 }),
  /** SHA-256 of that record's line (what the next record's `prev` will hold). */
  hash: Type.String({ pattern: HASH_PATTERN }),
  /** Rotated files numbered up to this one were removed by rotation (maxFiles); 0: none. */
  pruned: Type.Integer({ minimum: 0 }),
  time: Type.String(),
  /**
   * Set while a run holds the log's lock: it moves the head on its fsync interval and when it lets
   * the lock go, not after every record, so records of this session may follow the head's record.
   * Still set after the run: it stopped without letting go (killed, or the machine went down).
   */
  writing: Type.Optional(Type.Object({ session: Type.String(), pid: Type.Integer(), host: Type.String() })),
});
export type Head = Static<typeof Head>;

const HeadCheck = Compile(Head);

export type HeadRead = { kind: 'missing' } | { kind: 'head'; head: Head } | { kind: 'unreadable'; problem: string };

/**
 * The real path of a log file, even when it (or its folder) no longer exists: the longest
 * existing ancestor is resolved, the rest joined on. A log reached through a link and the same
 * log reached directly then share one head, and a deleted log folder still finds its head.
 */
export function realLogPath(active: string): string {
  const absolute = resolve(active);
  const rest: string[] = [];
  for (let dir = absolute; ; dir = dirname(dir)) {
    try {
      return join(realpathSync(dir), ...rest);
    } catch {
      if (dirname(dir) === dir) return absolute;
      rest.unshift(basename(dir));
    }
  }
}

/** The head file of the log whose active file is `active`: `<headsDir>/<sha256 of its real path>.json`. */
export function headPathFor(active: string, headsDir: string): string {
  return join(headsDir, `${sha256Hex(realLogPath(active)).slice(0, 32)}.json`);
}

export function readHead(path: string): HeadRead {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? { kind: 'missing' } : { kind: 'unreadable', problem: `cannot be read (${code ?? String(error)})` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'unreadable', problem: 'is not valid JSON' };
  }
  return HeadCheck.Check(value) ? { kind: 'head', head: value } : { kind: 'unreadable', problem: 'is not an audit head' };
}

/** The head is written over itself in one write of whole 4 KiB blocks: JSON, then spaces (JSON.parse ignores them). */
const BLOCK = 4096;

/**
 * The head file as one writer keeps it: held open, and rewritten in place with a single
 * positioned write per record. Replacing it through a temporary file and rename(2) would be
 * atomic too, but costs ~2 ms per record on ext4 (which flushes data on replace); one pwrite of a
 * block costs ~20 µs. Every writer pads to whole blocks, so a shorter head never leaves the end
 * of a longer one behind. Called under the log's lock.
 *
 * @example const file = new HeadFile(headPathFor(log, headsDir)); file.write(head); file.close();
 */
export class HeadFile {
  readonly path: string;
  #fd: number | undefined;
  #ino = 0;
  #dirty = false;

  constructor(path: string) {
    this.path = path;
  }

  /**
   * True when the file at `path` is no longer the one this writer holds open (deleted or replaced
   * since its last write): the head must then be checked again before it is trusted or moved.
   */
  moved(): boolean {
    if (this.#fd === undefined) return false;
    const now = statSync(this.path, { throwIfNoEntry: false });
    if (now !== undefined && now.ino === this.#ino) return false;
    this.close();
    return true;
  }

  write(head: Head): void {
    if (this.#fd === undefined) {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      // No O_TRUNC: several writers of one log share this file, each writing whole blocks at 0.
      // O_NOFOLLOW: a link planted at the head's path must not make us write over the file it names.
      const fd = openSync(this.path, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
      const stats = fstatSync(fd);
      if (!stats.isFile()) {
        closeSync(fd);
        throw new Error(`${this.path} is not a regular file`);
      }
      this.#fd = fd;
      this.#ino = stats.ino;
    }
    const json = JSON.stringify(head);
    const size = Math.ceil((json.length + 1) / BLOCK) * BLOCK;
    writeSync(this.#fd, `${json.padEnd(size - 1)}\n`, 0);
    this.#dirty = true;
  }

  /** fdatasync, when something was written since the last one. */
  sync(): void {
    if (this.#fd === undefined || !this.#dirty) return;
    fdatasyncSync(this.#fd);
    this.#dirty = false;
  }

  close(): void {
    if (this.#fd === undefined) return;
    try {
      closeSync(this.#fd);
    } finally {
      this.#fd = undefined;
      this.#dirty = false;
    }
  }
}

/** Every head in `headsDir` whose log lies in `folder` (a real path): how verify finds logs deleted with their files. */
export function headsInFolder(headsDir: string, folder: string): { path: string; head: Head }[] {
  if (!existsSync(headsDir)) return [];
  const out: { path: string; head: Head }[] = [];
  for (const name of readdirSync(headsDir)) {
    if (!name.endsWith('.json')) continue;
    const read = readHead(join(headsDir, name));
    if (read.kind === 'head' && dirname(read.head.log) === folder) out.push({ path: join(headsDir, name), head: read.head });
  }
  return out;
}
