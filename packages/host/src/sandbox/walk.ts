import { lstatSync, opendirSync, type BigIntStats, type Dir, type Dirent } from 'node:fs';
import { errnoCode } from '@airlock/toolkit/util';
import type { SandboxProfile, SandboxVerdict } from '@airlock/contract';
import { WalkCache, type Listed } from './walk-cache.js';

export { WalkCache } from './walk-cache.js';

/**
 * The walk of the writable roots that the sandbox's mounts come from: every entry is asked about
 * (secret, Airlock's file, settings file only a person may create), regular files with more than
 * one name are noted (a write through one changes the others, which may be outside the
 * workspace), and a pnpm virtual store is found.
 *
 * Bounded three ways, because a command can shape the workspace for the next one:
 * - depth: Node has no openat(), so every lstat and listing resolves the whole path again, and a
 *   folder 2,000 levels deep made each of them cost a thousand lookups. With a depth bound each
 *   costs at most a bounded number, and the walk is linear in the entries it looks at;
 * - entries, all roots together; a folder is read a few entries at a time, so a folder of ten
 *   million names is not loaded to find that out;
 * - time, wall clock.
 * Past any bound the plan fails (SandboxPlanError, naming the place and what to do) and nothing
 * runs: an entry the walk did not judge could be a secret the sandbox would leave readable.
 *
 * The walk is a state machine run in slices (`step`), so a caller can hand the event loop back
 * between slices: timers, aborts and signals are honoured while it runs.
 *
 * A folder unchanged since an earlier walk is not listed again (walk-cache.ts): a walk costs one
 * stat per folder plus the work on the folders that changed. Every bound counts a reused folder
 * as if it had been listed.
 */

export interface WalkBounds {
  /** Folder levels below a writable root the walk enters. */
  maxDepth: number;
  /** Files and folders it looks at, all roots together. */
  maxEntries: number;
  /** Milliseconds it may take in all. */
  maxMs: number;
  /** Files with names outside the workspace mounted read-only one by one; past this the plan fails. */
  maxLinked: number;
  /**
   * Mounts a command starts with, all kinds together: each is one bubblewrap argument pair on a
   * command line of limited length, and one mount the kernel makes before the command runs.
   */
  maxMounts: number;
}

export const DEFAULT_WALK_BOUNDS: Readonly<WalkBounds> = Object.freeze({ maxDepth: 128, maxEntries: 200_000, maxMs: 20_000, maxLinked: 1_000, maxMounts: 4_096 });

/** The sandbox's rules could not be built: nothing runs (see the message for what to do). */
export class SandboxPlanError extends Error {
  override name = 'SandboxPlanError';
  /** The guarded entries found before the walk stopped (set by planMounts), for the check after a command. */
  guarded?: string[];
}

/** Folders the walk does not enter: installed packages and git's object store are large and hold no secrets of the user's. */
const SKIP_DIRS = new Set(['node_modules', '.git']);

/** Linux's PATH_MAX, with its NUL: a longer path cannot be looked at, or mounted, at all. */
const MAX_PATH_BYTES = 4095;

/** Entries between two looks at the clock. */
const CLOCK_EVERY = 64;

type Kind = 'dir' | 'file' | 'link' | 'other';

interface Entry {
  name: string;
  kind: Kind;
  verdict: SandboxVerdict | undefined;
  /** For a regular file with more than one name: how many, and which file it is (`dev:ino`). */
  links?: { count: number; id: string };
}

/** What the walk found, before mounts are made of it. */
export interface WalkFindings {
  hidden: { path: string; dir: boolean }[];
  readOnly: string[];
  guarded: string[];
  /** Files some of whose names are not under the roots (or in folders the walk skips). */
  linked: string[];
  /** pnpm virtual stores (`node_modules/.pnpm`): every file in them is a name of a file in pnpm's store. */
  stores: string[];
}

interface Pending {
  path: string;
  depth: number;
  root: string;
  /** The first-level folder of the root it is in (undefined for the root itself). */
  top: string | undefined;
}

/** A folder being read a few entries at a time. */
interface Listing extends Pending {
  dir: Dir;
  stat: BigIntStats;
  listed: Listed;
}

export class RootsWalk {
  readonly #profile: SandboxProfile;
  readonly #cache: WalkCache;
  readonly #generation: number;
  readonly #bounds: WalkBounds;
  #deadline: number;
  /** Folders to enter, breadth first: past a bound, everything shallower was judged (settings files are shallow). */
  readonly #queue: Pending[] = [];
  #head = 0;
  #listing: Listing | undefined;
  #seen = 0;
  #since = 0;
  /** Entries per first-level folder of each root, to name where most of them are. */
  readonly #perTop = new Map<string, number>();
  readonly #names = new Map<string, { count: number; paths: string[] }>();
  readonly #found: WalkFindings = { hidden: [], readOnly: [], guarded: [], linked: [], stores: [] };

