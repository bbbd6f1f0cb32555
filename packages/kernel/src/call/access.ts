import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { CallState } from '../state/call-state.js';

/**
 * What one call of a batch touches, as far as ordering is concerned: the files it reads and the
 * files it writes (each under every spelling the kernel can see), or `barrier` when that is not
 * known — a tool that declares no resources, or a process whose analysis is missing. A barrier
 * conflicts with every other call.
 */
export type Access = { readonly barrier: true } | { readonly barrier: false; readonly reads: readonly string[]; readonly writes: readonly string[] };

const BARRIER: Access = Object.freeze({ barrier: true });

/**
 * The access of a judged call, from the resources its tool declared.
 *
 * - `fs.read` / `fs.write`: that path.
 * - `exec` with `touches` (the tool analysed the command completely): the paths listed there;
 *   without `touches`: a barrier (a process may do anything).
 * - `net`: nothing on disk.
 *
 * Each path counts under its spelling as declared and its real path (the nearest existing folder
 * resolved), so a call through a symlink and a call on its target are the same file.
 *
 * @example accessOf(state) // { barrier: false, reads: ['/w/a.txt'], writes: [] }
 */
export function accessOf(state: CallState, realPaths: Map<string, string> = new Map()): Access {
  // A tool whose effects are unknown may touch more than it declares.
  if (state.tool?.tool.resources === undefined || state.tool.tool.effects === 'unknown') return BARRIER;
  const cwd = state.ctx?.cwd ?? process.cwd();
  const reads = new Set<string>();
  const writes = new Set<string>();
  for (const r of state.resources) {
    if (r.kind === 'fs.read') addSpellings(reads, r.path, cwd, realPaths);
    else if (r.kind === 'fs.write') addSpellings(writes, r.path, cwd, realPaths);
    else if (r.kind === 'exec') {
      const touches = r.touches;
      if (touches === undefined) return BARRIER;
      const base = r.cwd ?? cwd;
      for (const p of touches.reads) addSpellings(reads, p, base, realPaths);
      for (const p of touches.writes) addSpellings(writes, p, base, realPaths);
    }
  }
  return { barrier: false, reads: [...reads], writes: [...writes] };
}

/**
 * Must these two calls of one batch run one after the other (in the model's order)? Yes when
 * either is a barrier, or one writes a file the other reads or writes — the same file, a folder
 * and a file inside it (a write to a folder replaces what is in it; a write inside a folder
 * changes what a listing of it shows).
 *
 * @example conflicts({ barrier: false, reads: ['/w/a'], writes: [] }, { barrier: false, reads: [], writes: ['/w/a'] }) // true
 */
export function conflicts(a: Access, b: Access): boolean {
  if (a.barrier || b.barrier) return true;
  return overlaps(a.writes, b.reads) || overlaps(a.writes, b.writes) || overlaps(b.writes, a.reads);
}

/** Does this call change files for the calls after it (so they must be judged again)? */
export function changesFiles(access: Access): boolean {
  return access.barrier || access.writes.length > 0;
}

function overlaps(xs: readonly string[], ys: readonly string[]): boolean {
  for (const x of xs) for (const y of ys) if (related(x, y)) return true;
  return false;
}

function related(a: string, b: string): boolean {
  if (a === b || a === '/' || b === '/') return true;
  return a.length < b.length ? b.startsWith(a) && b[a.length] === '/' : a.startsWith(b) && a[b.length] === '/';
}

/**
 * `realPaths` caches real paths for the caller, which must drop it whenever a call that may
 * change files has finished (a link made since would be missed).
 */
function addSpellings(into: Set<string>, raw: string, cwd: string, realPaths: Map<string, string>): void {
  const path = isAbsolute(raw) ? resolve(raw) : resolve(cwd, raw);
  into.add(key(path));
  let real = realPaths.get(path);
  if (real === undefined) realPaths.set(path, (real = realish(path)));
  into.add(key(real));
}

/**
 * Compared folded: NFC (macOS stores NFD) and lower case (case-insensitive file systems). Folding
 * can only make two different files look the same, which costs some parallelism, never order.
 */
function key(path: string): string {
  return path.normalize('NFC').toLowerCase();
}

/** The real path of a path, or of its nearest existing folder joined with the rest. */
function realish(path: string): string {
  const rest: string[] = [];
  let current = path;
  for (;;) {
    // existsSync does not throw: a missing path (the common case for a new file) costs no exception.
    if (existsSync(current)) {
      try {
        return rest.length === 0 ? realpathSync.native(current) : join(realpathSync.native(current), ...rest.reverse());
      } catch {
        // a loop or no permission: compare it as written
        return path;
      }
    }
    const parent = dirname(current);
    if (parent === current) return path;
    rest.push(basename(current));
    current = parent;
  }
}
