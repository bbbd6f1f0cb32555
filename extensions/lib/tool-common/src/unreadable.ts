import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { constants } from 'node:os';
import { errnoCode, errorMessage, isPermissionDenied } from '@airlock/toolkit/util';
import { suggestNear } from './suggest.js';
import { comparePaths } from './walk.js';

/**
 * Paths a search could not read, and how the tool tells the model about them. rg and the walk
 * both skip what they cannot read and go on; a search that says nothing about it looks complete
 * when it is not, so the tool reports them (grep and find alike).
 */

/** A path the search could not read: root-relative with `/` ("" for the root itself), and the errno code. */
export interface Unreadable {
  path: string;
  code: string;
}

/** Paths named in the notice; the model needs an example to act on, not the whole list. */
const NOTICE_NAMES = 3;
/** Paths kept in the details, so one huge locked tree cannot bloat the result. */
const DETAILS_PATHS = 100;

export interface UnreadableDetails {
  count: number;
  /** The first paths in path order, at most DETAILS_PATHS of them. */
  paths: Unreadable[];
}

let errnoNames: Map<number, string> | undefined;

/** The errno code for rg's "(os error 13)", the same code Node gives for the same failure (EACCES). */
export function codeForErrno(errno: number): string {
  errnoNames ??= new Map(Object.entries(constants.errno).map(([name, n]) => [n, name]));
  return errnoNames.get(errno) ?? 'EIO';
}

/**
 * The search root's stats, or the error that says why there is nothing to search: not found
 * (with a "did you mean"), permission denied on the way to it, or the system's own words.
 * grep and find alike.
 *
 * @example const info = await statSearchRoot(absolute, display(absolute, ctx.cwd));
 */
export async function statSearchRoot(absolute: string, shown: string): Promise<Stats> {
  try {
    return await stat(absolute);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new Error(`Path not found: ${shown}.${await suggestNear(absolute)}`);
    if (isPermissionDenied(code)) {
      throw new Error(`Permission denied: cannot search ${shown} (this process may not open a folder on the way to it). Search somewhere else, or ask the user to change the permissions.`);
    }
    throw new Error(`Cannot access ${shown}: ${errorMessage(error)}`);
  }
}

/**
 * The error when the search root itself cannot be read: the whole answer would be wrong, so it
 * is an error, worded like read's and saying what to do.
 */
export function rootError(shown: string, dir: boolean, code: string): Error {
  const fix = 'Search somewhere else, or ask the user to change the permissions.';
  if (!isPermissionDenied(code)) return new Error(`Cannot search ${shown} (${code}). ${fix}`);
  return new Error(
    dir
      ? `Permission denied: cannot search ${shown} (this process may not read that folder). ${fix}`
      : `Permission denied: cannot search ${shown}. The file exists but this process may not read it. ${fix}`,
  );
}

/**
 * What gets reported: in path order, each path once, without those that vanished during the
 * search (nothing is hidden by a file deleted meanwhile). When the search stopped early at
 * `stop` (the last result it needed), paths after it are dropped: rg runs on past that point
 * while the walk does not, and both engines must say the same.
 */
export function settle(unreadable: readonly Unreadable[], stop: string | undefined): Unreadable[] {
  const seen = new Set<string>();
  const kept: Unreadable[] = [];
  for (const u of unreadable) {
    if (u.code === 'ENOENT' || seen.has(u.path)) continue;
    if (stop !== undefined && comparePaths(u.path, stop) > 0) continue;
    seen.add(u.path);
    kept.push(u);
  }
  return kept.sort((a, b) => comparePaths(a.path, b.path));
}

/** The notice line, e.g. `[2 paths could not be read (permission denied): secret.txt, sub; results may be incomplete.]`. */
export function unreadableNotice(unreadable: readonly Unreadable[]): string {
  const n = unreadable.length;
  const reasons = [...new Set(unreadable.map((u) => (isPermissionDenied(u.code) ? 'permission denied' : u.code)))].join(', ');
  const names = unreadable.slice(0, NOTICE_NAMES).map((u) => u.path).join(', ');
  const which = n > NOTICE_NAMES ? `, e.g. ${names}` : `: ${names}`;
  return `[${n} ${n === 1 ? 'path' : 'paths'} could not be read (${reasons})${which}; results may be incomplete.]`;
}

export function unreadableDetails(unreadable: readonly Unreadable[]): UnreadableDetails {
  return { count: unreadable.length, paths: unreadable.slice(0, DETAILS_PATHS) };
}