  constructor(profile: SandboxProfile, roots: readonly string[], cache: WalkCache, bounds: WalkBounds, now = performance.now()) {
    this.#profile = profile;
    this.#cache = cache;
    this.#generation = cache.begin();
    this.#bounds = bounds;
    this.#deadline = now + bounds.maxMs;
    for (const root of roots) this.#queue.push({ path: root, depth: 0, root, top: undefined });
  }

  /** Time the walk spent waiting for its caller (a background walk stepping aside) does not count against its time bound. */
  postpone(ms: number): void {
    this.#deadline += ms;
  }

  /**
   * Walk until done (true) or until `until` (a performance.now() time) has passed (false).
   * Throws SandboxPlanError past a bound; the caller calls `close` in any case.
   */
  step(until: number): boolean {
    const stop = Math.min(until, this.#deadline);
    for (;;) {
      if (++this.#since >= CLOCK_EVERY) {
        this.#since = 0;
        const now = performance.now();
        if (now >= this.#deadline) throw this.#timeUp();
        if (now >= stop) return false;
      }
      if (this.#listing !== undefined) {
        this.#read(this.#listing);
        continue;
      }
      const next = this.#queue[this.#head];
      if (next === undefined) return true;
      this.#queue[this.#head++] = undefined as never; // let it go
      this.#enter(next);
    }
  }

  /** What was found; call once `step` returned true. */
  findings(): WalkFindings {
    this.#cache.sweep(this.#generation, this.#head);
    const linked: string[] = [];
    for (const { count, paths } of this.#names.values()) if (paths.length < count) linked.push(...paths);
    if (linked.length > this.#bounds.maxLinked) {
      throw new SandboxPlanError(
        `The workspace has ${linked.length} files that also have names outside it (hard links, such as ${shortPath(linked[0]!)}), more than the ${this.#bounds.maxLinked} the sandbox mounts read-only one by one, so its rules cannot be built and nothing runs. ` +
          'A command writing through such a name would change the file outside the workspace too. Replace them with copies, or move them out of the workspace, from outside the agent.',
      );
    }
    return { ...this.#found, linked };
  }

  /** What was found so far (after a bound stopped the walk). */
  partial(): WalkFindings {
    return { ...this.#found, linked: [] };
  }

  /** Release the folder being read, if any. */
  close(): void {
    this.#listing?.dir.closeSync();
    this.#listing = undefined;
  }

  #enter(folder: Pending): void {
    let stat: BigIntStats;
    try {
      stat = lstatSync(folder.path, { bigint: true });
    } catch (error) {
      this.#cache.forget(folder.path);
      return this.#unreadable(folder, error);
    }
    if (!stat.isDirectory()) {
      // Swapped for a link or a file since its folder was listed: a link is never followed.
      this.#cache.forget(folder.path);
      return;
    }
    const known = this.#cache.get(folder.path, stat, this.#generation);
    if (known !== undefined) return this.#reuse(folder, known);
    let dir: Dir;
    try {
      // Small batches: the entry bound is checked as the folder is read, not after.
      dir = opendirSync(folder.path, { bufferSize: 64 });
    } catch (error) {
      this.#cache.forget(folder.path);
      return this.#unreadable(folder, error);
    }
    this.#listing = { ...folder, dir, stat, listed: { count: 0, hidden: [], readOnly: [], guarded: [], linked: [], modules: false, dirs: [] } };
  }

  #read(listing: Listing): void {
    let dirent: Dirent | null;
    try {
      dirent = listing.dir.readSync();
    } catch (error) {
      this.close();
      this.#cache.forget(listing.path);
      return this.#unreadable(listing, error);
    }
    if (dirent === null) {
      this.close();
      this.#cache.set(listing.path, listing.stat, listing.listed, this.#generation);
      return;
    }
    this.#count(listing, 1);
    listing.listed.count++;
    this.#take(listing, this.#judge(listing.path, dirent));
  }

  /** A folder unchanged since it was listed: what it gave then, with the link counts and stores of now. */
  #reuse(folder: Pending, listed: Listed): void {
    this.#count(folder, listed.count);
    for (const { name, dir } of listed.hidden) this.#found.hidden.push({ path: join(folder.path, name), dir });
    for (const name of listed.readOnly) this.#found.readOnly.push(join(folder.path, name));
    for (const name of listed.guarded) {
      const path = join(folder.path, name);
      this.#found.readOnly.push(path);
      this.#found.guarded.push(path);
    }
    for (const name of listed.linked) {
      const path = join(folder.path, name);
      const links = linksOf(path);
      if (links !== undefined) this.#linkedFile(path, links);
    }
    if (listed.modules) this.#store(join(folder.path, 'node_modules'));
    for (const name of listed.dirs) this.#subfolder(folder, join(folder.path, name));
  }

  /** One entry just judged: noted for the cache and taken into the findings. */
  #take(listing: Listing, entry: Entry): void {
    if (entry.kind === 'link') return;
    const { listed } = listing;
    const path = join(listing.path, entry.name);
    const found = this.#found;
    if (entry.verdict === 'hidden') {
      const dir = entry.kind === 'dir';
      listed.hidden.push({ name: entry.name, dir });
      return void found.hidden.push({ path, dir });
    }
    if (entry.verdict === 'read-only') {
      listed.readOnly.push(entry.name);
      return void found.readOnly.push(path);
    }
    if (entry.verdict === 'guarded') {
      listed.guarded.push(entry.name);
      found.readOnly.push(path);
      found.guarded.push(path);
      return;
    }
    if (entry.links !== undefined) {
      listed.linked.push(entry.name);
      this.#linkedFile(path, entry.links);
    }
    if (entry.kind !== 'dir') return;
    if (entry.name === 'node_modules') {
      listed.modules = true;
      this.#store(path);
    }
    if (SKIP_DIRS.has(entry.name)) return;
    listed.dirs.push(entry.name);
    this.#subfolder(listing, path);
  }

  #linkedFile(path: string, links: { count: number; id: string }): void {
    const names = this.#names.get(links.id);
    if (names === undefined) this.#names.set(links.id, { count: links.count, paths: [path] });
    else names.paths.push(path);
  }

