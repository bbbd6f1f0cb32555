import { KERNEL_VERSION } from '@airlock/kernel';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { defaultExtensionDirs, importCommandModule, isPathSpec, readManifest, resolveExtension, type ExtensionRecord, type Host } from '@airlock/host';
import { displayText } from '@airlock/toolkit/display';
import { type ExtensionCommand } from '@airlock/contract';
import { describePackage, type PackageFacts } from '../extensions/package-facts.js';
import { tail } from '../extensions/install-target.js';
import { kernelFit } from '../extensions/kernel-fit.js';
import { officialSpec } from '../extensions/own-copy.js';
import { viewOnRegistry } from '../extensions/registry-view.js';
import { table } from '../format.js';
import { EXIT, UsageError, type IO } from '../io.js';
import type { GlobalOptions } from '../global-options.js';
import { openSession } from '../session.js';

/** A command an extension brings, with its words: `policy explain`. */
interface CommandFacts {
  name: string;
  summary: string;
}

/**
 * `airlock extensions info <name>`: one extension's manifest, options (types, defaults), tools,
 * hooks and the commands it brings. `name` is the extension's name, its package name, or the
 * spec the settings give (a path too). One the settings do not load is looked up as the host
 * would look it up (the project's node_modules only when the project is trusted); its module's
 * top level is imported to read its options schema, and its `setup` never runs. Its commands come
 * from its manifest, with their subcommands from each command's module when the extension is
 * one the settings load (an untrusted project's is never imported).
 */
export async function extensionsInfoCommand(o: { name: string }, g: GlobalOptions, io: IO): Promise<number> {
  const host = await openSession(g, io);
  try {
    const record = host.extensions.extensions.find((r) => r.name === o.name || r.packageName === o.name || r.spec === o.name);
    const dir = record?.source?.realDir ?? locate(o.name, host, g, io);
    if (dir === undefined) return await fromRegistry(o.name, g, io);
    // An untrusted project's extension is never imported, not even its top level: its manifest only.
    const facts = await describePackage(dir, { importModule: record?.status !== 'skipped' });
    const commands = await commandsOf(dir, record, host, io);
    const loaded = record?.status === 'loaded';
    if (g.json) {
      io.stdout.write(
        `${JSON.stringify({
          ...facts,
          dir,
          status: record?.status ?? 'not-in-settings',
          ...(record === undefined ? {} : { layer: record.layer, settingsFile: record.settingsFile ?? null, compatible: record.compatible ?? null }),
          registered: loaded ? { tools: record.tools, hooks: record.hooks } : null,
          commands,
          kernelVersion: KERNEL_VERSION,
        })}\n`,
      );
    } else io.stdout.write(render(facts, dir, record, commands, host));
    // A module that cannot be imported is a broken extension; one not imported on purpose is not.
    return facts.problem === undefined || record?.status === 'skipped' ? EXIT.ok : EXIT.usage;
  } finally {
    await host.close();
  }
}

/** The folder of an extension the settings do not name, found the way the host finds one; undefined for a package name found nowhere (the registry is asked then). */
function locate(name: string, host: Host, g: GlobalOptions, io: IO): string | undefined {
  const cwd = resolve(io.cwd, g.cwd ?? '.');
  const found = resolveExtension(
    { spec: name, layer: 'cli', baseDir: cwd },
    { dirs: defaultExtensionDirs(io.env, io.env.HOME ?? homedir()), projectDir: host.settings.projectDir ?? cwd, projectTrusted: host.trust?.trusted === true },
  );
  if (found.ok) return found.resolved.realDir;
  if (found.partial.realDir !== undefined) return found.partial.realDir;
  if (found.diagnostic.code === 'AIRLOCK_EXTENSION_NOT_FOUND' && !isPathSpec(name) && officialSpec(name) === undefined) return undefined;
  throw new UsageError(`No extension "${displayText(name, { maxChars: 200 })}" here: ${found.diagnostic.message}`, "Give an extension's name as `airlock extensions` lists it, a package name installed in this project, or a path to its folder.");
}

/**
 * The commands the package declares. For one the settings load, each command module is imported
 * (its top level only, as for the options) to list the subcommands too; a module that cannot be
 * imported shows its top word alone, since `airlock <word>` reports that problem itself.
 */
async function commandsOf(dir: string, record: ExtensionRecord | undefined, host: Host, io: IO): Promise<CommandFacts[]> {
  const entries = record?.source === undefined ? [] : host.extensions.commands.filter((c) => c.realDir === record.source!.realDir);
  if (entries.length === 0) {
    const manifest = readManifest(dir, {});
    return manifest.ok ? (manifest.manifest.commands ?? []).map((c) => ({ name: c.name, summary: c.summary })) : [];
  }
  const facts: CommandFacts[] = [];
  for (const entry of entries) {
    facts.push({ name: entry.name, summary: entry.summary });
    const mod = await importCommandModule(entry, io.bundled === undefined ? {} : { bundled: io.bundled }).catch(() => undefined);
    const subcommands = (mod as { default?: { subcommands?: unknown } } | undefined)?.default?.subcommands;
    if (Array.isArray(subcommands)) facts.push(...(subcommands as ExtensionCommand[]).flatMap((sub) => commandWords(sub, `${entry.name} `)));
  }
  return facts;
}

