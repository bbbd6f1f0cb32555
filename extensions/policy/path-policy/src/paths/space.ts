import { realpathSync } from 'node:fs';
import type { Effect } from '@airlock/contract';
import type { PathPattern } from '../rules/types.js';
import type { FoldProbe } from './case-fold.js';

/**
 * How paths compare on this machine: the workspace roots and the home folder (each as written
 * and as its real path), and whether the filesystem a path lives on folds case.
 */
export interface PathSpace {
  roots: readonly string[];
  home: readonly string[];
  /** Does `pattern` match `path`? Case-folded where the filesystem folds case. */
  matches(pattern: PathPattern, path: string, effect: Effect): boolean;
  insideRoots(path: string): boolean;
}

/**
 * @example createPathSpace({ roots: ['/work'], home: '/home/u', probe }).insideRoots('/work/a') // true
 */
export function createPathSpace(o: { roots: readonly string[]; home: string; probe: FoldProbe }): PathSpace {
  const roots = withRealPaths(o.roots);
  const home = withRealPaths([o.home]);
  // Resolved once: a decision compares one path against dozens of patterns (every secret name),
  // and a realpath per comparison was most of a read's policy cost.
  const realRoots = o.roots.map((r) => real(r));
  const realHome = real(o.home);
  const lowerRoots = o.roots.map((r, i) => [r.toLowerCase(), realRoots[i]!.toLowerCase()]);
  const lowerHome = home.map((h) => h.toLowerCase());

  // Which filesystem a path is on, for the case probe: its root, else home, else "/". One probe each.
  const foldFor = (path: string): boolean | undefined => {
    const lower = path.toLowerCase();
    const index = lowerRoots.findIndex((spellings) => spellings.some((x) => within(lower, x)));
    if (index !== -1) return o.probe(realRoots[index]!);
    if (lowerHome.some((h) => within(lower, h))) return o.probe(realHome);
    return o.probe('/');
  };

  // A verdict compares one path with every rule and secret pattern in a row: prepare it once.
  let lastPath: string | undefined;
  let lastText = '';
  let lastFolds: boolean | undefined;
  const prepare = (path: string): void => {
    if (path === lastPath) return;
    lastText = path.normalize('NFC');
    lastFolds = foldFor(lastText);
    lastPath = path;
  };

  return {
    roots,
    home,
    matches(pattern, path, effect) {
      prepare(path);
      const text = lastText;
      const folds = lastFolds;
      // Unknown: a deny or ask compares case-blind (it may only match more), an allow exactly.
      const fold = folds ?? effect !== 'allow';
      return (fold ? pattern.folded : pattern.exact).some((re) => re.test(text));
    },
    insideRoots(path) {
      const text = path.normalize('NFC');
      // Only a filesystem known to fold case lets "/WORK/x" count as inside "/work".
      const fold = foldFor(text) === true;
      const norm = (s: string) => (fold ? s.toLowerCase() : s);
      return roots.some((r) => within(norm(text), norm(r)));
    },
  };
}

function within(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

function real(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

function withRealPaths(dirs: readonly string[]): string[] {
  return [...new Set(dirs.flatMap((d) => [d, real(d)]).map((d) => d.normalize('NFC')))];
}
