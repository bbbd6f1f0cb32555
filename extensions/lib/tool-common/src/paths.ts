import { lstatSync, opendirSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/**
 * One way for every built-in tool to turn the path a model wrote into a file on disk.
 *
 * The path is tried exactly as given first (after a leading `@` mention and `~`): a macOS
 * screenshot name with U+202F before "PM" is found when the model copies it exactly. Only when
 * that does not exist are spelling variants looked for — names that differ only in the kind of
 * space (plain, no-break U+00A0, narrow U+202F …), the Unicode form (NFC/NFD: macOS file names
 * are NFD) or curly versus straight quotes — because models and clipboards lose those.
 *
 * A variant is a real, existing path: the tools report it from `resources()`, so policy judges
 * the file that is really opened, never the name as typed.
 */

/** Unicode space characters that models and clipboards swap with a plain space. */
const UNICODE_SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g;
const SINGLE_QUOTES = /[\u2018\u2019\u201A\u201B\u2032]/g;
const DOUBLE_QUOTES = /[\u201C\u201D\u201E\u201F\u2033]/g;
/** Folders listed while looking for a variant, and variants kept: a courtesy, bounded. */
const MAX_BRANCHES = 8;

export class PathError extends Error {
  constructor(
    message: string,
    readonly code: 'EMPTY' | 'NUL',
  ) {
    super(message);
    this.name = 'PathError';
  }
}

/**
 * The absolute path a model's path names, exactly as written, before looking at the disk: a
 * leading `@` (a mention) is dropped, `~` is the home folder, `..` is resolved as text.
 *
 * @example resolveToolPath('@~/notes\u202Fa.md', '/work') // '/home/me/notes\u202Fa.md'
 */
export function resolveToolPath(raw: string, cwd: string, home: string = homedir()): string {
  if (typeof raw !== 'string' || raw.trim() === '') throw new PathError('The path is empty. Give the path of a file, relative to the working folder or absolute.', 'EMPTY');
  if (raw.includes('\0')) throw new PathError('The path contains a NUL byte, which no file name can. Check the path for stray characters.', 'NUL');
  let path = raw.startsWith('@') ? raw.slice(1) : raw;
  if (path === '~') path = home;
  else if (path.startsWith('~/')) path = `${home}${path.slice(1)}`;
  return isAbsolute(path) ? resolve(path) : resolve(cwd, path);
}

/**
 * A name with the differences models lose folded away: every kind of space is a plain space,
 * NFC, straight quotes. Two names with the same key are spelling variants of each other.
 *
 * @example spellingKey('Shot 1.02\u202FPM.png') === spellingKey('Shot 1.02 PM.png') // true
 */
export function spellingKey(name: string): string {
  return name.normalize('NFC').replace(UNICODE_SPACES, ' ').replace(SINGLE_QUOTES, "'").replace(DOUBLE_QUOTES, '"');
}

/**
 * Existing paths that differ from `path` (absolute) only in spelling (see spellingKey), found by
 * listing the folders along the way. Empty when `path` itself exists or nothing matches; more
 * than one when the folder holds several variants (then none is the obvious one).
 *
 * @example existingVariants('/shots/Shot 1.02 PM.png') // ['/shots/Shot 1.02\u202FPM.png']
 */
export function existingVariants(path: string): string[] {
  if (lexists(path)) return [];
  const parts = path.split('/').filter((p) => p !== '');
  let branches = ['/'];
  for (const part of parts) {
    const next: string[] = [];
    for (const dir of branches) {
      const exact = join(dir, part);
      if (part === '.' || part === '..' || lexists(exact)) {
        next.push(exact);
        continue;
      }
      const key = spellingKey(part);
      for (const name of listNames(dir)) if (spellingKey(name) === key) next.push(join(dir, name));
    }
    if (next.length === 0) return [];
    branches = next.slice(0, MAX_BRANCHES);
  }
  return branches.filter((p) => p !== path);
}

/**
 * The path as written when it exists, else its only existing spelling variant, else the path
 * as written (the caller reports "not found", with the variants when there are several).
 * Synchronous, so a tool's `resources()` and its `execute` resolve to the same file.
 *
 * @example resolveExistingPathSync('Shot 1.02 PM.png', '/shots') // '/shots/Shot 1.02\u202FPM.png'
 */
export function resolveExistingPathSync(raw: string, cwd: string, home: string = homedir()): string {
  const path = resolveToolPath(raw, cwd, home);
  const variants = existingVariants(path);
  return variants.length === 1 ? variants[0]! : path;
}

/**
 * resolveExistingPathSync for callers that already await.
 *
 * @example await resolveExistingPath("Screenshot it's.png", cwd)
 */
export async function resolveExistingPath(raw: string, cwd: string, home: string = homedir()): Promise<string> {
  return resolveExistingPathSync(raw, cwd, home);
}

/**
 * A name with its invisible and look-alike characters shown as escapes (`\u202F`), so a "did you
 * mean" is visibly different from what was typed.
 *
 * @example visibleName('Shot 1.02\u202FPM.png') // 'Shot 1.02\\u202FPM.png'
 */
export function visibleName(name: string): string {
  let out = '';
  for (const char of name) {
    const code = char.codePointAt(0)!;
    const plain = (code >= 0x21 && code <= 0x7e) || code === 0x20 || (code > 0xa0 && !/[\p{Z}\p{C}\p{M}\u2018-\u201F\u2032\u2033]/u.test(char));
    out += plain ? char : `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return out;
}

function lexists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Names of one folder compared for spelling variants: a folder of millions of names is not read whole, on every missing path. */
const MAX_VARIANT_NAMES = 100_000;

function listNames(dir: string): string[] {
  const names: string[] = [];
  try {
    const handle = opendirSync(dir, { bufferSize: 256 });
    try {
      for (let entry = handle.readSync(); entry !== null && names.length < MAX_VARIANT_NAMES; entry = handle.readSync()) names.push(entry.name);
    } finally {
      handle.closeSync();
    }
  } catch {
    // unreadable: no variants
  }
  return names;
}

/**
 * The real path (symlinks resolved) of an existing path, or the path as given when it does not
 * exist yet: what a tool's resources() reports, so policy sees the file a call will really touch.
 *
 * @example realPathOrSelf('/repo/link-to-src') // '/repo/src'
 */
export function realPathOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
