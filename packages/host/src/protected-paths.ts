import { extname, isAbsolute, join, resolve } from 'node:path';
import type { ProtectedLocation, ProtectedPaths } from '@airlock/contract';
import { DEFAULT_EXTENSIONS } from './extensions/defaults.js';
import { airlockConfigDir, airlockStateDir, defaultExtensionDirs } from './extensions/dirs.js';
import { LOADABLE } from './extensions/manifest.js';
import { projectSearchDirs } from './settings/discover.js';
import type { ExtensionEntry } from './settings/index.js';

/**
 * Names (relative globs) that are settings wherever discovery looks: the cosmiconfig files, the
 * project's `.airlock/` folder (local rules), cosmiconfig's own meta config, which can add
 * search places, and the lock beside the settings (`airlock-lock.json`): a model that could
 * rewrite it could re-pin a package it had edited in node_modules.
 */
export const SETTINGS_NAMES: readonly string[] = Object.freeze(['.airlockrc*', 'airlock.config.*', '.airlock/**', '.config/config.*', 'airlock-lock.json']);

const AUDIT_PACKAGE = '@airlock/audit-log';

export interface ProtectedPathsInput {
  cwd: string;
  homeDir: string;
  env: Readonly<Record<string, string | undefined>>;
  /** The project folder settings were found in, if any. */
  projectDir?: string;
  /** An explicit --settings file. */
  settingsFile?: string;
  /** The kernel's spill root (the parent of the per-session folders). */
  spillRoot: string;
  /** Extensions settings list: an audit log moved elsewhere with `path` is protected there. */
  extensions: readonly ExtensionEntry[];
  /** @deprecated Ignored: the default set always counts (settings add to it). */
  extensionsListed?: boolean;
  /** Where Airlock itself and its built-in extensions are installed. Default: defaultExtensionDirs(). */
  installDirs?: readonly string[];
}

/**
 * The files that decide what Airlock allows, from the one place that knows them: the user config
 * folder (settings.json, trust.json, user extensions), the state folder (audit logs), the spill
 * folder, an explicit settings file or audit log, the settings names in every folder discovery
 * reads, and the extensions settings load (a path extension's folder; a package's name under any
 * node_modules there, which would shadow it). Handed to extensions as `api.protectedPaths`.
 *
 * @example
 * protectedPaths({ cwd: '/home/u/app', homeDir: '/home/u', env: {}, spillRoot: '/tmp/airlock-spill-1000', extensions: [] }).settingsFolders
 * // ['/home/u/app']
 */
export function protectedPaths(input: ProtectedPathsInput): ProtectedPaths {
  const { cwd, homeDir, env } = input;
  const configDir = airlockConfigDir(env, homeDir);
  const locations: ProtectedLocation[] = [
    { path: configDir, kind: 'folder', what: 'your Airlock config folder (settings, trust, extensions)' },
    { path: airlockStateDir(env, homeDir), kind: 'folder', what: "Airlock's state folder (audit logs)" },
    { path: input.spillRoot, kind: 'folder', what: "Airlock's spill folder (full tool outputs)" },
  ];
  if (input.settingsFile !== undefined) locations.push({ path: resolve(cwd, input.settingsFile), kind: 'file', what: 'the settings file given with --settings' });
  for (const entry of input.extensions) {
    const path = entry.spec === AUDIT_PACKAGE && entry.enabled ? entry.options.path : undefined;
    // Resolved as audit-log resolves it; the prefix covers its rotations (<stem>.N.jsonl) and its lock.
    if (typeof path === 'string' && path !== '') {
      const file = path === '~' || path.startsWith('~/') ? join(homeDir, path.slice(1)) : resolve(cwd, path);
      locations.push({ path: file.replace(/\.jsonl$/, '.'), kind: 'prefix', what: 'the audit log (and its rotated files)' });
    }
  }
  // The code that enforces the policy: a package of the same name in a trusted project's
  // node_modules (or a parent's) would be loaded instead of it at the next start.
  const bare = [...DEFAULT_EXTENSIONS, ...input.extensions.filter((e) => e.kind === 'package' && e.enabled).map((e) => e.spec)];
  const packages = [...new Set(bare)].map((name) => `node_modules/${name}/**`);
  for (const entry of input.extensions) {
    // A path extension is protected unless it is the project itself (or holds it): then it is the work.
    if (entry.kind === 'path' && entry.enabled && entry.path !== undefined && !within(resolve(cwd), entry.path)) {
      // A single-file extension is its file: its folder may be a home or a project full of other work.
      const kind = LOADABLE.has(extname(entry.path)) ? 'file' : 'folder';
      locations.push({ path: entry.path, kind, what: `the extension ${entry.spec} that settings load` });
    }
  }
  // Airlock's own code, unless the project is Airlock's own workspace (then it is the work).
  for (const dir of input.installDirs ?? installDirs(env, homeDir)) {
    if (!within(resolve(cwd), dir) && !within(dir, resolve(cwd))) locations.push({ path: dir, kind: 'folder', what: "Airlock's own installation (its code and built-in extensions)" });
  }
  const folders = projectSearchDirs(cwd, { homeDir, userConfigDir: configDir });
  if (input.projectDir !== undefined && !folders.includes(resolve(input.projectDir))) folders.push(resolve(input.projectDir));
  const trees = [...new Set([resolve(cwd), ...(input.projectDir === undefined ? [] : [resolve(input.projectDir)])])];
  return Object.freeze({
    locations: Object.freeze(locations.filter((l) => isAbsolute(l.path)).map((l) => Object.freeze(l))),
    settingsNames: Object.freeze([...SETTINGS_NAMES, ...packages]),
    settingsFolders: Object.freeze(folders),
    settingsTrees: Object.freeze(trees),
    spillRoot: input.spillRoot,
  });
}

/** `dir` is `path` or a folder above it. */
function within(path: string, dir: string): boolean {
  const d = resolve(dir);
  return path === d || path.startsWith(d.endsWith('/') ? d : `${d}/`);
}

function installDirs(env: Readonly<Record<string, string | undefined>>, homeDir: string): string[] {
  try {
    const dirs = defaultExtensionDirs(env, homeDir);
    return [...dirs.builtinRoots, ...dirs.builtinPackageDirs];
  } catch {
    return []; // Not found (an unusual bundle): nothing to add; the settings and state stay protected.
  }
}
