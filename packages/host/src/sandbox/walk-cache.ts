import { statfsSync, type BigIntStats } from 'node:fs';

/**
 * What the walk learned from listing one folder: the names it keeps out of reach and the
 * subfolders it goes on into. Names only, judged by the profile from the path, which stays the
 * same while the folder does.
 */
export interface Listed {
  /** Entries listed (for the entry bound). */
  count: number;
  hidden: { name: string; dir: boolean }[];
  readOnly: string[];
  guarded: string[];
  /** Regular files with more than one name: looked at again on every walk (see WalkCache). */
  linked: string[];
  /** Whether it holds a `node_modules` folder, whose `.pnpm` is looked for on every walk. */
  modules: boolean;
  /** Subfolders the walk enters. */
  dirs: string[];
}

/** Which folder, in which state: equal keys mean the same folder with the same entries. */
interface Key {
  dev: bigint;
  ino: bigint;
  mtime: bigint;
  ctime: bigint;
}

/**
 * How long after a folder's last change its listing may be reused. File systems stamp changes
 * with a clock that moves in steps: a name added in the same step as the change before it leaves
 * the folder's times as they were. On Linux's local file systems the step is the kernel's tick
 * (at most 10 ms; FINE_SETTLE_MS leaves five times that); elsewhere it can be a second or two
 * (FAT, HFS+, ext3, a network file system's server), so a folder is listed again on every walk
 * until its last change is older than SETTLE_MS. Git does the same for files its index calls
 * "racily clean".
 */
export const SETTLE_MS = 3_000;
export const FINE_SETTLE_MS = 50;

/**
 * statfs magic numbers of local file systems stamped by the kernel's clock: ext2/3/4, tmpfs, XFS,
 * Btrfs, F2FS. Not overlayfs: its times are those of the file system below, which may be any.
 */
const FINE_TIMES = new Set([0xef53, 0x01021994, 0x58465342, 0x9123683e, 0xf2f52010]);

/**
 * What earlier walks learned, per folder, kept while the folder stays the same: same device and
 * inode (not another folder moved to its place), same modification and status-change times. A
 * name added, removed or renamed in a folder changes both times; the status-change time cannot
 * be set back by a program (`touch -d` sets the modification time and moves the status-change
 * time to now). An unchanged folder then costs one stat: no listing, no judgment per entry.
 *
 * What the key cannot see, and how the walk covers it:
 * - a change inside a subfolder: every subfolder has its own entry and its own stat;
 * - a change within the clock step of the change before it: see SETTLE_MS (one statfs per
 *   device says which step applies);
 * - a file's link count (a hard link made or removed elsewhere changes the file, not the
 *   folder): files known to have several names are looked at again on every walk; a first
 *   extra name made *to* a file of an unchanged folder, by a program outside the sandbox, from
 *   outside the roots, is seen once that folder changes (inside the sandbox the kernel refuses
 *   a link across mounts, and one made inside the roots gives the file a name a command could
 *   write anyway);
 * - `node_modules/.pnpm` appearing in a folder listed before: looked for on every walk.
 *
 * One cache per host: the profile's verdicts depend on the paths and the rules, which do not
 * change in a session.
 */
export class WalkCache {
  readonly #dirs = new Map<string, { key: Key; listed: Listed; seen: number }>();
  readonly #now: () => number;
  readonly #settleMs: number | undefined;
  /** The settle time per device (see SETTLE_MS). */
  readonly #settleByDevice = new Map<bigint, number>();
  #generation = 0;

  /** `now`: the wall clock in ms; `settleMs`: instead of asking the file system (both for tests). */
  constructor(options: { now?: () => number; settleMs?: number } = {}) {
    this.#now = options.now ?? Date.now;
    this.#settleMs = options.settleMs;
  }

  /** A number for one walk, to tell which folders it saw (see `sweep`). */
  begin(): number {
    return ++this.#generation;
  }

  /** What listing `dir` gave, if the folder is the same as then. */
  get(dir: string, st: BigIntStats, generation: number): Listed | undefined {
    const known = this.#dirs.get(dir);
    if (known === undefined) return undefined;
    const { key } = known;
    if (key.ino !== st.ino || key.dev !== st.dev || key.mtime !== st.mtimeNs || key.ctime !== st.ctimeNs) return undefined;
    known.seen = Math.max(known.seen, generation);
    return known.listed;
  }

  /** Keep a listing of `dir`, taken after `st` was; one of a folder too recently changed is not kept. */
  set(dir: string, st: BigIntStats, listed: Listed, generation: number): void {
    const settled = BigInt(this.#now() - this.#settle(dir, st.dev)) * 1_000_000n;
    if (st.ctimeNs >= settled || st.mtimeNs >= settled) {
      this.#dirs.delete(dir);
      return;
    }
    this.#dirs.set(dir, { key: { dev: st.dev, ino: st.ino, mtime: st.mtimeNs, ctime: st.ctimeNs }, listed, seen: generation });
  }

  #settle(dir: string, device: bigint): number {
    if (this.#settleMs !== undefined) return this.#settleMs;
    let ms = this.#settleByDevice.get(device);
    if (ms === undefined) {
      try {
        ms = FINE_TIMES.has(statfsSync(dir).type) ? FINE_SETTLE_MS : SETTLE_MS;
      } catch {
        ms = SETTLE_MS;
      }
      this.#settleByDevice.set(device, ms);
    }
    return ms;
  }

  forget(dir: string): void {
    this.#dirs.delete(dir);
  }

  /**
   * Drop the folders a complete walk did not see (removed, renamed, or now below a link), so the
   * cache holds what the roots hold and no more. Walks running side by side only cost each
   * other a listing.
   */
  sweep(generation: number, seen: number): void {
    if (this.#dirs.size <= seen) return;
    for (const [dir, known] of this.#dirs) if (known.seen < generation) this.#dirs.delete(dir);
  }

  /** Folders held (for tests). */
  get size(): number {
    return this.#dirs.size;
  }
}
