import { lstatSync, opendirSync, readFileSync, type Dir, type Dirent } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { errnoCode } from '@airlock/toolkit/util';
import ignore, { type Ignore } from 'ignore';

/**
 * A deterministic recursive walk for grep and find, shaped like ripgrep's and fd's walks:
 *
 * - depth first, each folder's entries in byte order of their UTF-8 names (what `rg --sort path`
 *   does), so "sorted by path" is the walk order and a search can stop early deterministically;
 * - hidden entries included, anything named `.git` never (neither entered nor yielded);
 * - ignore files (`.gitignore`, `.ignore`, …) respected inside and outside git repositories, nested
 *   ones scoped to their folder, and those in the root's ancestor folders too (like rg and fd
 *   with --no-require-git); a deeper file's rule, or a later file's in `ignoreFiles`, wins;
 * - symlinks are yielded as symlinks and never followed;
 * - a folder it cannot list is skipped, as rg and fd do, but told to `onUnreadable` so a search can
 *   say its results may be incomplete instead of looking complete. (Files are the caller's to read;
 *   an unreadable ignore file is skipped quietly, as rg does when the file is not searched itself.)
 *
 * Folders are read with synchronous calls: one readdir per folder costs a few microseconds from
 * the page cache, while an awaited one costs a thread-pool round trip, and the walk was mostly
 * waiting on those. To keep the process responsive (aborts, timers, other tool calls) the walk
 * hands the event loop back every few milliseconds of work, its visitor's work included.
 *
 * Bounded (see TreeBounds): every listing resolves the folder's whole path again (Node has no
 * openat()), so a folder thousands of levels deep made each listing cost thousands of lookups;
 * below `maxDepth` folders are yielded but not entered, and past `maxEntries` the walk ends. Each
 * stop is told to `onBound`, so a search can say its results are incomplete and where.
 */

export type WalkEntryType = 'file' | 'dir' | 'symlink' | 'other';

export interface WalkEntry {
  /** Path relative to the root, with `/` separators. */
  path: string;
  absolute: string;
  name: string;
  type: WalkEntryType;
}

export interface WalkOptions {
  /** Ignore files read in every folder, lowest precedence first (default `.gitignore`, `.ignore`). */
  ignoreFiles?: readonly string[];
  /** Also read the ignore files of the root's ancestor folders (default true). */
  parents?: boolean;
  /** Return true to neither yield a folder nor enter it (after the ignore rules). */
  prune?: (entry: WalkEntry) => boolean;
  /**
   * Told, in walk order, about each folder that could not be listed: its root-relative path (""
   * for the root itself) and the error code (EACCES, ENOENT for one that vanished, …). The walk
   * goes on without it.
   */
  onUnreadable?: (path: string, code: string) => void;
  signal?: AbortSignal;
  /** How deep and how much the walk goes (default DEFAULT_TREE_BOUNDS). */
  bounds?: Partial<TreeBounds>;
  /** Told where the walk stopped short: each folder not entered for its depth, or where it ended for the entry bound. */
  onBound?: (stop: WalkStop) => void;
}

export interface TreeBounds {
  /** Folder levels below the root the walk enters; deeper folders are yielded, not entered. */
  maxDepth: number;
  /** Entries it lists in all; past this it ends. */
  maxEntries: number;
}

export const DEFAULT_TREE_BOUNDS: Readonly<TreeBounds> = Object.freeze({ maxDepth: 128, maxEntries: 1_000_000 });

/** A place the walk stopped short: a folder too deep to enter, or the folder it was listing when the entry bound was reached. */
export interface WalkStop {
  bound: 'depth' | 'entries';
  /** Root-relative, with `/`. */
  path: string;
  /** The bound that stopped it. */
  limit: number;
}

interface Level {
  /** Prefix to put before a root-relative path to make it relative to this level's folder. */
  prefix: string;
  /** Root-relative folder of this level ("" for the root, "a/b/" below it); ancestors use "". */
  strip: string;
  matcher: Ignore;
}

/** One folder being listed: its sorted entries and how far the walk got through them. */
interface Frame {
  /** Absolute folder path with a trailing separator, ready to have a name appended. */
  base: string;
  rel: string;
  /** Folder levels below the root (0 for the root). */
  depth: number;
  entries: Dirent[];
  next: number;
  levels: Level[];
}

