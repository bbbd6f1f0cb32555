import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { checkKernelRange, readManifest, userConfigDir } from '@airlock/host';
import { displayText } from '@airlock/toolkit/display';
import { KERNEL_VERSION } from '@airlock/kernel';
import { projectTrust } from './project-trust.js';
import { detectPackageManager, packageManagerArgs, runPackageManager, type PackageManager, type Spawned } from './package-manager.js';
import { ownCopy, ownCopyOverrides } from './own-copy.js';
import { editableSettings, type EditableSettings } from './settings-edit.js';
import { UsageError, type IO } from '../io.js';
import type { GlobalOptions } from '../global-options.js';

/**
 * Where `extensions add`, `update` and `remove` work: the project (its settings file, its
 * package manager, its node_modules) or the user (`--user`: the user settings and the user's
 * extension folder, which Airlock installs into with npm and owns).
 */
export interface InstallTarget {
  layer: 'project' | 'user';
  /** The settings as they are now (read again after an install: package.json may be the settings file). */
  settings(): Promise<EditableSettings>;
  /** The folder whose node_modules receives packages. */
  dir: string;
  manager: PackageManager;
  lockfile?: string;
  /** Airlock's own folder (the user's): its package.json may carry overrides that point `@airlock/*` at the CLI's copy. */
  owned: boolean;
}

/**
 * The project target. `requireTrust`: adding or updating needs a trusted project (its settings
 * could not load the package otherwise); removing does not.
 */
export async function projectTarget(spec: string, g: GlobalOptions, io: IO, options: { requireTrust: boolean }): Promise<InstallTarget> {
  const cwd = resolve(io.cwd, g.cwd ?? '.');
  const home = io.env.HOME ?? homedir();
  const settings = () =>
    editableSettings(cwd, { homeDir: home, userConfigDir: userConfigDir(io.env, home) }, spec).catch((error: Error & { hint?: string }) => {
      throw new UsageError(error.message, error.hint);
    });
  const dir = (await settings()).dir;
  if (options.requireTrust) {
    const trust = await projectTrust(dir, g.trust, io.env, home);
    if (!trust.trusted) {
      throw new UsageError(
        `This project (${dir}) is not trusted, so its settings may not load extensions; nothing was installed.`,
        `Review the project, run \`airlock trust ${dir}\`, then run the command again.`,
      );
    }
  }
  const { manager, lockfile } = detectPackageManager(dir);
  return { layer: 'project', settings, dir, manager, ...(lockfile === undefined ? {} : { lockfile }), owned: false };
}

/** The user target: `<config>/airlock/settings.json` and `<config>/airlock/extensions`. */
export function userTarget(spec: string, io: IO): InstallTarget {
  const config = userConfigDir(io.env, io.env.HOME ?? homedir());
  const file = join(config, 'settings.json');
  return { layer: 'user', settings: async () => editableUserSettings(file, spec), dir: join(config, 'extensions'), manager: 'npm', owned: true };
}

/** The user settings file as JSON (a new one when there is none); anything else is refused before installing. */
async function editableUserSettings(file: string, name: string): Promise<EditableSettings> {
  if (!existsSync(file)) return { file, dir: dirname(file), document: {}, created: true };
  const text = readFileSync(file, 'utf8');
  let document: unknown;
  try {
    document = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    document = undefined;
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new UsageError(`The user settings ${file} are not a JSON object, which is all airlock rewrites; nothing was changed.`, `Fix the file, or edit "${name}" in its "extensions" list yourself.`);
  }
  return { file, dir: dirname(file), document: document as Record<string, unknown>, created: false };
}

/**
 * Airlock's own install folder (staging, the user's) as a package with, unless a registry serves
 * the `@airlock` scope, overrides that link every `@airlock/*` dependency to the CLI's copy.
 */
export async function preparePrivateFolder(dir: string, name: string, linkOwnCopy: boolean): Promise<void> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, 'package.json');
  let pkg: Record<string, unknown> = { name, version: '0.0.0', private: true };
  if (existsSync(file)) {
    try {
      pkg = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch {
      throw new UsageError(`${file} is not JSON; airlock keeps the packages it installs there listed in it. Nothing was changed.`, `Fix or remove ${file}, then run the command again.`);
    }
  }
  if (linkOwnCopy) pkg.overrides = ownCopyOverrides(ownCopy());
  else delete pkg.overrides;
  await writeFile(file, `${JSON.stringify(pkg, null, 2)}\n`);
}

