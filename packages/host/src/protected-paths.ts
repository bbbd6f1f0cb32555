import { isAbsolute, join, resolve } from 'node:path';
import type { ProtectedLocation, ProtectedPaths } from '@airlock/kernel';
import { airlockConfigDir, airlockStateDir } from './extensions/dirs.js';
import { projectSearchDirs } from './settings/discover.js';
import type { ExtensionEntry } from './settings/index.js';

/**
 * Names (relative globs) that are settings wherever discovery looks: the cosmiconfig files, the
 * project's `.airlock/` folder (local rules), and cosmiconfig's own meta config, which can add
 * search places.
 */
export const SETTINGS_NAMES: readonly string[] = Object.freeze(['.airlockrc*', 'airlock.config.*', '.airlock/**', '.config/config.*']);

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
}

/**
 * The files that decide what Airlock allows, from the one place that knows them: the user config
 * folder (settings.json, trust.json, user extensions), the state folder (audit logs), the spill
 * folder, an explicit settings file or audit log, and the settings names in every folder
 * discovery reads. Handed to extensions as `api.protectedPaths`.
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
  const folders = projectSearchDirs(cwd, { homeDir, userConfigDir: configDir });
  if (input.projectDir !== undefined && !folders.includes(resolve(input.projectDir))) folders.push(resolve(input.projectDir));
  const trees = [...new Set([resolve(cwd), ...(input.projectDir === undefined ? [] : [resolve(input.projectDir)])])];
  return Object.freeze({
    locations: Object.freeze(locations.filter((l) => isAbsolute(l.path)).map((l) => Object.freeze(l))),
    settingsNames: SETTINGS_NAMES,
    settingsFolders: Object.freeze(folders),
    settingsTrees: Object.freeze(trees),
  });
}