export const DEFAULT_IGNORE_FILES: readonly string[] = ['.gitignore', '.ignore'];

/** Work done between two hand-backs to the event loop. */
const SLICE_MS = 8;

/** Compare two names by the byte order of their UTF-8 encodings (= code point order), as rg and fd do. */
export function compareNamesBytewise(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x < 0xd800 && y < 0xd800) return x - y;
    return fixup(x) - fixup(y);
  }
  return a.length - b.length;
}

/** Map a UTF-16 code unit so that unit order equals code point order (astral above U+FFFF). */
function fixup(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}

/** Compare two `/`-separated relative paths folder by folder: the order of the walk. */
export function comparePaths(a: string, b: string): number {
  const as = a.split('/');
  const bs = b.split('/');
  const n = Math.min(as.length, bs.length);
  for (let i = 0; i < n; i++) {
    const c = compareNamesBytewise(as[i] as string, bs[i] as string);
    if (c !== 0) return c;
  }
  return as.length - bs.length;
}

/** Walk `root` (an existing folder). Entries come in sorted order; see the module comment. */
export async function* walk(root: string, options: WalkOptions = {}): AsyncGenerator<WalkEntry> {
  const walker = new Walker(root, options);
  const pause = new Pacer(options.signal);
  for (let entry = walker.next(); entry !== undefined; entry = walker.next()) {
    yield entry;
    const paused = pause.maybe();
    if (paused) await paused;
  }
}

/**
 * For a loop of synchronous work (judging thousands of paths): returns a promise to await once a
 * slice of work is used up (the event loop gets its turn, then an abort is checked), else
 * undefined, so timers, aborts and signals are honoured while the loop runs.
 *
 * @example
 * const pause = pacer(signal);
 * for (const file of files) { const p = pause(); if (p) await p; judge(file); }
 */
export function pacer(signal?: AbortSignal): () => Promise<void> | undefined {
  const p = new Pacer(signal);
  return () => p.maybe();
}

/** Hands the event loop back once a slice of synchronous work is used up, then checks for an abort. */
class Pacer {
  private until = performance.now() + SLICE_MS;
  private count = 0;
  constructor(private readonly signal: AbortSignal | undefined) {}

  maybe(): Promise<void> | undefined {
    // The clock costs about as much as visiting an entry: look at it every 8 entries (a consumer
    // reading big files still gets checked often enough).
    if ((++this.count & 7) !== 0 || performance.now() < this.until) return undefined;
    return new Promise<void>((done) => setImmediate(done)).then(() => {
      this.signal?.throwIfAborted();
      this.until = performance.now() + SLICE_MS;
    });
  }
}

/** The walk as a pull iterator: `next()` lists folders as it enters them. */
class Walker {
  private readonly stack: Frame[] = [];
  private readonly files: readonly string[];
  private readonly bounds: TreeBounds;
  /** Entries listed so far, all folders together. */
  private listed = 0;

  constructor(
    root: string,
    private readonly options: WalkOptions,
  ) {
    this.files = options.ignoreFiles ?? DEFAULT_IGNORE_FILES;
    this.bounds = { ...DEFAULT_TREE_BOUNDS, ...options.bounds };
    const absolute = resolve(root);
    this.enter(absolute, '', 0, options.parents === false ? [] : parentLevels(absolute, this.files));
  }

  next(): WalkEntry | undefined {
    for (;;) {
      const frame = this.stack[this.stack.length - 1];
      if (frame === undefined) return undefined;
      const dirent = frame.entries[frame.next++];
      if (dirent === undefined) {
        this.stack.pop();
        continue;
      }
      const name = dirent.name;
      if (name === '.git') continue;
      const path = frame.rel === '' ? name : `${frame.rel}/${name}`;
      const absolute = frame.base + name;
      const type = typeOf(dirent, absolute);
      if (frame.levels.length > 0 && isIgnored(frame.levels, path, type === 'dir')) continue;
      const entry: WalkEntry = { path, absolute, name, type };
      if (type === 'dir') {
        if (this.options.prune?.(entry)) continue;
        // Listed now, walked right after this entry: the order is the same as listing it later.
        if (frame.depth < this.bounds.maxDepth) this.enter(absolute, path, frame.depth + 1, frame.levels);
        else this.options.onBound?.({ bound: 'depth', path, limit: this.bounds.maxDepth });
      }
      return entry;
    }
  }

