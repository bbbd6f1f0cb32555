import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { packageFilesDigest, readManifest, versionSatisfies, writeLockEntry, type LockedPackage } from '@airlock/host';
import { displayText } from '@airlock/toolkit/display';
import { consent } from '../extensions/consent.js';
import { declarationsOf, describeDeclarations } from '../extensions/declarations.js';
import { checkExtension, installInto, isLocal, landedDir, localSpec, preparePrivateFolder, projectTarget, stage, tail, uninstallFrom, userTarget, type InstallTarget } from '../extensions/install-target.js';
import { airlockPackagesIn, airlockScopeRegistry, officialSpec, ownCopy } from '../extensions/own-copy.js';
import { addExtensionEntry, saveSettings } from '../extensions/settings-edit.js';
import { EXIT, UsageError, type IO } from '../io.js';
import type { GlobalOptions } from '../global-options.js';

export interface AddOptions {
  spec: string;
  /** For every project of this user: the user's extension folder and settings. */
  user?: boolean;
  /** Do not ask on a terminal (the declarations are still shown). */
  yes?: boolean;
}

/**
 * `airlock extensions add <npm-name|folder|tarball> [--user]`, in this order, so that a refusal
 * changes nothing:
 * 1. the project must be trusted (else its settings could not load the extension anyway);
 *    its settings file must be one airlock can rewrite (JSON), or there is none yet;
 * 2. `@airlock/<name>` comes from the CLI's own copy: nothing is fetched, only the settings
 *    change (unless the person configured a registry for the `@airlock` scope);
 * 3. anything else is installed into a staging folder outside the project, with npm and
 *    `--ignore-scripts` (no code of the package runs), every `@airlock/*` dependency linked to
 *    the CLI's copy; its manifest and kernel range are checked, and what it declares is shown
 *    (and asked about on a terminal);
 * 4. only then is it installed where it belongs (the project's package manager, or npm in the
 *    user's folder), checked again where it landed (removed again when that check fails),
 *    pinned in airlock-lock.json beside the settings, and added to the settings' `extensions`.
 */
export async function extensionsAddCommand(o: AddOptions, g: GlobalOptions, io: IO): Promise<number> {
  const target = o.user === true ? userTarget(o.spec, io) : await projectTarget(o.spec, g, io, { requireTrust: true });
  await target.settings(); // a settings file airlock cannot rewrite is refused before anything else
  const scopeRegistry = await airlockScopeRegistry(target.layer === 'user' ? io.cwd : target.dir, io.env);
  const official = officialSpec(o.spec);
  if (official !== undefined && scopeRegistry === undefined) return addOwnCopy(official, target, o, g, io);
  return addPackage(o, target, scopeRegistry === undefined, g, io);
}

/** `@airlock/<name>`: Airlock's own package, as the running CLI carries it. */
async function addOwnCopy(spec: { name: string; range?: string }, target: InstallTarget, o: AddOptions, g: GlobalOptions, io: IO): Promise<number> {
  const copy = ownCopy();
  const own = copy.get(spec.name);
  if (own === undefined) {
    // The extensions among them: libraries (the kernel, shell-analysis…) are not something to add.
    const official = [...copy.values()].filter((p) => readManifest(p.dir, {}).ok).map((p) => p.name).join(', ');
    throw new UsageError(
      `${spec.name} is not one of Airlock's own packages; this CLI carries ${official}. Nothing was changed.`,
      'Check the name. Packages under @airlock/ come only from the CLI itself, never from a registry, unless you configure one for the scope (`@airlock:registry=<url>` in .npmrc).',
    );
  }
  if (spec.range !== undefined && !versionSatisfies(own.version, spec.range)) {
    throw new UsageError(
      `This CLI carries ${spec.name} ${own.version}, which is not ${spec.range}; Airlock's own packages come with the CLI, in its version. Nothing was changed.`,
      `Install the Airlock release that has ${spec.name}@${spec.range} (npm i -g @airlock/cli@<version>), or add ${spec.name} without a version.`,
    );
  }
  checkExtension(own.dir, spec.name);
  if (!(await consent(describeDeclarations(declarationsOf(own.dir)), `Add ${spec.name} to the ${target.layer} settings?`, io, o.yes === true))) return declined(io);
  const pin: LockedPackage = { version: own.version, source: 'airlock' };
  return finish(target, spec.name, own.version, pin, { from: "Airlock's own copy (nothing was downloaded)" }, g, io);
}