  /**
   * pnpm's virtual store: each file there is a hard link into pnpm's store outside the
   * workspace, shared by every project. Mounted read-only as a whole (one mount, not one per
   * file); installing packages inside the sandbox fails anyway (the store is read-only).
   */
  #store(modules: string): void {
    const store = join(modules, '.pnpm');
    if (kindOf(store) === 'dir') this.#found.stores.push(store);
  }

  #subfolder(folder: Pending, path: string): void {
    if (folder.depth + 1 > this.#bounds.maxDepth) throw this.#tooDeep(path, folder.root);
    this.#queue.push({ path, depth: folder.depth + 1, root: folder.root, top: folder.top ?? path });
  }

  #judge(folder: string, dirent: Dirent): Entry {
    const name = dirent.name;
    const path = join(folder, name);
    if (path.length > MAX_PATH_BYTES / 4 && Buffer.byteLength(path) > MAX_PATH_BYTES) throw this.#tooLong(path);
    let kind: Kind = dirent.isDirectory() ? 'dir' : dirent.isFile() ? 'file' : dirent.isSymbolicLink() ? 'link' : 'other';
    let links: Entry['links'];
    if (kind === 'file' || (kind === 'other' && isUnknown(dirent))) {
      try {
        const st = lstatSync(path);
        // DT_UNKNOWN on some file systems: the stat says what it is.
        kind = st.isFile() ? 'file' : st.isDirectory() ? 'dir' : st.isSymbolicLink() ? 'link' : 'other';
        if (kind === 'file' && st.nlink > 1) links = { count: st.nlink, id: identity(path) };
      } catch {
        // gone since it was listed: judged by its name, as it was
      }
    }
    // A link's target is judged where it lives; mounting onto a link would mount onto its target.
    const verdict = kind === 'link' ? undefined : this.#profile.classify(path);
    return { name, kind, verdict, ...(links === undefined ? {} : { links }) };
  }

  #count(folder: Pending, n: number): void {
    this.#seen += n;
    if (folder.top !== undefined) this.#perTop.set(folder.top, (this.#perTop.get(folder.top) ?? 0) + n);
    if (this.#seen > this.#bounds.maxEntries) throw this.#tooMany(folder.path);
  }

  #unreadable(folder: Pending, error: unknown): void {
    const code = errnoCode(error);
    // Gone, or not a folder any more: nothing to mount there. Unreadable for us means unreadable
    // for the command too (same user, fewer capabilities).
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES' || code === 'EPERM') return;
    if (code === 'ENAMETOOLONG') throw this.#tooLong(folder.path);
    throw new SandboxPlanError(
      `The sandbox's rules cannot be built: the folder ${shortPath(folder.path)} could not be read (${code ?? String(error)}), so what is in it is unknown and nothing runs. Try again; if it persists, check that folder from outside the agent.`,
    );
  }

  #tooDeep(path: string, root: string): SandboxPlanError {
    const { maxDepth } = this.#bounds;
    return new SandboxPlanError(
      `The sandbox's rules cannot be built: the folder ${shortPath(path)} is more than ${maxDepth} levels below the workspace root ${shortPath(root)}, and the walk that finds secret files and Airlock's own files before each command goes no deeper, so nothing runs. ` +
        `Remove or move that folder tree from outside the agent (find ${quote(root)} -mindepth ${maxDepth} -type d -prune lists every folder that deep).`,
    );
  }

  #tooMany(at: string): SandboxPlanError {
    const { maxEntries } = this.#bounds;
    const biggest = [...this.#perTop].sort((a, b) => b[1] - a[1])[0];
    const where = biggest === undefined ? '' : ` The biggest folder at the top of the workspace is ${shortPath(biggest[0])} (${biggest[1]} of them).`;
    return new SandboxPlanError(
      `The sandbox's rules cannot be built: the workspace has more than ${maxEntries} files and folders to check for secrets (the walk was in ${shortPath(at)}), so nothing runs.${where} ` +
        "Move large data out of the workspace, or narrow the workspace roots (path-policy's roots option), from outside the agent.",
    );
  }

  #timeUp(): SandboxPlanError {
    const at = this.#listing?.path ?? this.#queue[this.#head]?.path;
    return new SandboxPlanError(
      `The sandbox's rules cannot be built: walking the workspace to find secret files took longer than ${this.#bounds.maxMs} ms (${this.#seen} files and folders so far${at === undefined ? '' : `, in ${shortPath(at)}`}), so nothing runs. ` +
        "A slow or very large folder is the usual cause: move it out of the workspace, or narrow the workspace roots (path-policy's roots option), from outside the agent.",
    );
  }

  #tooLong(path: string): SandboxPlanError {
    return new SandboxPlanError(
      `The sandbox's rules cannot be built: the path ${shortPath(path)} is longer than the system allows (${MAX_PATH_BYTES} bytes), so it cannot be checked for secrets and nothing runs. Remove or rename that folder tree from outside the agent.`,
    );
  }
}

