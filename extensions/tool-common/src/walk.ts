import { readFileSync, type Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
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
 * - symlinks are yielded as symlinks and never followed.
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
  signal?: AbortSignal;
}

interface Level {
  /** Prefix to put before a root-relative path to make it relative to this level's folder. */
  prefix: string;
  /** Root-relative folder of this level ("" for the root, "a/b/" below it); ancestors use "". */
  strip: string;
  matcher: Ignore;
}

export const DEFAULT_IGNORE_FILES: readonly string[] = ['.gitignore', '.ignore'];

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
  const files = options.ignoreFiles ?? DEFAULT_IGNORE_FILES;
  const levels: Level[] = options.parents === false ? [] : parentLevels(root, files);
  yield* walkFolder(root, '', levels, files, options);
}

async function* walkFolder(folder: string, rel: string, levels: Level[], files: readonly string[], options: WalkOptions): AsyncGenerator<WalkEntry> {
  options.signal?.throwIfAborted();
  let entries: Dirent[];
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch {
    return; // Unreadable folder (permission, vanished): skipped, as rg and fd do.
  }
  const own = files.length > 0 ? levelFor(folder, rel, entries, files) : undefined;
  const active = own ? [...levels, own] : levels;
  entries.sort((x, y) => compareNamesBytewise(x.name, y.name));
  for (const dirent of entries) {
    const name = dirent.name;
    if (name === '.git') continue;
    const path = rel === '' ? name : `${rel}/${name}`;
    const absolute = join(folder, name);
    const type = await typeOf(dirent, absolute);
    if (active.length > 0 && isIgnored(active, path, type === 'dir')) continue;
    const entry: WalkEntry = { path, absolute, name, type };
    if (type === 'dir') {
      if (options.prune?.(entry)) continue;
      yield entry;
      yield* walkFolder(absolute, path, active, files, options);
    } else {
      yield entry;
    }
  }
}

async function typeOf(dirent: Dirent, absolute: string): Promise<WalkEntryType> {
  if (dirent.isFile()) return 'file';
  if (dirent.isDirectory()) return 'dir';
  if (dirent.isSymbolicLink()) return 'symlink';
  if (dirent.isFIFO() || dirent.isSocket() || dirent.isCharacterDevice() || dirent.isBlockDevice()) return 'other';
  try {
    const info = await lstat(absolute); // DT_UNKNOWN on some file systems
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
