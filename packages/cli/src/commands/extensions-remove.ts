import { existsSync } from 'node:fs';
import { readLock, writeLockEntry } from '@airlock/host';
import { displayText } from '@airlock/toolkit/display';
import { landedDir, projectTarget, tail, uninstallFrom, userTarget } from '../extensions/install-target.js';
import { saveSettings } from '../extensions/settings-edit.js';
import { EXIT, UsageError, type IO } from '../io.js';
import type { GlobalOptions } from '../global-options.js';

/**
 * `airlock extensions remove <name> [--user]`: the reverse of `add`. The entry leaves the
 * settings first (so nothing loads it even if uninstalling fails), then its pin, then the
 * package leaves the project's or user's node_modules. A package from Airlock's own copy has
 * nothing to uninstall. Removing a policy extension takes its rules out of force: the message
 * says so, since that is the point of it.
 */
export async function extensionsRemoveCommand(o: { name: string; user?: boolean }, g: GlobalOptions, io: IO): Promise<number> {
  const target = o.user === true ? userTarget(o.name, io) : await projectTarget(o.name, g, io, { requireTrust: false });
  const settings = await target.settings();
  const list = Array.isArray((settings.document as { extensions?: unknown }).extensions) ? ((settings.document as { extensions: unknown[] }).extensions) : [];
  const named = (e: unknown) => e === o.name || (typeof e === 'object' && e !== null && (e as { name?: unknown }).name === o.name);
  const lock = settings.created ? undefined : readLock(settings.file);
  const pin = lock !== undefined && !('error' in lock) ? lock.packages[o.name] : undefined;
  const installed = existsSync(landedDir(target, o.name));
  if (!list.some(named) && pin === undefined && !installed) {
    const where = settings.created ? `there are no ${target.layer} settings yet` : `${displayText(settings.file)} does not list it`;
    throw new UsageError(`${o.name} is not added to the ${target.layer} settings (${where}); nothing was changed.`, `See what is loaded, and from which layer, with \`airlock extensions\`${target.layer === 'project' ? '; add --user for the user settings' : ''}.`);
  }
  if (list.some(named)) {
    (settings.document as { extensions: unknown[] }).extensions = list.filter((e) => !named(e));
    await saveSettings(settings);
  }
  if (pin !== undefined) writeLockEntry(settings.file, o.name, undefined);
  let uninstalled = false;
  if (installed && pin?.source !== 'airlock') {
    const run = await uninstallFrom(target, o.name, io);
    if (run.code !== 0) {
      throw new UsageError(
        `${o.name} is out of ${displayText(settings.file)}, so it no longer loads, but ${target.manager} could not uninstall it (exit ${run.code}):\n${tail(run.output)}`,
        `Uninstall it yourself (${target.manager} remove ${o.name} in ${target.dir}).`,
      );
    }
    uninstalled = true;
  }
  if (g.json) io.stdout.write(`${JSON.stringify({ name: o.name, layer: target.layer, settingsFile: settings.file, uninstalled })}\n`);
  else io.stdout.write(`Removed ${displayText(o.name)} from ${displayText(settings.file)}${uninstalled ? ` and uninstalled it from ${displayText(target.dir)}` : ''}; it no longer loads${target.layer === 'user' ? ' in any project of this user' : ''}.\n`);
  return EXIT.ok;
}
