import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { isPermissionDenied } from '@airlock/toolkit/util';
import { existingVariants, PathError, resolveToolPath, spellingKey } from '@airlock/tool-common';

/** Characters resolveToolPath rewrites (a leading @, Unicode spaces): such a path takes the full route. */
const REWRITTEN = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/;

/** Symlink hops followed before a path counts as a loop (Linux's own limit is 40). */
const MAX_HOPS = 40;

/**
 * Every spelling of one file a policy must judge: the path as the model wrote it (resolved like
 * the tools resolve it), each symlink it passes through, and the real file. A deny on any of
 * them denies; an allow must cover all of them.
 */
export type Canonical = { ok: true; given: string; paths: string[] } | { ok: false; given: string; reason: string };

/**
 * `seen`: answers already found for this same moment (one decision), by the path they resolve
 * to: a tool names its file twice (as written, and resolved), and both lead to the same lookups.
 * Never kept across calls: a link may be swapped between two.
 *
 * @example canonicalPaths('~/link', '/work', '/home/u') // { ok: true, paths: ['/home/u/link', '/etc/passwd'] }
 */
export function canonicalPaths(raw: string, cwd: string, home: string, seen?: Map<string, Canonical>): Canonical {
  if (raw.includes('\0')) return { ok: false, given: raw, reason: 'the path contains a NUL byte, which no file name can hold' };
  let lexical: string;
  try {
    lexical = resolveToolPath(raw, cwd, home);
  } catch (error) {
    if (error instanceof PathError) return { ok: false, given: raw, reason: error.message };
    throw error;
  }
  // The kernel resolves ".." after symlinks (physically), not as text: follow the path as written.
  const written = expandHome(raw.startsWith('@') ? raw.slice(1) : raw, home);
  const physical = isAbsolute(written) ? written : `${cwd.replace(/\/+$/, '')}/${written}`;
  const key = physical === lexical ? lexical : `${lexical}\0${physical}`;
  const known = seen?.get(key);
  if (known !== undefined) return { ...known, given: raw };
  const found = lookUp(raw, lexical, physical);
  seen?.set(key, found);
  return found;
}

function lookUp(raw: string, lexical: string, physical: string): Canonical {
  const paths = new Set<string>([lexical]);
  try {
    // Usually one and the same (no `..`, no `.`): then its links and real path are looked up once.
    for (const start of physical === lexical ? [lexical] : [lexical, physical]) {
      for (const hop of linkHops(start)) paths.add(hop);
      paths.add(realTarget(start, 0, paths));
    }
    for (const variant of spellingVariants(lexical)) {
      paths.add(variant);
      paths.add(realTarget(variant, 0, paths));
    }
  } catch (error) {
    if (error instanceof Unresolvable) return { ok: false, given: raw, reason: error.message };
    throw error;
  }
  return { ok: true, given: raw, paths: withSpellings([...paths].map((p) => p.normalize('NFC'))) };
}

/**
 * canonicalPaths for one file of a tree walk, in two system calls or fewer instead of a dozen:
 * for an absolute, normalized path that exists and is not a symlink, the spellings are the path
 * and its folder's real path joined with its name. `realDirs` caches folders' real paths; the
 * caller keeps it for one call only (a folder may be swapped for a link between calls). Anything
 * else (a link, a missing file, a path with `..`) goes the full way, so the answers are the same.
 * `notLink`: the caller has just seen that the path is no symlink (a walk's listing), so it is not
 * looked at again.
 *
 * @example canonicalFilePaths('/work/src/a.ts', '/work', '/home/u', new Map()) // { ok: true, paths: ['/work/src/a.ts'] }
 */
export function canonicalFilePaths(raw: string, cwd: string, home: string, realDirs: Map<string, string>, notLink = false): Canonical {
  const cut = raw.lastIndexOf('/');
  if (cut < 0 || !isAbsolute(raw) || raw.includes('\0') || REWRITTEN.test(raw) || resolve(raw) !== raw) return canonicalPaths(raw, cwd, home);
  let link = false;
  if (!notLink) {
    try {
      link = lstatSync(raw).isSymbolicLink();
    } catch {
      return canonicalPaths(raw, cwd, home);
    }
  }
  if (link) return canonicalPaths(raw, cwd, home);
  const dir = cut === 0 ? '/' : raw.slice(0, cut);
  const real = realDir(dir, realDirs);
  if (real === undefined) return canonicalPaths(raw, cwd, home);
  const given = raw.normalize('NFC');
  const target = `${real === '/' ? '' : real}${raw.slice(cut)}`.normalize('NFC');
  return { ok: true, given: raw, paths: withSpellings(given === target ? [given] : [given, target]) };
}

