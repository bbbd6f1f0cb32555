import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExtensionDirs } from './types.js';
import { airlockStateHome } from '@airlock/toolkit/util';

/**
 * The folders Airlock reads per user and ships from. Everything is a parameter elsewhere, so
 * tests pass temporary folders; these functions give the defaults.
 */

/**
 * `$XDG_CONFIG_HOME/airlock`, or `~/.config/airlock`. A relative XDG_CONFIG_HOME is ignored, as
 * the XDG spec asks (it would make the folder depend on where the command runs).
 *
 * @example
 * airlockConfigDir({ XDG_CONFIG_HOME: '/home/me/.cfg' }); // '/home/me/.cfg/airlock'
 */
export function airlockConfigDir(env: Readonly<Record<string, string | undefined>> = process.env, home: string = homedir()): string {
  const xdg = env.XDG_CONFIG_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(home, '.config'), 'airlock');
}

let hostDirCache: string | undefined;
const INSTALL_PACKAGES = ['@airlock/host', '@airlock/cli'];

/**
 * Where Airlock is installed: the @airlock/host package folder when the host runs from src/
 * (tests, `source` condition) or dist/, or the @airlock/cli folder when it runs inside the CLI's
 * single-file bundle (packages/cli/dist/airlock.mjs).
 */
export function hostPackageDir(): string {
  if (hostDirCache !== undefined) return hostDirCache;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file) && INSTALL_PACKAGES.includes(packageName(file) as string)) return (hostDirCache = dir);
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`@airlock/host: no package.json named @airlock/host or @airlock/cli above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

/** The workspace's extension folders by role, as pnpm-workspace.yaml lists them. */
const WORKSPACE_EXTENSION_GROUPS = ['tools', 'policy', 'lib'] as const;

/**
 * Where Airlock looks for extensions:
 * - the user's folder `<config>/extensions` (its node_modules holds what `npm i --prefix` installed);
 * - Airlock's own install: the node_modules chain above the host package;
 * - in Airlock's own workspace only, the folders under `extensions/` that hold packages
 *   (`tools`, `policy`, `lib`; checked by finding this very host package at `packages/host`, so a
 *   user's unrelated pnpm workspace never counts as Airlock's).
 *
 * @example
 * const dirs = defaultExtensionDirs(process.env); // dirs.userExtensions === '~/.config/airlock/extensions'
 */
export function defaultExtensionDirs(env: Readonly<Record<string, string | undefined>> = process.env, home: string = homedir()): ExtensionDirs {
  const hostDir = hostPackageDir();
  const root = dirname(dirname(hostDir));
  const builtinPackageDirs: string[] = [];
  if (existsSync(join(root, 'pnpm-workspace.yaml')) && existsSync(join(root, 'extensions')) && sameFolder(join(root, 'packages', basename(hostDir)), hostDir)) {
    for (const group of WORKSPACE_EXTENSION_GROUPS) builtinPackageDirs.push(join(root, 'extensions', group));
  }
  return { userExtensions: join(airlockConfigDir(env, home), 'extensions'), builtinRoots: [hostDir], builtinPackageDirs };
}

function packageName(file: string): unknown {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown }).name;
  } catch {
    return undefined;
  }
}

function sameFolder(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/**
 * `$XDG_STATE_HOME/airlock`, or `~/.local/state/airlock`: where Airlock keeps state such as
 * audit logs. A relative XDG_STATE_HOME is ignored, as the XDG spec asks.
 *
 * @example
 * airlockStateDir({ XDG_STATE_HOME: '/home/me/.st' }); // '/home/me/.st/airlock'
 */
export function airlockStateDir(env: Readonly<Record<string, string | undefined>> = process.env, home: string = homedir()): string {
  return airlockStateHome({ env, home });
}
