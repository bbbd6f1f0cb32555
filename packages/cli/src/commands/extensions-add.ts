import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { checkKernelRange, readManifest, userConfigDir } from '@airlock/host';
import { displayText } from '@airlock/toolkit/display';
import { KERNEL_VERSION } from '@airlock/kernel';
import { projectTrust } from '../extensions/project-trust.js';
import { detectPackageManager, packageManagerArgs, runPackageManager } from '../extensions/package-manager.js';
import { addExtensionEntry, editableSettings, saveSettings, type EditableSettings } from '../extensions/settings-edit.js';
import { EXIT, UsageError, type IO } from '../io.js';
import type { GlobalOptions } from '../global-options.js';

/**
 * `airlock extensions add <npm-name|folder|tarball>`, in this order, so that a refusal changes
 * nothing in the project:
 * 1. the project must be trusted (else its settings could not load the extension anyway);
 * 2. its settings file must be one airlock can rewrite (JSON), or there is none yet;
 * 3. the package is installed into a staging folder outside the project, with npm and
 *    `--ignore-scripts` (no code of the package runs), and its manifest and kernel range are checked;
 * 4. only then is it installed with the project's package manager (from its lockfile; npm when
 *    there is none), checked again where it landed (removed again when that check fails), and
 *    added to the settings' `extensions`.
 */