/** A file or folder at `path` now: its kind, or undefined when it is a link or missing. */
export function kindOf(path: string): 'dir' | 'file' | undefined {
  try {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return undefined; // mounting onto a link would mount onto its target
    return st.isDirectory() ? 'dir' : 'file';
  } catch {
    return undefined;
  }
}

/**
 * A path short enough to read in a message: the start and the end of a long one, with the
 * number of folders left out.
 *
 * @example shortPath('/w/' + 'd/'.repeat(500) + 'x') // '/w/d/d/…(483 folders)…/d/d/x'
 */
export function shortPath(path: string, max = 120): string {
  if (path.length <= max) return path;
  const head = path.slice(0, Math.floor(max / 2));
  const tail = path.slice(path.length - Math.floor(max / 4));
  const headCut = head.lastIndexOf('/');
  const tailCut = tail.indexOf('/');
  const keptHead = headCut > 0 ? head.slice(0, headCut) : head;
  const keptTail = tailCut >= 0 ? tail.slice(tailCut + 1) : tail;
  const middle = path.slice(keptHead.length, path.length - keptTail.length);
  const folders = middle.split('/').length - 2;
  return `${keptHead}/…(${folders} folders)…/${keptTail}`;
}

function join(dir: string, name: string): string {
  return dir.endsWith('/') ? `${dir}${name}` : `${dir}/${name}`;
}

function isUnknown(dirent: Dirent): boolean {
  return !(dirent.isFIFO() || dirent.isSocket() || dirent.isCharacterDevice() || dirent.isBlockDevice());
}

/** A regular file's names now (how many, and which file), when it has more than one. */
function linksOf(path: string): { count: number; id: string } | undefined {
  try {
    const st = lstatSync(path, { bigint: true });
    return st.isFile() && st.nlink > 1n ? { count: Number(st.nlink), id: `${st.dev}:${st.ino}` } : undefined;
  } catch {
    return undefined; // gone: its folder changed, and is listed again next time
  }
}

/** Which file a path is, exactly (bigint: inode numbers can pass 2^53). */
function identity(path: string): string {
  try {
    const st = lstatSync(path, { bigint: true });
    return `${st.dev}:${st.ino}`;
  } catch {
    return `gone:${path}`;
  }
}

function quote(path: string): string {
  return `'${shortPath(path).replace(/'/g, `'\\''`)}'`;
}