/** A command and its subcommands as words; what a module got wrong (`airlock <word>` says so) is left out. */
function commandWords(c: ExtensionCommand, prefix = ''): CommandFacts[] {
  if (typeof c?.name !== 'string' || typeof c.summary !== 'string') return [];
  const name = `${prefix}${c.name}`;
  return [{ name, summary: c.summary }, ...(Array.isArray(c.subcommands) ? c.subcommands : []).flatMap((s) => commandWords(s, `${name} `))];
}

function render(p: PackageFacts, dir: string, record: ExtensionRecord | undefined, commands: CommandFacts[], host: Host): string {
  const lines = [`${show(p.name)} ${show(p.version)} (${p.kind})`];
  if (p.description !== undefined) lines.push(show(p.description));
  lines.push('');
  const status =
    record === undefined
      ? 'not in the settings (add it with `airlock extensions add`)'
      : record.layer === 'defaults'
        ? `${record.status}, from Airlock's default set`
        : `${record.status}, named by the ${record.layer} settings${record.settingsFile === undefined ? '' : ` (${show(record.settingsFile)})`}`;
  const kernel = p.kernel === undefined ? '' : `${p.kernel} (this kernel: ${KERNEL_VERSION}${record?.compatible === false ? ', not in the range' : ''})`;
  const registered = record?.status === 'loaded' ? record.hooks.map((h) => `${h.hook}:${h.phase} (${show(h.name)})`) : [];
  const rows = [
    ['status', status],
    ['folder', show(dir)],
    ...(p.entry === undefined ? [] : [['entry', show(p.entry)]]),
    ...(kernel === '' ? [] : [['kernel', show(kernel)]]),
    ['tools', p.tools.map(show).join(', ') || 'none'],
    ['hooks', (registered.length > 0 ? registered : p.hooks.map(show)).join(', ') || 'none'],
    ['commands', commands.length > 0 ? commands.map((c) => `airlock ${show(c.name)}: ${show(c.summary)}`).join('\n') : 'none'],
  ];
  for (const [key, value] of rows) lines.push(`${`${key}:`.padEnd(10)}${value!.split('\n').join(`\n${' '.repeat(10)}`)}`);
  lines.push('');
  if (p.problem !== undefined) lines.push(`options could not be read: ${show(p.problem)}`);
  else if (p.options.length === 0) lines.push('options: none');
  else {
    lines.push('options:');
    const optionTable = [['OPTION', 'TYPE', 'DEFAULT', 'DESCRIPTION']];
    for (const r of p.options) {
      const value = r.default === undefined ? (r.required ? '(required)' : '') : JSON.stringify(r.default);
      optionTable.push([r.key, r.type, value, `${r.description ?? ''}${r.valueKind === undefined ? '' : ` [${r.valueKind}: trusted settings only]`}`]);
    }
    lines.push(table(optionTable).trimEnd()); // table() shows each cell with displayText
  }
  return `${lines.join('\n')}\n`;
}

/** Manifests and schemas are a package author's words: shown, never interpreted. */
function show(text: string): string {
  return displayText(text, { maxChars: 500 });
}

/**
 * A package installed nowhere here: what the configured registry says about its latest release
 * (npm view: the person's own registry, scopes and tokens), with whether this kernel can load it.
 * Nothing of it is downloaded or run, so its options are not known.
 */
async function fromRegistry(name: string, g: GlobalOptions, io: IO): Promise<number> {
  const asked = await viewOnRegistry(name, resolve(io.cwd, g.cwd ?? '.'), io.env);
  if (!asked.ok) {
    const none = /\bE404\b|404 Not Found/.test(asked.output);
    throw new UsageError(
      `No extension "${displayText(name, { maxChars: 200 })}" is installed here, and the registry ${none ? 'has none by that name' : 'could not be asked'}:\n${tail(asked.output)}`,
      "Check the name (`airlock extensions search <words>` finds packages), or give a folder or the name as `airlock extensions` lists it.",
    );
  }
  const v = asked.view;
  const fit = v.kernel === undefined ? undefined : kernelFit(v.name, v.version, v.kernel);
  if (g.json) {
    io.stdout.write(`${JSON.stringify({ ...v, status: 'not-installed', loads: fit?.loads ?? false, ...(fit !== undefined && !fit.loads ? { why: fit.why } : {}), kernelVersion: KERNEL_VERSION })}\n`);
    return EXIT.ok;
  }
  const list = (items: readonly string[]) => items.map(show).join(', ') || 'none';
  const lines = [`${show(v.name)} ${show(v.version)} (${v.kind}), on the registry`];
  if (v.description !== undefined) lines.push(show(v.description));
  lines.push('');
  const rows = [
    ['status', `not installed: add it with \`airlock extensions add ${show(v.name)}\` (or --user)`],
    ['kernel', v.kernel === undefined ? 'none declared' : `${show(v.kernel)} (this kernel: ${KERNEL_VERSION}${fit?.loads === false ? `, not in the range: ${show(fit.why)}` : ', loads'})`],
    ['tools', list(v.tools)],
    ['hooks', list(v.hooks)],
    ['commands', list(v.commands.map((c) => `airlock ${c}`))],
    ['uses', v.uses.length === 0 ? 'none declared' : list(v.uses)],
    ...(v.tarball === undefined ? [] : [['tarball', show(v.tarball)]]),
  ];
  for (const [key, value] of rows) lines.push(`${`${key}:`.padEnd(10)}${value}`);
  lines.push('', 'options: read once it is installed (its module is not downloaded or run before that)');
  io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}
