import { lstatSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * What the policy judged for one call, kept so execute can open exactly that.
 *
 * The policy judges the path a tool's `resources()` reports (a real path: links resolved); the
 * tool opens a file later. A process that swaps a name for a symlink in between would otherwise
 * get an unjudged file read or written. The kernel calls `resources(args, ctx)` with the call's
 * own context just before the policy judges it (and again when a batch re-judges the call), and
 * hands that same context to `execute`, so the context object is the key: the last record made
 * for it is what the policy last judged.
 *
 * Identity is device and inode, read here with lstat: the name as judged, not a link's target.
 */

/** Device and inode: which file (or folder) a name led to. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

export interface JudgedTarget {
  /** The real path the policy judged. */
  path: string;
  /** The file at `path` when it was judged; undefined when nothing was there. */
  file: FileIdentity | undefined;
  /** The folder holding `path` when it was judged; undefined when it did not exist. */
  folder: FileIdentity | undefined;
  /** `path` was a symlink leading nowhere when judged (its real path could not be resolved). */
  danglingLink?: boolean;
}

const records = new WeakMap<object, JudgedTarget>();

/**
 * Record that the policy is about to judge `path` for the call with this context, and return
 * `path` (so a `resources()` can wrap the path it reports).
 *
 * @example
 * resources(params, ctx) { return [{ kind: 'fs.read', path: rememberJudged(ctx, realPathOrSelf(p)) }]; }
 */
export function rememberJudged(ctx: object, path: string): string {
  records.set(ctx, targetAt(path));
  return path;
}

/**
 * `path` (a real path) as a JudgedTarget, as it is now: what a tool holds its open to when it runs
 * outside a kernel and nothing was judged.
 */
export function targetAt(path: string): JudgedTarget {
  let file: FileIdentity | undefined;
  let danglingLink = false;
  try {
    const s = lstatSync(path);
    file = { dev: s.dev, ino: s.ino };
    danglingLink = s.isSymbolicLink();
  } catch {
    // nothing there
  }
  return { path, file, folder: identityOf(dirname(path)), ...(danglingLink ? { danglingLink } : {}) };
}

/**
 * What the policy judged for this call, or undefined when `resources()` never ran for it (a tool
 * called directly, outside a kernel: no policy decision to hold it to).
 */
export function judgedFor(ctx: object): JudgedTarget | undefined {
  return records.get(ctx);
}

/** The identity of whatever is at `path` itself (a symlink is not followed), or undefined. */
export function identityOf(path: string): FileIdentity | undefined {
  try {
    const s = lstatSync(path);
    return { dev: s.dev, ino: s.ino };
  } catch {
    return undefined;
  }
}

export function sameIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}
