import { lstatSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ProtectedPaths, SpillMarkerName } from '@airlock/contract';
import { LinearRegExp } from '@airlock/toolkit/util';
import type { PathSpace } from './paths/space.js';
import { escapeDir, pathPattern, type Anchors } from './rules/compile.js';
import type { PathPattern } from './rules/types.js';
import { isLiteralPattern, type GlobOrigin } from './glob.js';

/**
 * Airlock's own files as path-policy judges them. Built from the host's `api.protectedPaths`;
 * compared like rules are (NFC, case-folded where the filesystem folds case, every spelling of a
 * path), but outside the rule system, so no allow rule, saved answer or settings layer lifts it.
 */
export interface ProtectedSet {
  /** What protected location `path` is or lies inside, if any. */
  covering(path: string): string | undefined;
  /** What protected location `path` holds (is a folder above, or is), if any: removing it or linking to it reaches that location. */
  holding(path: string): string | undefined;
  /**
   * What protected location a command's text names, if any: a settings file name, or a protected
   * folder (absolute, or its part below home: `.config/airlock`). For programs whose file use the analysis does not know
   * (`python -c`, `git checkout --`, `rsync`, `tar -C`): a hint, not a proof.
   */
  mentioned(text: string): string | undefined;
  /**
   * Whether `path` is a file in a session folder of this user's spill folder
   * (`<spillRoot>/<session>/<file>`, in any spelling of the root, the folder holding the kernel's
   * session marker): one a tool result named, which tools may read without asking. Only this one
   * path: the caller judges every spelling (the real target of a link included) on its own.
   */
  spillFile(path: string): boolean;
}

/** Literal stems of the settings names: a command text containing one names a settings file. */
const SETTINGS_STEMS = ['.airlockrc', 'airlock.config.', '.airlock/', 'airlock-lock.json'];

interface Place {
  /** The location and its real path, NFC, without a trailing slash. */
  spellings: string[];
  what: string;
}

/**
 * @example
 * const set = compileProtected({ locations: [{ path: '/home/u/.config/airlock', kind: 'folder', what: 'the config folder' }],
 *   settingsNames: ['.airlockrc*'], settingsFolders: ['/p'], settingsTrees: ['/p'] }, ['/p'], anchors, space);
 * set.covering('/home/u/.config/airlock/trust.json'); // 'the config folder'
 * set.holding('/home/u'); // 'the config folder'
 */