/**
 * A folder's real path, from the cache, else from its parent's cached real path when the folder
 * itself is not a link (one lstat), else from realpath. A walk asks about the folders of a
 * branch top down: realpath would look up every component of every folder again, which costs
 * the square of the depth per folder (a chain of 2,000 folders took minutes).
 */
function realDir(dir: string, realDirs: Map<string, string>): string | undefined {
  const known = realDirs.get(dir);
  if (known !== undefined) return known;
  const cut = dir.lastIndexOf('/');
  const parent = cut <= 0 ? undefined : realDirs.get(dir.slice(0, cut));
  let real: string;
  try {
    real = parent !== undefined && lstatSync(dir).isDirectory() ? `${parent === '/' ? '' : parent}${dir.slice(cut)}` : realpathSync.native(dir);
  } catch {
    return undefined;
  }
  realDirs.set(dir, real);
  return real;
}

/**
 * The paths and, where different, the same paths with the file name folded (tool-common's
 * spellingKey: plain spaces, straight quotes): a rule written with a plain space still covers the
 * file whose name has a narrow no-break space, as the tools would open either for the other. Only
 * the name is folded: a folded folder could leave the workspace (a root named with U+00A0).
 */
function withSpellings(paths: readonly string[]): string[] {
  const all = new Set(paths);
  for (const p of paths) {
    const cut = p.lastIndexOf('/');
    all.add(p.slice(0, cut + 1) + spellingKey(p.slice(cut + 1)));
  }
  return [...all];
}

class Unresolvable extends Error {}

/**
 * Errors that end resolution without making the path unsafe: it does not exist (yet), or a
 * folder on the way cannot be searched. The tool runs as the same user, so it cannot pass that
 * folder either: the path is judged as written under its nearest readable parent, and the tool
 * itself reports "permission denied". Loops and anything else are unresolvable: deny.
 */
const PASSABLE = new Set(['ENOENT', 'ENOTDIR', 'EACCES', 'EPERM']);

function expandHome(path: string, home: string): string {
  if (path === '~') return home;
  return path.startsWith('~/') ? `${home}${path.slice(1)}` : path;
}

/**
 * The real path of a file that may not exist yet: the real path of its nearest existing parent
 * joined with the rest, following dangling links (a write through one creates its target).
 * Any error other than "does not exist" (a loop, no permission) makes the path unresolvable.
 */
function realTarget(path: string, hops: number, seen: Set<string>): string {
  try {
    return realpathSync.native(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!PASSABLE.has(code ?? '')) throw unresolvable(path, code);
  }
  const link = readLinkIfAny(path);
  if (link !== undefined) {
    if (hops >= MAX_HOPS) throw new Unresolvable(`symlinks starting at ${path} go round in a loop (more than ${MAX_HOPS} hops)`);
    const target = isAbsolute(link) ? link : `${dirname(path)}/${link}`;
    seen.add(resolve(target));
    return realTarget(target, hops + 1, seen);
  }
  const cut = path.replace(/\/+$/, '').lastIndexOf('/');
  if (cut <= 0) return resolve(path);
  const parent = path.slice(0, cut);
  const name = path.slice(cut + 1);
  return resolve(realTarget(parent, hops, seen), name);
}

/** The links a path passes through as its last component is followed (a → b → c gives b, c). */
function linkHops(path: string): string[] {
  const hops: string[] = [];
  let current = path;
  for (let i = 0; i < MAX_HOPS; i++) {
    const link = readLinkIfAny(current);
    if (link === undefined) return hops;
    current = resolve(dirname(current), link);
    hops.push(current);
  }
  throw new Unresolvable(`symlinks starting at ${path} go round in a loop (more than ${MAX_HOPS} hops)`);
}

function readLinkIfAny(path: string): string | undefined {
  try {
    if (!lstatSync(path).isSymbolicLink()) return undefined;
    return readlinkSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (PASSABLE.has(code ?? '')) return undefined;
    throw unresolvable(path, code);
  }
}

function unresolvable(path: string, code: string | undefined): Unresolvable {
  if (code === 'ELOOP') return new Unresolvable(`symlinks at ${path} go round in a loop`);
  if (isPermissionDenied(code)) return new Unresolvable(`a folder on the way to ${path} cannot be read (permission denied), so where it leads is unknown`);
  return new Unresolvable(`${path} cannot be resolved (${code ?? 'unknown error'})`);
}

/**
 * The tools open a spelling variant (another kind of space, Unicode form, curly quotes) when
 * the given path does not exist (tool-common's existingVariants): the policy judges each of
 * those too, so a variant never reads past a rule written for the real name.
 */
function spellingVariants(path: string): string[] {
  return existingVariants(path);
}