/** Install `spec` into the target with its manager; the package manager's own words on failure. */
export async function installInto(target: InstallTarget, spec: string, io: IO): Promise<Spawned> {
  const where = target.layer === 'user' ? ` into ${displayText(target.dir)}` : '';
  io.stderr.write(`Installing ${displayText(spec)} with ${target.manager}${where}${target.lockfile === undefined ? (target.owned ? '' : ' (no lockfile found)') : ` (${displayText(target.lockfile)})`}…\n`);
  return runPackageManager(target.manager, packageManagerArgs(target.manager, 'add', spec, target.dir), target.dir, io.env);
}

export async function uninstallFrom(target: InstallTarget, name: string, io: IO): Promise<Spawned> {
  return runPackageManager(target.manager, packageManagerArgs(target.manager, 'remove', name, target.dir), target.dir, io.env);
}

/** Where a package lands in the target. */
export function landedDir(target: InstallTarget, name: string): string {
  return join(target.dir, 'node_modules', name);
}

/**
 * Install into an empty folder outside the project to read the package before the project gets
 * it: no install script runs, and `@airlock/*` links to the CLI's copy (unless a registry serves
 * that scope). Returns the package's name, its folder, and what npm says it fetched.
 */
export async function stage(spec: string, staging: string, io: IO, linkOwnCopy: boolean): Promise<{ name: string; dir: string; resolved?: string; integrity?: string }> {
  await preparePrivateFolder(staging, 'airlock-add-staging', linkOwnCopy);
  const run = await runPackageManager('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--package-lock=false', spec], staging, io.env);
  if (run.code !== 0) throw new UsageError(`Could not fetch ${spec} to check it; nothing was installed:\n${tail(run.output)}`, 'Check the name, folder or tarball (and the network for a registry name), then run the command again.');
  const deps = (JSON.parse(readFileSync(join(staging, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {};
  const name = Object.keys(deps)[0];
  if (name === undefined) throw new UsageError(`npm installed nothing for ${spec}; nothing was installed.`, 'Give an npm package name, a folder holding a package.json, or a .tgz made by `npm pack`.');
  const fetched = fetchedAs(join(staging, 'node_modules'), name);
  return { name, dir: realpathSync(join(staging, 'node_modules', name)), ...fetched };
}

/** What npm's hidden lockfile says it fetched for a package: where from and its integrity. */
export function fetchedAs(nodeModules: string, name: string): { resolved?: string; integrity?: string } {
  try {
    const lock = JSON.parse(readFileSync(join(nodeModules, '.package-lock.json'), 'utf8')) as { packages?: Record<string, { resolved?: string; integrity?: string }> };
    const entry = lock.packages?.[`node_modules/${name}`];
    return { ...(entry?.resolved === undefined ? {} : { resolved: entry.resolved }), ...(entry?.integrity === undefined ? {} : { integrity: entry.integrity }) };
  } catch {
    return {};
  }
}

/** The package must be an Airlock extension whose kernel range this kernel satisfies. */
export function checkExtension(dir: string, spec: string): void {
  const m = readManifest(dir, { extension: spec, layer: 'project' });
  if (!m.ok) throw new UsageError(`${spec} is not an Airlock extension Airlock can load; nothing was changed: ${m.diagnostic.message.split('\nFix:')[0]}`, m.diagnostic.fix === undefined ? undefined : `Fix: ${m.diagnostic.fix}`);
  const refused = checkKernelRange({ packageName: m.packageName, version: m.version, range: m.manifest.kernel, kernelVersion: KERNEL_VERSION }, { extension: m.packageName, layer: 'project' });
  if (refused !== undefined) {
    // The loader's words, minus its own "Fix:" line (given as the hint) and its "not loaded" (this is about adding).
    const said = refused.message.split('\nFix:')[0]!.replace(/; it was not loaded\.$/, '.');
    throw new UsageError(`${said} Nothing was changed: the packages and settings are as they were.`, refused.fix === undefined ? undefined : `Fix: ${refused.fix}`);
  }
}

/** A folder or a tarball on disk, as opposed to a registry name (`@scope/name`, `name@1.2`). */
export function isLocal(spec: string, cwd: string): boolean {
  if (spec.startsWith('.') || isAbsolute(spec)) return true;
  return /\.(tgz|tar\.gz)$/.test(spec) || existsSync(resolve(cwd, spec));
}

/** `./x`, `../x` or absolute: package managers read a bare `x` as a registry name. */
export function localSpec(projectDir: string, path: string): string {
  const rel = relative(projectDir, path);
  return rel.startsWith('..') ? rel : `./${rel}`;
}

/**
 * The end of a package manager's output (where it says what went wrong), each line behind a
 * gutter: a package's install script writes what it likes, and no line of it may pass for one of
 * Airlock's (a `Fix:`).
 */
export function tail(output: string): string {
  const shown = displayText(output.trim().split('\n').slice(-15).join('\n'), { multiline: true, maxChars: 3000 });
  return shown.split('\n').map((line) => `  \u2502 ${line}`.trimEnd()).join('\n');
}
