import { existsSync, mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageFilesDigest, readLock, writeLockEntry, type LockedPackage } from '@airlock/host';
import { displayText } from '@airlock/toolkit/display';
import { consent } from '../extensions/consent.js';
import { declarationsOf, describeDeclarations, diffDeclarations } from '../extensions/declarations.js';
import { checkExtension, installInto, landedDir, preparePrivateFolder, projectTarget, stage, tail, userTarget, type InstallTarget } from '../extensions/install-target.js';
import { airlockScopeRegistry, ownCopy } from '../extensions/own-copy.js';
import { EXIT, UsageError, type IO } from '../io.js';
import type { GlobalOptions } from '../global-options.js';
import { versionOf } from './extensions-add.js';

/** What happened to one package. */
interface Outcome {
  name: string;
  from: string;
  to: string;
  state: 'updated' | 'current' | 'refused' | 'declined' | 'skipped';
  note?: string;
  changes?: string[];
}

/**
 * `airlock extensions update [name] [--user] [--yes]`: each package `extensions add` pinned (or
 * the one named) moves to its registry's latest version. Before anything is installed the new
 * release is staged and checked as `add` does, and what changed in what it declares (tools,
 * policy phases, commands, install scripts…) is shown and, on a terminal, asked about. A release
 * whose files changed under the version that was pinned is refused: that is a swapped package,
 * not an update. Airlock's own packages move with the CLI.
 */
export async function extensionsUpdateCommand(o: { name?: string; user?: boolean; yes?: boolean }, g: GlobalOptions, io: IO): Promise<number> {
  const target = o.user === true ? userTarget(o.name ?? 'the package', io) : await projectTarget(o.name ?? 'the package', g, io, { requireTrust: true });
  const settings = await target.settings();
  const lock = settings.created ? undefined : readLock(settings.file);
  if (lock !== undefined && 'error' in lock) throw new UsageError(`${lock.error}; nothing was updated.`, 'Add each package again with `airlock extensions add <name>`, which rewrites the lock.');
  const pins = lock?.packages ?? {};
  const names = o.name === undefined ? Object.keys(pins) : [o.name];
  if (o.name !== undefined && pins[o.name] === undefined) {
    throw new UsageError(`${o.name} is not pinned in the ${target.layer} settings' lock (it was not added with \`airlock extensions add\`); nothing was updated.`, `Add it with \`airlock extensions add ${o.name}${o.user === true ? ' --user' : ''}\`, which pins what it installs.`);
  }
  const linkOwnCopy = (await airlockScopeRegistry(target.layer === 'user' ? io.cwd : target.dir, io.env)) === undefined;
  const outcomes: Outcome[] = [];
  for (const name of names) outcomes.push(await updateOne(name, pins[name]!, target, settings.file, linkOwnCopy, o.yes === true, io));

  if (g.json) io.stdout.write(`${JSON.stringify({ layer: target.layer, settingsFile: settings.file, packages: outcomes })}\n`);
  else if (outcomes.length === 0) io.stdout.write(`Nothing to update: the ${target.layer} settings have no package added with \`airlock extensions add\`.\n`);
  else for (const u of outcomes) io.stdout.write(`${line(u)}\n`);
  return outcomes.some((u) => u.state === 'refused' || u.state === 'declined') ? EXIT.usage : EXIT.ok;
}

async function updateOne(name: string, pin: LockedPackage, target: InstallTarget, settingsFile: string, linkOwnCopy: boolean, yes: boolean, io: IO): Promise<Outcome> {
  const base = { name, from: pin.version };
  if (pin.source === 'airlock') {
    const own = ownCopy().get(name);
    if (own === undefined) return { ...base, to: pin.version, state: 'refused', note: 'this CLI no longer carries it; remove it with `airlock extensions remove`' };
    if (own.version !== pin.version) writeLockEntry(settingsFile, name, { ...pin, version: own.version });
    return { ...base, to: own.version, state: own.version === pin.version ? 'current' : 'updated', note: 'it comes with Airlock: update the CLI (npm i -g @airlock/cli) for a newer one' };
  }
  if (pin.source !== 'registry') return { ...base, to: pin.version, state: 'skipped', note: pin.source === 'folder' ? 'a linked folder is always its current self' : 'a tarball does not change: add the new tarball' };

  const staging = mkdtempSync(join(tmpdir(), 'airlock-update-'));
  try {
    const staged = await stage(`${name}@latest`, staging, io, linkOwnCopy);
    const version = versionOf(staged.dir);
    if (version === pin.version) {
      if (pin.integrity !== undefined && staged.integrity !== undefined && staged.integrity !== pin.integrity) {
        return { ...base, to: version, state: 'refused', note: `the registry now serves other files under the pinned version ${version} (integrity ${staged.integrity}, pinned ${pin.integrity}): a package must not change under its version. Nothing was installed; if you trust the new files, run \`airlock extensions add ${name}\` again` };
      }
      return { ...base, to: version, state: 'current' };
    }
    checkExtension(staged.dir, name);
    const installedDir = landedDir(target, name);
    const before = existsSync(installedDir) ? declarationsOf(installedDir) : undefined;
    const after = declarationsOf(staged.dir);
    const changes = before === undefined ? describeDeclarations(after) : diffDeclarations(before, after);
    const heading = `${displayText(name)} ${displayText(pin.version)} → ${displayText(version)}: ${changes.length === 0 ? 'nothing it declares changed' : 'what it declares changed:'}`;
    if (!(await consent([heading, ...changes.map((c) => `  ${c}`)], `Update ${name} to ${version}?`, io, yes || changes.length === 0))) return { ...base, to: version, state: 'declined', changes };
    if (target.owned) await preparePrivateFolder(target.dir, 'airlock-user-extensions', linkOwnCopy);
    const installed = await installInto(target, `${name}@${version}`, io);
    if (installed.code !== 0) return { ...base, to: version, state: 'refused', note: `${target.manager} could not install it (exit ${installed.code}):\n${tail(installed.output)}`, changes };
    checkExtension(installedDir, name);
    const files = packageFilesDigest(installedDir);
    if (versionOf(installedDir) !== version || files !== packageFilesDigest(staged.dir)) {
      return { ...base, to: version, state: 'refused', note: `${target.manager} installed other files than were checked; the pin still names ${pin.version}, so it will not load until added again`, changes };
    }
    writeLockEntry(settingsFile, name, { version, source: 'registry', ...(staged.resolved === undefined ? {} : { resolved: staged.resolved }), ...(staged.integrity === undefined ? {} : { integrity: staged.integrity }), files });
    return { ...base, to: version, state: 'updated', changes };
  } catch (error) {
    if (error instanceof UsageError) return { ...base, to: pin.version, state: 'refused', note: error.message };
    throw error;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

function line(u: Outcome): string {
  const name = displayText(u.name);
  const said = u.note === undefined ? '' : displayText(u.note, { multiline: true, maxChars: 2000 });
  const note = said === '' ? '' : ` (${said})`;
  const changes = (u.changes ?? []).map((c) => `\n  ${c}`).join('');
  switch (u.state) {
    case 'updated':
      return `${name}: ${displayText(u.from)} → ${displayText(u.to)}${note}${changes}`;
    case 'current':
      return `${name}: ${displayText(u.to)} is the latest${note}`;
    case 'skipped':
      return `${name}: ${displayText(u.from)}, not updated${note}`;
    case 'declined':
      return `${name}: stays at ${displayText(u.from)}; ${displayText(u.to)} was not accepted, nothing was changed`;
    case 'refused':
      return `${name}: stays at ${displayText(u.from)}: ${said}`;
  }
}
