import { lstatSync } from 'node:fs';
import type { SandboxProfile } from '@airlock/contract';
import { DEFAULT_WALK_BOUNDS, kindOf, RootsWalk, SandboxPlanError, shortPath, WalkCache, type WalkBounds, type WalkFindings } from './walk.js';

export { DEFAULT_WALK_BOUNDS, SandboxPlanError, WalkCache, type WalkBounds } from './walk.js';

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

export interface PlanOptions {
  /** How far, how much and how long the walk of the writable roots may go (default DEFAULT_WALK_BOUNDS). */
  bounds?: Partial<WalkBounds>;
  /** What earlier walks learned (one per host); default: none. */
  cache?: WalkCache;
  /** Ends the walk (the call's signal: its time limit, Ctrl-C); it rejects with the signal's reason. */
  signal?: AbortSignal;
  /** For a walk started before anyone needs it (when the host opens); see Background. */
  background?: Background;
}

/**
 * How a walk started before anyone needs it shares the thread with the host's own work. Until
 * someone waits for it, it works in short slices, only while the host is idle (no call running:
 * a slice beside a small call would double the call's time), and does not keep the process
 * alive; once someone waits, it goes on as any walk.
 */
export interface Background {
  /** True once a command waits for this walk. */
  needed(): boolean;
  /** undefined while the host is idle; else settles when it is, or when the walk is needed or stopped. */
  busy(): Promise<void> | undefined;
}

/** Work done between two hand-backs to the event loop. */
const SLICE_MS = 8;
/** The same for a background walk: the host's own work waits at most this long for it. */
const BACKGROUND_SLICE_MS = 3;

/**
 * Turn a profile into mounts: walk every writable folder once (without following links) and ask
 * the profile about each entry, so a secret or an Airlock file inside the workspace is covered
 * even when only a pattern names it. Entries that exist now are covered; a file created later by
 * the same command is not (bubblewrap mounts existing paths). Files with names outside the
 * workspace (hard links) and pnpm's virtual store are mounted read-only. The walk is bounded
 * (see walk.ts) and hands the event loop back every few milliseconds; past a bound it rejects
 * with a SandboxPlanError that says where and what to do.
 *
 * @example
 * await planMounts({ writable: ['/w'], readOnly: [], hidden: [], classify: (p) => (p.endsWith('/.env') ? 'hidden' : undefined) }, '/tmp/x')
 * // { writable: ['/w', '/tmp/x'], hiddenFiles: ['/w/.env'], … }
 */
export async function planMounts(profile: SandboxProfile, tmpDir: string, options: PlanOptions = {}): Promise<MountPlan> {
  options.signal?.throwIfAborted();
  const { walk, roots, bounds } = start(profile, options);
  const background = options.background;
  const aside = () => background !== undefined && !background.needed();
  const stopped = () => options.signal?.aborted === true;
  // A background walk steps only when the host has been idle across a timer tick: woken the
  // moment a call ends, it would run its slice before the caller of that call went on.
  const untilIdle = async () => {
    const from = performance.now();
    while (aside() && !stopped()) {
      const busy = background!.busy();
      if (busy !== undefined) await busy;
      // An unreferenced immediate would wait for some other event to wake the loop: a timer does not.
      else if ((await new Promise<void>((resolve) => setTimeout(resolve, 1).unref()), background!.busy() === undefined)) break;
    }
    walk.postpone(performance.now() - from);
  };
  try {
    for (;;) {
      if (aside()) await untilIdle();
      options.signal?.throwIfAborted();
      if (walk.step(performance.now() + (aside() ? BACKGROUND_SLICE_MS : SLICE_MS))) break;
      if (!aside()) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return finish(profile, roots, walk.findings(), tmpDir, bounds.maxMounts);
  } catch (error) {
    if (error instanceof SandboxPlanError) error.guarded = walk.partial().guarded;
    throw error;
  } finally {
    walk.close();
  }
}

/**
 * planMounts in one go, for a caller that cannot wait (`policy explain`'s description): the same
 * bounds, the time bound included, but the event loop waits until it is done.
 */
export function planMountsSync(profile: SandboxProfile, tmpDir: string, options: Omit<PlanOptions, 'signal'> = {}): MountPlan {
  const { walk, roots, bounds } = start(profile, options);
  try {
    walk.step(Number.POSITIVE_INFINITY);
    return finish(profile, roots, walk.findings(), tmpDir, bounds.maxMounts);
  } finally {
    walk.close();
  }
}

function start(profile: SandboxProfile, options: PlanOptions): { walk: RootsWalk; roots: string[]; bounds: WalkBounds } {
  const bounds = { ...DEFAULT_WALK_BOUNDS, ...options.bounds };
  const roots = profile.writable.filter((root) => kindOf(root) === 'dir');
  return { walk: new RootsWalk(profile, roots, options.cache ?? new WalkCache(), bounds), roots, bounds };
}

function finish(profile: SandboxProfile, roots: readonly string[], found: WalkFindings, tmpDir: string, maxMounts: number): MountPlan {
  const plan: MountPlan = { writable: [...roots, tmpDir], readOnly: [], hiddenDirs: [], hiddenFiles: [], guarded: [] };
  const hide = (path: string, dir: boolean) => (dir ? plan.hiddenDirs : plan.hiddenFiles).push(path);
  for (const path of profile.hidden) {
    const kind = kindOf(path);
    if (kind !== undefined) hide(path, kind === 'dir');
  }
  for (const path of profile.readOnly) if (kindOf(path) !== undefined) plan.readOnly.push(path);
  for (const { path, dir } of found.hidden) hide(path, dir);
  plan.readOnly.push(...found.readOnly, ...found.linked, ...found.stores);
  plan.guarded.push(...found.guarded);
  plan.hiddenDirs = outermost(plan.hiddenDirs);
  const hiddenDirs = new Set(plan.hiddenDirs);
  plan.hiddenFiles = outermost(plan.hiddenFiles).filter((f) => !under(f, hiddenDirs));
  plan.readOnly = outermost(plan.readOnly).filter((p) => !hiddenDirs.has(p) && !under(p, hiddenDirs));
  plan.guarded = outermost(plan.guarded);
  const mounts = plan.writable.length + plan.readOnly.length + plan.hiddenDirs.length + plan.hiddenFiles.length;
  if (mounts > maxMounts) {
    throw new SandboxPlanError(
      `The sandbox's rules cannot be built: they would take ${mounts} mounts (${plan.hiddenFiles.length + plan.hiddenDirs.length} secret files and folders to hide, ${plan.readOnly.length} places to keep read-only), more than the ${maxMounts} a command can start with, so nothing runs. ` +
        `Remove the secret files the workspace does not need (such as ${shortPath([...plan.hiddenFiles, ...plan.hiddenDirs, ...plan.readOnly][0] ?? '')}), or move them out of it, from outside the agent.`,
    );
  }
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

/**
 * Paths with none of the others above them (a mount below a covered folder is redundant), in
 * sorted order. Each path's folders are looked up in a set: linear in paths times depth, where
 * comparing every pair was quadratic in a workspace with many secret files.
 */
function outermost(paths: readonly string[]): string[] {
  const all = new Set(paths);
  return [...all].filter((p) => !under(p, all)).sort();
}

/** Whether a folder above `path` (not `path` itself) is in `folders`. */
function under(path: string, folders: ReadonlySet<string>): boolean {
  for (let cut = path.lastIndexOf('/'); cut > 0; cut = path.lastIndexOf('/', cut - 1)) if (folders.has(path.slice(0, cut))) return true;
  return folders.has('/') && path !== '/';
}