  private enter(folder: string, rel: string, depth: number, levels: Level[]): void {
    this.options.signal?.throwIfAborted();
    let entries: Dirent[] | undefined;
    try {
      entries = this.list(folder);
    } catch (error) {
      // A real fs error always has a code; "EIO" only keeps the type honest.
      this.options.onUnreadable?.(rel, errnoCode(error) ?? 'EIO');
      return;
    }
    if (entries === undefined) {
      // The entry bound: nothing more is listed or yielded.
      this.stack.length = 0;
      this.options.onBound?.({ bound: 'entries', path: rel, limit: this.bounds.maxEntries });
      return;
    }
    const own = this.files.length > 0 ? levelFor(folder, rel, entries, this.files) : undefined;
    entries.sort((x, y) => compareNamesBytewise(x.name, y.name));
    const base = folder.endsWith(sep) ? folder : folder + sep;
    this.stack.push({ base, rel, depth, entries, next: 0, levels: own ? [...levels, own] : levels });
  }

  /**
   * A folder's entries, read a batch at a time so that one folder of millions of names is not
   * loaded whole to learn it is past the entry bound; undefined past it.
   */
  private list(folder: string): Dirent[] | undefined {
    const dir: Dir = opendirSync(folder, { bufferSize: 256 });
    try {
      const entries: Dirent[] = [];
      for (let dirent = dir.readSync(); dirent !== null; dirent = dir.readSync()) {
        if (++this.listed > this.bounds.maxEntries) return undefined;
        entries.push(dirent);
      }
      return entries;
    } finally {
      dir.closeSync();
    }
  }
}

function typeOf(dirent: Dirent, absolute: string): WalkEntryType {
  if (dirent.isFile()) return 'file';
  if (dirent.isDirectory()) return 'dir';
  if (dirent.isSymbolicLink()) return 'symlink';
  if (dirent.isFIFO() || dirent.isSocket() || dirent.isCharacterDevice() || dirent.isBlockDevice()) return 'other';
  try {
    const info = lstatSync(absolute); // DT_UNKNOWN on some file systems
    return info.isFile() ? 'file' : info.isDirectory() ? 'dir' : info.isSymbolicLink() ? 'symlink' : 'other';
  } catch {
    return 'other';
  }
}

function isIgnored(levels: Level[], path: string, dir: boolean): boolean {
  for (let i = levels.length - 1; i >= 0; i--) {
    const level = levels[i] as Level;
    if (level.strip !== '' && !path.startsWith(level.strip)) continue;
    const local = level.prefix + path.slice(level.strip.length);
    const result = level.matcher.test(dir ? `${local}/` : local);
    if (result.ignored) return true;
    if (result.unignored) return false;
  }
  return false;
}

function levelFor(folder: string, rel: string, entries: Dirent[], files: readonly string[]): Level | undefined {
  let matcher: Ignore | undefined;
  for (const file of files) {
    if (!entries.some((e) => e.name === file && !e.isDirectory())) continue;
    const text = readText(join(folder, file));
    if (text === undefined) continue;
    matcher ??= ignore({ allowRelativePaths: true });
    matcher.add(text);
  }
  return matcher ? { prefix: '', strip: rel === '' ? '' : `${rel}/`, matcher } : undefined;
}

function parentLevels(root: string, files: readonly string[]): Level[] {
  const levels: Level[] = [];
  let current = root;
  for (;;) {
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
    let matcher: Ignore | undefined;
    for (const file of files) {
      const text = readText(join(current, file));
      if (text === undefined) continue;
      matcher ??= ignore({ allowRelativePaths: true });
      matcher.add(text);
    }
    if (matcher) levels.unshift({ prefix: `${relative(current, root).split(sep).join('/')}/`, strip: '', matcher });
  }
  return levels;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
