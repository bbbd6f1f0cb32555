import { realpathSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';

/**
 * One way for every built-in tool to turn the path a model wrote into a file on disk.
 *
 * Models write paths the way people paste them: with a leading `@` (a mention), with the
 * non-breaking or narrow spaces macOS puts in screenshot names, with `~`. A path that does not
 * exist as written may still name a file under another Unicode form (NFC vs NFD: macOS file
 * names are NFD) or with a curly apostrophe where the model typed a straight one.
 */

/** Unicode space characters that models and clipboards put where a plain space was meant. */
const UNICODE_SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g;

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
 * The absolute path a model's path names, before looking at the disk.
 *
 * @example resolveToolPath('@~/notes\u00A0a.md', '/work') // '/home/me/notes a.md'
 */
export function resolveToolPath(raw: string, cwd: string, home: string = homedir()): string {
  if (typeof raw !== 'string' || raw.trim() === '') throw new PathError('The path is empty. Give the path of a file, relative to the working folder or absolute.', 'EMPTY');
  if (raw.includes('\0')) throw new PathError('The path contains a NUL byte, which no file name can. Check the path for stray characters.', 'NUL');
  let path = raw.startsWith('@') ? raw.slice(1) : raw;
  path = path.replace(UNICODE_SPACES, ' ');
  if (path === '~') path = home;
  else if (path.startsWith('~/')) path = `${home}${path.slice(1)}`;
  return isAbsolute(path) ? resolve(path) : resolve(cwd, path);
}

/**
 * Like resolveToolPath, and when that file does not exist, the first variant that does: NFC,
 * NFD, a curly apostrophe for a straight one, and both. Returns the plain resolution when none
 * exists (the caller reports "not found" for the path the model meant).
 *
 * @example await resolveExistingPath("Screenshot it's.png", cwd)
 */
export async function resolveExistingPath(raw: string, cwd: string, home: string = homedir()): Promise<string> {
  const path = resolveToolPath(raw, cwd, home);
  if (await exists(path)) return path;
  for (const variant of variants(path)) if (variant !== path && (await exists(variant))) return variant;
  return path;
}

function variants(path: string): string[] {
  const curly = path.replace(/'/g, '\u2019');
  return [path.normalize('NFC'), path.normalize('NFD'), curly, curly.normalize('NFC'), curly.normalize('NFD')];
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
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