/** A registry name, folder or tarball, checked in staging before it is installed where it belongs. */
async function addPackage(o: AddOptions, target: InstallTarget, linkOwnCopy: boolean, g: GlobalOptions, io: IO): Promise<number> {
  // A folder or tarball is named as given relative to where the command runs; package managers get it relative to the project.
  const local = isLocal(o.spec, io.cwd);
  const fullSpec = local ? resolve(io.cwd, o.spec) : o.spec;
  const installSpec = local && target.layer === 'project' ? localSpec(target.dir, fullSpec) : fullSpec;
  const staging = mkdtempSync(join(tmpdir(), 'airlock-add-'));
  try {
    const staged = await stage(fullSpec, staging, io, linkOwnCopy);
    checkExtension(staged.dir, o.spec);
    // The project's package manager would fetch these from a registry: the supply-chain hole the CLI's copy closes.
    const needsOwn = linkOwnCopy ? airlockPackagesIn(join(staging, 'node_modules')) : [];
    if (target.layer === 'project' && needsOwn.length > 0) {
      throw new UsageError(
        `${staged.name} depends on ${needsOwn.join(', ')}, which the project's ${target.manager} would fetch from a registry, where anyone could have published that name; nothing was installed.`,
        `Add it for your user (\`airlock extensions add --user ${o.spec}\`), where Airlock links ${needsOwn.length === 1 ? 'it' : 'them'} to its own copy, or configure a registry you trust for the scope (\`@airlock:registry=<url>\` in .npmrc).`,
      );
    }
    if (!(await consent(describeDeclarations(declarationsOf(staged.dir)), `Install ${staged.name} and add it to the ${target.layer} settings?`, io, o.yes === true))) return declined(io);

    if (target.owned) await preparePrivateFolder(target.dir, 'airlock-user-extensions', linkOwnCopy);
    const folder = local && !/\.(tgz|tar\.gz)$/.test(o.spec);
    // A copy already there under the same version but with other files (edited in place) would
    // be kept by the package manager: take it out, so what lands is what was checked.
    const there = landedDir(target, staged.name);
    if (!folder && existsSync(join(there, 'package.json')) && packageFilesDigest(there) !== packageFilesDigest(staged.dir)) await uninstallFrom(target, staged.name, io);
    const installed = await installInto(target, installSpec, io);
    if (installed.code !== 0) {
      throw new UsageError(`${target.manager} could not install ${o.spec} (exit ${installed.code}); the settings are unchanged:\n${tail(installed.output)}`, `Fix what ${target.manager} says, then run the command again.`);
    }
    const landed = landedDir(target, staged.name);
    try {
      checkExtension(landed, o.spec);
      // What the target's manager fetched must be what was checked (not a newer version since, not other bytes).
      const version = versionOf(landed);
      if (version !== versionOf(staged.dir) || (!folder && packageFilesDigest(landed) !== packageFilesDigest(staged.dir))) {
        throw new UsageError(`${target.manager} installed ${staged.name} ${version}, which is not what was checked (${versionOf(staged.dir)}); it was taken out again.`, 'Run the command again; if it keeps happening, the registry serves different files each time.');
      }
    } catch (error) {
      await uninstallFrom(target, staged.name, io);
      throw error;
    }
    const version = versionOf(landed);
    const pin: LockedPackage = {
      version,
      source: folder ? 'folder' : local ? 'tarball' : 'registry',
      ...(staged.resolved === undefined || folder ? {} : { resolved: staged.resolved }),
      ...(staged.integrity === undefined ? {} : { integrity: staged.integrity }),
      // A folder is linked, and yours to change: its files are not pinned.
      ...(folder ? {} : { files: packageFilesDigest(landed) }),
    };
    return finish(target, staged.name, version, pin, { manager: target.manager }, g, io);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Pin, add the settings entry, and say what happened. */
async function finish(target: InstallTarget, name: string, version: string, pin: LockedPackage, how: { manager?: string; from?: string }, g: GlobalOptions, io: IO): Promise<number> {
  // Read again: package.json may be the settings file, and the install has just added a dependency to it.
  const settings = await target.settings();
  const added = addExtensionEntry(settings, name);
  if (added || settings.created) await saveSettings(settings);
  const lockFile = writeLockEntry(settings.file, name, pin);
  if (g.json) {
    io.stdout.write(
      `${JSON.stringify({ name, version, layer: target.layer, source: pin.source, ...(how.manager === undefined ? {} : { manager: how.manager }), ...(target.layer === 'user' ? { folder: target.dir } : {}), settingsFile: settings.file, lockFile, added, created: settings.created })}\n`,
    );
    return EXIT.ok;
  }
  const from = how.from === undefined ? '' : ` from ${how.from}`;
  const scope = target.layer === 'user' ? ` the user settings` : '';
  io.stdout.write(
    added
      ? `Added ${displayText(name)} ${displayText(version)}${from} to${scope} ${displayText(settings.file)}${settings.created ? ' (new)' : ''}${target.layer === 'user' ? ': it loads in every project of this user' : ''}; pinned in ${displayText(lockFile)}. See it with \`airlock extensions info ${displayText(name)}\`.\n`
      : `${displayText(name)} ${displayText(version)} is installed${from}; ${displayText(settings.file)} already lists it; pinned again in ${displayText(lockFile)}.\n`,
  );
  return EXIT.ok;
}

function declined(io: IO): number {
  io.stderr.write('Nothing was changed.\n');
  return EXIT.usage;
}

export function versionOf(dir: string): string {
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: string }).version ?? '0.0.0';
}
