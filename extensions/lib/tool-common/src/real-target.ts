import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { lstat, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { errnoCode } from '@airlock/toolkit/util';
import { resolveExistingPathSync } from './paths.js';

// Same as the Linux kernel's limit on symlinks followed in one lookup.
const MAX_HOPS = 40;

/**
 * The real path a write to `absolute` lands on: the realpath of an existing file, or for a path
 * that does not exist yet, the realpath of its nearest existing parent joined with the rest. A
 * dangling symlink is followed to the file a write through it would create.
 *
 * @example await realTarget('/link-to-repo/src/new.ts') // '/real/repo/src/new.ts'
 */
export async function realTarget(absolute: string, hops = 0): Promise<string> {
  const rest: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      const real = await realpath(current);
      if (rest.length === 0) return real;
      const [first, ...remaining] = rest as [string, ...string[]];
      const link = await danglingLink(join(real, first));
      if (link === undefined || hops >= MAX_HOPS) return join(real, ...rest);
      const target = isAbsolute(link) ? link : resolve(real, link);
      return realTarget(remaining.length > 0 ? join(target, ...remaining) : target, hops + 1);
    } catch (error) {
      if (!isMissing(error)) throw error;
      const parent = dirname(current);
      if (parent === current) throw error;
      rest.unshift(basename(current));
      current = parent;
    }
  }
}

/** The synchronous twin of {@link realTarget}, for `resources()` (which policy calls synchronously). */
export function realTargetSync(absolute: string, hops = 0): string {
  const rest: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      const real = realpathSync(current);
      if (rest.length === 0) return real;
      const [first, ...remaining] = rest as [string, ...string[]];
      const link = danglingLinkSync(join(real, first));
      if (link === undefined || hops >= MAX_HOPS) return join(real, ...rest);
      const target = isAbsolute(link) ? link : resolve(real, link);
      return realTargetSync(remaining.length > 0 ? join(target, ...remaining) : target, hops + 1);
    } catch (error) {
      if (!isMissing(error)) throw error;
      const parent = dirname(current);
      if (parent === current) throw error;
      rest.unshift(basename(current));
      current = parent;
    }
  }
}

/**
 * The file or folder a built-in tool opens for the path a model wrote, and what every policy
 * surface is shown for it: the path resolved as the tools resolve it (`@`, `~`, `..` as text, a
 * spelling variant of an existing name), then its real target ({@link realTargetSync}: links
 * followed, dangling ones too, and for a name that does not exist yet its nearest existing folder
 * resolved). A path that cannot be resolved (a symlink loop) is returned absolute as written:
 * opening it fails the same way. Throws tool-common's PathError for an empty path or a NUL byte.
 *
 * @example openTargetSync('p2/x.txt', '/w') // '/w/protected/x.txt' when p2 links to protected
 */
export function openTargetSync(raw: string, cwd: string): string {
  const absolute = resolveExistingPathSync(raw, cwd);
  try {
    return realTargetSync(absolute);
  } catch {
    return absolute;
  }
}

async function danglingLink(path: string): Promise<string | undefined> {
  try {
    return (await lstat(path)).isSymbolicLink() ? await readlink(path) : undefined;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

function danglingLinkSync(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/**
 * Missing, or hidden from us: a folder we may not search (EACCES) hides what is below it, and a
 * write there fails the same way, so the path as far as it resolves is where it would land.
 */
function isMissing(error: unknown): boolean {
  const code = errnoCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES';
}
