import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SandboxProfile, SandboxVerdict } from '@airlock/kernel';

/** What the sandbox mounts, beyond a read-only view of the whole filesystem. */
export interface MountPlan {
  /** Bound writable (workspace roots, the private temp folder). */
  writable: string[];
  /** Bound read-only again inside a writable folder (Airlock's files, git hooks and config). */
  readOnly: string[];
  /** Folders replaced by an empty folder nobody may open. */
  hiddenDirs: string[];
  /** Files replaced by an empty file nobody may open. */
  hiddenFiles: string[];
  /**
   * The guarded entries the walk found (settings files only a person may create), also in
   * `readOnly`. Compared after a command to find the ones it created (see `appeared`).
   */
  guarded: string[];
}

/** Folders the walk does not enter: installed packages and git's object store are large and hold no secrets of the user's. */
const SKIP_DIRS = new Set(['node_modules', '.git']);

/** The walk gives up (and the command does not run) past this many entries. */
export const DEFAULT_WALK_LIMIT = 200_000;

export class SandboxPlanError extends Error {
  override name = 'SandboxPlanError';
}

interface Entry {
  name: string;
  isDir: boolean;
  isLink: boolean;
  verdict: SandboxVerdict | undefined;
}

/**
 * What the walk learned about each folder, kept while the folder's modification time stays the
 * same. The verdicts depend on names and places only (the rules match paths, links are not
 * followed), and adding, removing or renaming an entry changes its folder's mtime, so an
 * unchanged folder needs no new listing and no new verdicts: a command then pays one stat per
 * folder instead of a judgment per file. One cache per host (the rules do not change in a session).
 */
export class WalkCache {
  readonly #dirs = new Map<string, { mtime: bigint; entries: Entry[] }>();

  entries(dir: string, classify: (path: string) => SandboxVerdict | undefined): Entry[] | undefined {
    let mtime: bigint;
    try {
      mtime = lstatSync(dir, { bigint: true }).mtimeNs;
    } catch {
      this.#dirs.delete(dir);
      return undefined;
    }
    const known = this.#dirs.get(dir);
    if (known !== undefined && known.mtime === mtime) return known.entries;
    let listed;
    try {
      listed = readdirSync(dir, { withFileTypes: true });
    } catch {
      this.#dirs.delete(dir);
      return undefined; // unreadable here means unreadable inside too
    }
    const entries = listed.map((e): Entry => {
      const isLink = e.isSymbolicLink();
      // A link's target is judged where it lives; mounting onto a link would mount onto its target.
      return { name: e.name, isDir: e.isDirectory(), isLink, verdict: isLink ? undefined : classify(join(dir, e.name)) };
    });
    this.#dirs.set(dir, { mtime, entries });
    return entries;
  }
}

/**
 * Turn a profile into mounts: walk every writable folder once (without following links) and ask
 * the profile about each entry, so a secret or an Airlock file inside the workspace is covered
 * even when only a pattern names it. Entries that exist now are covered; a file created later by
 * the same command is not (bubblewrap mounts existing paths).
 *
 * @example
 * planMounts({ writable: ['/w'], readOnly: [], hidden: [], classify: (p) => (p.endsWith('/.env') ? 'hidden' : undefined) }, '/tmp/x')
 * // { writable: ['/w', '/tmp/x'], hiddenFiles: ['/w/.env'], … }
 */
