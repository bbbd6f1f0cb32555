import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { defaultExtensionDirs, hostPackageDir } from '@airlock/host';
import { runPackageManager } from './package-manager.js';

/**
 * Airlock's own packages as the running CLI has them: the installed CLI carries every official
 * package (the kernel, its libraries and every extension, scripts/pack.mjs), and a checkout has
 * them in its workspace. `extensions add` takes `@airlock/*` from here instead of a registry:
 * nobody can publish a package under that scope name first and have it installed, it works
 * offline, and the version is always the one this kernel was built with.
 */

/** One of Airlock's packages in the running CLI's copy. */
export interface OwnPackage {
  name: string;
  version: string;
  /** Its real folder. */
  dir: string;
}

const SCOPE = '@airlock/';

/**
 * Every `@airlock/*` package the running CLI can hand out, by name: those installed with it (the
 * node_modules chain above the CLI or host package), then, in a checkout, the workspace's.
 *
 * @example ownCopy().get('@airlock/command-hooks') // { name: '@airlock/command-hooks', version: '1.0.0', dir: '/usr/lib/node_modules/@airlock/cli/node_modules/@airlock/command-hooks' }
 */
export function ownCopy(): Map<string, OwnPackage> {
  const found = new Map<string, OwnPackage>();
  const add = (dir: string) => {
    const pkg = readPackage(dir);
    if (pkg === undefined || !pkg.name.startsWith(SCOPE) || found.has(pkg.name)) return;
    found.set(pkg.name, { name: pkg.name, version: pkg.version, dir: realpathSync(dir) });
  };
  const dirs = defaultExtensionDirs();
  for (const root of dirs.builtinRoots) {
    for (let dir = root; ; dir = dirname(dir)) {
      const scope = join(dir, 'node_modules', '@airlock');
      for (const name of list(scope)) add(join(scope, name));
      if (dirname(dir) === dir) break;
    }
  }
  // A checkout: packages/* beside the host, and the extension folders the host searches.
  if (dirs.builtinPackageDirs.length > 0) for (const name of list(dirname(hostPackageDir()))) add(join(dirname(hostPackageDir()), name));
  for (const folder of dirs.builtinPackageDirs) for (const name of list(folder)) add(join(folder, name));
  return found;
}

/**
 * npm `overrides` that make every `@airlock/*` package in a dependency tree a link to the CLI's
 * own copy: written into the package.json of the folders Airlock installs into itself (the
 * staging folder, the user's extension folder), so no registry is asked for the scope. A link,
 * not a copy: the package then shares the running Airlock's modules.
 */
export function ownCopyOverrides(copy: ReadonlyMap<string, OwnPackage>): Record<string, string> {
  return Object.fromEntries([...copy.values()].sort((a, b) => a.name.localeCompare(b.name)).map((p) => [p.name, `file:${p.dir}`]));
}

/** `@airlock/command-hooks@^1` → `{ name: '@airlock/command-hooks', range: '^1' }`; other specs → undefined. */
export function officialSpec(spec: string): { name: string; range?: string } | undefined {
  const match = /^(@airlock\/[a-z0-9][a-z0-9._~-]*)(?:@(.+))?$/i.exec(spec);
  if (match === null) return undefined;
  return { name: match[1]!, ...(match[2] === undefined ? {} : { range: match[2] }) };
}

/**
 * The registry the person configured for the `@airlock` scope (`@airlock:registry` in an .npmrc
 * or the environment), as npm sees it from `cwd`; undefined when there is none. Only then does
 * a registry serve `@airlock/*`.
 */
export async function airlockScopeRegistry(cwd: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const fromEnv = env['npm_config_@airlock:registry'] ?? env['NPM_CONFIG_@AIRLOCK:REGISTRY'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const asked = await runPackageManager('npm', ['config', 'get', '@airlock:registry'], cwd, env);
  const value = asked.output.trim();
  return asked.code === 0 && value !== '' && value !== 'undefined' && value !== 'null' ? value : undefined;
}

/** The `@airlock/*` packages a staged install linked from the CLI's copy (see ownCopyOverrides). */
export function airlockPackagesIn(nodeModules: string): string[] {
  return list(join(nodeModules, '@airlock')).map((name) => `${SCOPE}${name}`);
}

function readPackage(dir: string): { name: string; version: string } | undefined {
  const file = join(dir, 'package.json');
  if (!existsSync(file)) return undefined;
  try {
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
    return typeof pkg.name === 'string' && typeof pkg.version === 'string' ? { name: pkg.name, version: pkg.version } : undefined;
  } catch {
    return undefined;
  }
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir).filter((name) => !name.startsWith('.')).sort();
  } catch {
    return [];
  }
}