export async function extensionsAddCommand(o: { spec: string; user?: boolean }, g: GlobalOptions, io: IO): Promise<number> {
  if (o.user === true) return addForUser(o.spec, g, io);
  const cwd = resolve(io.cwd, g.cwd ?? '.');
  const home = io.env.HOME ?? homedir();
  const readSettings = () =>
    editableSettings(cwd, { homeDir: home, userConfigDir: userConfigDir(io.env, home) }, o.spec).catch((error: Error & { hint?: string }) => {
      throw new UsageError(error.message, error.hint);
    });
  const projectDir = (await readSettings()).dir;

  const trust = await projectTrust(projectDir, g.trust, io.env, home);
  if (!trust.trusted) {
    throw new UsageError(
      `This project (${projectDir}) is not trusted, so its settings may not load extensions; nothing was installed.`,
      `Review the project, run \`airlock trust ${projectDir}\`, then \`airlock extensions add ${o.spec}\` again.`,
    );
  }

  // A folder or tarball is named as given relative to where the command runs; package managers get it relative to the project.
  const local = isLocal(o.spec, io.cwd);
  const stagingSpec = local ? resolve(io.cwd, o.spec) : o.spec;
  const projectSpec = local ? localSpec(projectDir, stagingSpec) : o.spec;

  const staging = mkdtempSync(join(tmpdir(), 'airlock-add-'));
  try {
    const staged = await stage(stagingSpec, staging, io);
    check(staged.dir, o.spec);

    const { manager, lockfile } = detectPackageManager(projectDir);
    io.stderr.write(`Installing ${displayText(o.spec)} with ${manager}${lockfile === undefined ? ' (no lockfile found)' : ` (${displayText(lockfile)})`}…\n`);
    const installed = await runPackageManager(manager, packageManagerArgs(manager, 'add', projectSpec, projectDir), projectDir, io.env);
    if (installed.code !== 0) {
      throw new UsageError(`${manager} could not install ${o.spec} (exit ${installed.code}); the settings are unchanged:\n${tail(installed.output)}`, 'Fix what the package manager says, then run the command again.');
    }
    const landed = join(projectDir, 'node_modules', staged.name);
    try {
      check(landed, o.spec);
    } catch (error) {
      // What the project's manager fetched is not what was checked (a newer version since): take it out again.
      await runPackageManager(manager, packageManagerArgs(manager, 'remove', staged.name, projectDir), projectDir, io.env);
      throw error;
    }
    const version = (JSON.parse(readFileSync(join(landed, 'package.json'), 'utf8')) as { version?: string }).version ?? '0.0.0';
    // Read again: package.json may be the settings file, and the install has just added a dependency to it.
    const settings = await readSettings();
    const added = addExtensionEntry(settings, staged.name);
    if (added) await saveSettings(settings);
    if (g.json) io.stdout.write(`${JSON.stringify({ name: staged.name, version, manager, settingsFile: settings.file, added, created: settings.created })}\n`);
    else
      io.stdout.write(
        added
          ? `Added ${displayText(staged.name)} ${displayText(version)} to ${displayText(settings.file)}${settings.created ? ' (new)' : ''}. See it with \`airlock extensions info ${displayText(staged.name)}\`.\n`
          : `${displayText(staged.name)} ${displayText(version)} is installed; ${displayText(settings.file)} already lists it.\n`,
      );
    return EXIT.ok;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/**
 * `extensions add --user`: for every project of this user. The same staging check, then npm
 * installs it into the user's extension folder (`<config>/airlock/extensions`, where the loader
 * looks for packages the user settings name) and the user settings file gets the entry. No
 * project is involved, so no project trust either.
 */
async function addForUser(spec: string, g: GlobalOptions, io: IO): Promise<number> {
  const home = io.env.HOME ?? homedir();
  const config = userConfigDir(io.env, home);
  const settings = await editableUserSettings(join(config, 'settings.json'), spec);
  const folder = join(config, 'extensions');
  const local = isLocal(spec, io.cwd);
  const fullSpec = local ? resolve(io.cwd, spec) : spec;
  const staging = mkdtempSync(join(tmpdir(), 'airlock-add-'));
  try {
    const staged = await stage(fullSpec, staging, io);
    check(staged.dir, spec);
    await mkdir(folder, { recursive: true });
    if (!existsSync(join(folder, 'package.json'))) await writeFile(join(folder, 'package.json'), '{ "name": "airlock-user-extensions", "version": "0.0.0", "private": true }\n');
    io.stderr.write(`Installing ${displayText(spec)} with npm into ${displayText(folder)}…\n`);
    const installed = await runPackageManager('npm', packageManagerArgs('npm', 'add', fullSpec), folder, io.env);
    if (installed.code !== 0) throw new UsageError(`npm could not install ${spec} (exit ${installed.code}); the user settings are unchanged:\n${tail(installed.output)}`, 'Fix what npm says, then run the command again.');
    const landed = join(folder, 'node_modules', staged.name);
    try {
      check(landed, spec);
    } catch (error) {
      await runPackageManager('npm', packageManagerArgs('npm', 'remove', staged.name), folder, io.env);
      throw error;
    }
    const version = (JSON.parse(readFileSync(join(landed, 'package.json'), 'utf8')) as { version?: string }).version ?? '0.0.0';
    const added = addExtensionEntry(settings, staged.name);
    if (added) await saveSettings(settings);
    if (g.json) io.stdout.write(`${JSON.stringify({ name: staged.name, version, manager: 'npm', layer: 'user', folder, settingsFile: settings.file, added, created: settings.created })}\n`);
    else
      io.stdout.write(
        added
          ? `Added ${displayText(staged.name)} ${displayText(version)} to the user settings ${displayText(settings.file)}${settings.created ? ' (new)' : ''}: it loads in every project of this user. See it with \`airlock extensions\`.\n`
          : `${displayText(staged.name)} ${displayText(version)} is installed for this user; ${displayText(settings.file)} already lists it.\n`,
      );
    return EXIT.ok;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
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
    throw new UsageError(`The user settings ${file} are not a JSON object, which is all airlock rewrites; nothing was installed.`, `Fix the file, or install the package and add "${name}" to its "extensions" list yourself.`);
  }
  return { file, dir: dirname(file), document: document as Record<string, unknown>, created: false };
}

/** Install into an empty folder outside the project to read the package before the project gets it. No install script runs. */
async function stage(spec: string, staging: string, io: IO): Promise<{ name: string; dir: string }> {
  await writeFile(join(staging, 'package.json'), '{ "name": "airlock-add-staging", "version": "0.0.0", "private": true }\n');
  const run = await runPackageManager('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--package-lock=false', spec], staging, io.env);
  if (run.code !== 0) throw new UsageError(`Could not fetch ${spec} to check it; nothing was installed:\n${tail(run.output)}`, 'Check the name, folder or tarball (and the network for a registry name), then run the command again.');
  const deps = (JSON.parse(readFileSync(join(staging, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {};
  const name = Object.keys(deps)[0];
  if (name === undefined) throw new UsageError(`npm installed nothing for ${spec}; nothing was installed.`, 'Give an npm package name, a folder holding a package.json, or a .tgz made by `npm pack`.');
  return { name, dir: realpathSync(join(staging, 'node_modules', name)) };
}

/** The package must be an Airlock extension whose kernel range this kernel satisfies. */
function check(dir: string, spec: string): void {
  const m = readManifest(dir, { extension: spec, layer: 'project' });
  if (!m.ok) throw new UsageError(`${spec} is not an Airlock extension Airlock can load; nothing was changed: ${m.diagnostic.message.split('\nFix:')[0]}`, m.diagnostic.fix === undefined ? undefined : `Fix: ${m.diagnostic.fix}`);
  const refused = checkKernelRange({ packageName: m.packageName, version: m.version, range: m.manifest.kernel, kernelVersion: KERNEL_VERSION }, { extension: m.packageName, layer: 'project' });
  if (refused !== undefined) {
    // The loader's words, minus its own "Fix:" line (given as the hint) and its "not loaded" (this is about adding).
    const said = refused.message.split('\nFix:')[0]!.replace(/; it was not loaded\.$/, '.');
    throw new UsageError(`${said} Nothing was changed: the project's packages and settings are as they were.`, refused.fix === undefined ? undefined : `Fix: ${refused.fix}`);
  }
}

/** A folder or a tarball on disk, as opposed to a registry name (`@scope/name`, `name@1.2`). */
function isLocal(spec: string, cwd: string): boolean {
  if (spec.startsWith('.') || isAbsolute(spec)) return true;
  return /\.(tgz|tar\.gz)$/.test(spec) || existsSync(resolve(cwd, spec));
}

/** `./x`, `../x` or absolute: package managers read a bare `x` as a registry name. */
function localSpec(projectDir: string, path: string): string {
  const rel = relative(projectDir, path);
  return rel.startsWith('..') ? rel : `./${rel}`;
}

/**
 * The end of a package manager's output (where it says what went wrong), each line behind a
 * gutter: a package's install script writes what it likes, and no line of it may pass for one of
 * Airlock's (a `Fix:`).
 */
function tail(output: string): string {
  const shown = displayText(output.trim().split('\n').slice(-15).join('\n'), { multiline: true, maxChars: 3000 });
  return shown.split('\n').map((line) => `  \u2502 ${line}`.trimEnd()).join('\n');
}