export function planMounts(profile: SandboxProfile, tmpDir: string, options: { limit?: number; cache?: WalkCache } = {}): MountPlan {
  const limit = options.limit ?? DEFAULT_WALK_LIMIT;
  const cache = options.cache ?? new WalkCache();
  const plan: MountPlan = { writable: [], readOnly: [], hiddenDirs: [], hiddenFiles: [], guarded: [] };
  const hide = (path: string, dir: boolean) => (dir ? plan.hiddenDirs : plan.hiddenFiles).push(path);
  for (const path of profile.hidden) {
    const kind = kindOf(path);
    if (kind !== undefined) hide(path, kind === 'dir');
  }
  for (const path of profile.readOnly) if (kindOf(path) !== undefined) plan.readOnly.push(path);

  let seen = 0;
  for (const root of profile.writable) {
    if (kindOf(root) !== 'dir') continue;
    plan.writable.push(root);
    const stack = [root];
    while (stack.length > 0) {
      const dir = stack.pop()!;
      const entries = cache.entries(dir, (path) => profile.classify(path));
      if (entries === undefined) continue;
      seen += entries.length;
      if (seen > limit) {
        throw new SandboxPlanError(`The workspace has more than ${limit} files and folders to check for secrets, so the sandbox's rules cannot be built. Narrow the workspace roots (path-policy's roots option) or move large data out of it.`);
      }
      for (const entry of entries) {
        if (entry.isLink) continue;
        const path = join(dir, entry.name);
        if (entry.verdict === 'hidden') hide(path, entry.isDir);
        else if (entry.verdict === 'read-only') plan.readOnly.push(path);
        else if (entry.verdict === 'guarded') {
          plan.readOnly.push(path);
          plan.guarded.push(path);
        }
        else if (entry.isDir && !SKIP_DIRS.has(entry.name)) stack.push(path);
      }
    }
  }
  plan.writable.push(tmpDir);
  plan.hiddenDirs = outermost(plan.hiddenDirs);
  plan.hiddenFiles = plan.hiddenFiles.filter((f) => !plan.hiddenDirs.some((d) => f.startsWith(`${d}/`)));
  plan.readOnly = outermost(plan.readOnly).filter((p) => !plan.hiddenDirs.some((d) => p === d || p.startsWith(`${d}/`)));
  plan.guarded = outermost(plan.guarded);
  return plan;
}

/**
 * The guarded entries in `after` that were not there `before`, outermost first: what a command
 * created that only a person may create. A new entry inside one that was already guarded is not
 * listed (that one was mounted read-only, so nothing can have been created in it).
 *
 * @example
 * appeared(['/w/.airlock'], ['/w/.airlock', '/w/.airlockrc.json']) // ['/w/.airlockrc.json']
 */
export function appeared(before: readonly string[], after: readonly string[]): string[] {
  const known = new Set(before);
  return after.filter((p) => !known.has(p) && !before.some((b) => p.startsWith(`${b}/`)));
}

/** Which file or folder each path is now (device and inode), for `replaced`; missing paths are left out. */
export function identities(paths: readonly string[]): Map<string, string> {
  const ids = new Map<string, string>();
  for (const path of paths) {
    try {
      const st = lstatSync(path, { bigint: true });
      ids.set(path, `${st.dev}:${st.ino}`);
    } catch {
      // gone: nothing to compare
    }
  }
  return ids;
}

/**
 * The guarded entries of `after` that were there before but are another file or folder now: a
 * read-only mount cannot be written, but the folder holding it can be moved away and a new one
 * made at the same name (`mv hooks old; mkdir hooks; echo … > hooks/check.sh`).
 *
 * @example replaced(new Map([['/w/.airlockrc.json', '1:10']]), ['/w/.airlockrc.json']) // ['/w/.airlockrc.json'] once its inode is not 10
 */
export function replaced(before: ReadonlyMap<string, string>, after: readonly string[]): string[] {
  const now = identities(after.filter((p) => before.has(p)));
  return [...now].filter(([path, id]) => before.get(path) !== id).map(([path]) => path);
}

function kindOf(path: string): 'dir' | 'file' | undefined {
  try {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return undefined; // mounting onto a link would mount onto its target
    return st.isDirectory() ? 'dir' : 'file';
  } catch {
    return undefined;
  }
}

/** Paths with none of the others above them (a mount below a covered folder is redundant). */
function outermost(paths: readonly string[]): string[] {
  const sorted = [...new Set(paths)].sort();
  const out: string[] = [];
  for (const p of sorted) if (!out.some((o) => p.startsWith(`${o}/`))) out.push(p);
  return out;
}