export function compileProtected(paths: ProtectedPaths | undefined, roots: readonly string[], anchors: Anchors, space: PathSpace): ProtectedSet | undefined {
  if (paths === undefined) return undefined;
  const patterns: { pattern: PathPattern; what: string; origin: GlobOrigin }[] = [];
  const places: Place[] = [];
  // Every path from outside is escaped (escapeDir), so the wildcards are Airlock's, except in
  // the name of an extension package settings load, which is judged by its own text.
  const add = (glob: string, what: string, origin: GlobOrigin = 'airlock') => patterns.push({ pattern: pathPattern(`/${glob}`, 'deny', anchors, origin), what, origin });
  const nameOrigin = (name: string): GlobOrigin => (name.startsWith('node_modules/') && !isLiteralPattern(name.slice(13, -3)) ? 'outside' : 'airlock');

  for (const l of paths.locations) {
    const dir = escapeDir(l.path);
    add(l.kind === 'folder' ? `${dir}/**` : l.kind === 'prefix' ? `${dir}*` : dir, l.what);
    places.push({ spellings: spellings(l.kind === 'prefix' ? l.path.slice(0, l.path.lastIndexOf('/')) || '/' : l.path), what: l.what });
  }
  const nameWhat = (name: string, where: string) =>
    name.startsWith('node_modules/') ? `the code of an extension Airlock loads (${name.slice(13, -3)})` : `an Airlock settings file${where}`;
  for (const folder of paths.settingsFolders) {
    for (const name of paths.settingsNames) add(`${escapeDir(folder)}/${name}`, nameWhat(name, ` (read from ${folder})`), nameOrigin(name));
    places.push({ spellings: spellings(folder), what: `a folder whose Airlock settings are read (${folder})` });
  }
  // Any folder below the project (or a workspace root) becomes a settings folder when a run starts there.
  for (const tree of new Set([...paths.settingsTrees, ...roots])) {
    for (const name of paths.settingsNames) add(`${escapeDir(tree)}/**/${name}`, nameWhat(name, ''), nameOrigin(name));
  }

  // Allow patterns (exact case): a file one session folder down, under the root as given and as
  // its real path, since the real path of a spill file is judged too.
  const spillFiles: PathPattern[] =
    paths.spillRoot === undefined ? [] : [...new Set([paths.spillRoot, realOrSelf(paths.spillRoot)])].map((root) => pathPattern(`/${escapeDir(root)}/*/*`, 'allow', anchors, 'airlock'));

  const home = anchors.home[0];
  const stems: { text: string; what: string }[] = SETTINGS_STEMS.map((text) => ({ text, what: 'an Airlock settings file' }));
  for (const l of paths.locations) {
    const path = l.kind === 'prefix' ? l.path : l.path.replace(/\/+$/, '');
    stems.push({ text: path, what: l.what });
    // Below home, the part after it: `~/.config/airlock`, `$HOME/.config/airlock` and `os.homedir() + '/.config/airlock'` all contain it.
    if (home !== undefined && path.startsWith(`${home}/`)) stems.push({ text: path.slice(home.length + 1), what: l.what });
  }

  // One alternation for the common case (no match): a decision compares every spelling of every
  // file against about a hundred patterns, and one regex is several times faster than a loop.
  // Linear time like each pattern in it (glob.ts) when one came from outside.
  const allOurs = patterns.every((p) => p.origin === 'airlock');
  const union = (res: RegExp[], flags: string) => {
    const source = res.map((r) => `(?:${r.source})`).join('|');
    return allOurs ? new RegExp(source, flags) : new LinearRegExp(source, flags);
  };
  const any: PathPattern = {
    text: 'airlock-protected',
    anchor: 'absolute',
    globs: patterns.flatMap((p) => p.pattern.globs),
    exact: [union(patterns.flatMap((p) => p.pattern.exact), 'u')],
    folded: [union(patterns.flatMap((p) => p.pattern.folded), 'iu')],
  };

  return {
    mentioned(text) {
      const lower = text.toLowerCase();
      // `.airlock` as a whole word (a folder) also names the local rules.
      if (/(^|[\s'"=/])\.airlock($|[\s'"/;)])/.test(lower)) return 'an Airlock settings folder (.airlock)';
      return stems.find((s) => lower.includes(s.text.toLowerCase()))?.what;
    },
    spillFile(path) {
      // The marker keeps a spillDir set to a busy folder ("..") from opening its neighbours:
      // only the kernel writes markers there (the whole spill root is protected from tools).
      return spillFiles.some((p) => space.matches(p, path, 'allow')) && isSpillSession(dirname(path));
    },
    covering(path) {
      if (patterns.length === 0 || !space.matches(any, path, 'deny')) return undefined;
      return patterns.find((p) => space.matches(p.pattern, path, 'deny'))?.what;
    },
    holding(path) {
      // Case-blind: a deny that may match more is safe, and it spares a probe per location.
      const text = path.normalize('NFC').replace(/\/+$/, '').toLowerCase() || '/';
      const prefix = text === '/' ? '/' : `${text}/`;
      return places.find((p) => p.spellings.some((s) => s === text || s.startsWith(prefix)))?.what;
    },
  };
}

const SPILL_MARKER: SpillMarkerName = '.airlock-spill-session';

function isSpillSession(folder: string): boolean {
  try {
    const marker = lstatSync(join(folder, SPILL_MARKER));
    return marker.isFile() && (process.getuid === undefined || marker.uid === process.getuid());
  } catch {
    return false;
  }
}

function realOrSelf(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path; // not made yet: as written
  }
}

function spellings(path: string): string[] {
  const all = [path];
  try {
    all.push(realpathSync.native(path));
  } catch {
    // Not there yet: as written.
  }
  return [...new Set(all.map((p) => p.normalize('NFC').replace(/\/+$/, '').toLowerCase() || '/'))];
}
