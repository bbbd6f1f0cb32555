import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import Value from 'typebox/value';
import type { TSchema } from 'typebox';
import { declaredCommands, importCommandModule, type DeclaredCommands, type ExtensionCommandEntry, type ExtensionRecord, type Host } from '@airlock/host';
import { displayText } from '@airlock/toolkit/display';
import { type CommandDefinition, type CommandExtension, type CommandHostFacts, type ExtensionCommand } from '@airlock/contract';
import { linearSchema, schemaProblems } from '@airlock/toolkit/util';
import { refuseUnknownSubcommand } from './subcommand-words.js';
import { reportDiagnostics } from './commands/diagnostics.js';
import { EXIT, UsageError, whenOutputClosed, type IO } from './io.js';
import { readJsonArgument } from './json-input.js';
import type { GlobalOptions } from './global-options.js';
import { openSession } from './session.js';

/**
 * Commands extensions declare in their manifests (`airlock.commands`), next to the built-in ones.
 * Three steps, each only as far as the command line needs:
 * 1. list: settings and manifests say which words exist (`airlock --help` stops here, having run
 *    no extension code);
 * 2. define: the word's module is imported for its arguments, options and subcommands
 *    (`airlock <word> --help` stops here);
 * 3. run: the host opens, which loads every extension as for any command, and the module's `run`
 *    gets the host's services and what its extension's setup gave.
 */

/**
 * Step 1: the declared commands for these global options, from settings and manifests only.
 * `ask`: the project's trust may be asked (a word is about to run); listing never asks, a
 * remembered answer counts.
 */
export async function listDeclaredCommands(g: GlobalOptions, io: IO, options: { ask: boolean }): Promise<DeclaredCommands> {
  try {
    return await declaredCommands({
      cwd: resolve(io.cwd, g.cwd ?? '.'),
      ...(g.settings === undefined ? {} : { settingsFile: resolve(io.cwd, g.settings) }),
      ...(g.trust === undefined ? {} : { trust: g.trust }),
      interactive: options.ask && io.isTTY,
      env: io.env,
    });
  } catch (error) {
    const e = error as { message?: string; hint?: string };
    throw new UsageError(e.message ?? String(error), e.hint);
  }
}

/**
 * Each declared command as a word of `program`, summary only: its module is not read. The
 * summary names the package that brings it, so `airlock --help` tells a person whose code
 * `airlock <name>` runs.
 *
 * @example
 * const placeholders = addDeclaredCommands(program, declared.commands, io);
 */
export function addDeclaredCommands(program: Command, commands: readonly ExtensionCommandEntry[], io: IO): Map<string, { entry: ExtensionCommandEntry; cmd: Command }> {
  const added = new Map<string, { entry: ExtensionCommandEntry; cmd: Command }>();
  for (const entry of commands) {
    // The host refuses RESERVED_COMMANDS in manifests; this catches a CLI word added since, rather than let commander throw.
    if (program.commands.some((c) => c.name() === entry.name)) {
      io.stderr.write(`airlock: extension ${displayText(entry.packageName, { maxChars: 200 })} declares a command "${displayText(entry.name, { maxChars: 80 })}", but that is one of airlock's own commands; it is left out. Rename it in the extension.\n`);
      continue;
    }
    // A package's own words: shown, never interpreted (escape sequences, bidi controls).
    const cmd = program.command(entry.name).description(`${show(entry.summary)} (from ${show(entry.packageName)})`);
    added.set(entry.name, { entry, cmd });
  }
  return added;
}

/**
 * Step 2: import the word's module and give its command the arguments, options, subcommands and
 * action it defines. A module that cannot be imported or defines no usable command is a usage
 * error naming the module, the package and what to fix.
 */
export async function defineDeclaredCommand(cmd: Command, entry: ExtensionCommandEntry, io: IO, done: (code: number) => void): Promise<void> {
  let mod: unknown;
  try {
    mod = await importCommandModule(entry, io.bundled === undefined ? {} : { bundled: io.bundled });
  } catch (error) {
    throw new UsageError(
      `The module of \`airlock ${show(entry.name)}\` (${show(entry.file)}, declared by ${show(entry.packageName)}) could not be imported: ${show((error as Error).message ?? String(error))}`,
      `Fix the module, or reinstall ${show(entry.packageName)}. Its manifest (package.json#airlock.commands) names it.`,
    );
  }
  const definition = (mod as { default?: unknown } | null)?.default;
  const problems = definitionProblems(definition);
  if (problems.length > 0) {
    throw new UsageError(
      `The module of \`airlock ${show(entry.name)}\` (${show(entry.file)}, declared by ${show(entry.packageName)}) does not define a usable command: ${problems.map(show).join('; ')}.`,
      'Its default export must be defineCommand({ arguments?, options?, subcommands?, run? }) from @airlock/kernel, with run or subcommands (docs/extensions.md, "Commands").',
    );
  }
  define(cmd, definition as CommandDefinition, [entry.name], { entry, io, done, needsSetup: (definition as CommandDefinition).needsSetup !== false });
}

interface Context {
  entry: ExtensionCommandEntry;
  io: IO;
  done: (code: number) => void;
  needsSetup: boolean;
}

function define(cmd: Command, c: CommandDefinition | ExtensionCommand, words: readonly string[], ctx: Context): void {
  for (const a of c.arguments ?? []) {
    const word = `${a.name}${a.variadic ? '...' : ''}`;
    cmd.argument(a.required ? `<${word}>` : `[${word}]`, a.description);
  }
  const schema = c.options;
  for (const option of optionsOf(schema)) cmd.addOption(option);
  for (const sub of c.subcommands ?? []) define(cmd.command(sub.name).description(show(sub.summary)), sub, [...words, sub.name], ctx);
  const run = c.run;
  if (run === undefined) return;
  // Runs on its own and has subcommands, with no words of its own: a stray word names a subcommand that is not there.
  const wordsAreSubcommands = (c.subcommands ?? []).length > 0 && (c.arguments ?? []).length === 0;
  if (wordsAreSubcommands) cmd.allowExcessArguments(true);
  const path = words.join(' ');
  cmd.action(async (...params: unknown[]) => {
    const self = params.at(-1) as Command;
    if (wordsAreSubcommands) refuseUnknownSubcommand(self);
    const globals = self.optsWithGlobals() as GlobalOptions;
    // Checked before the host opens: a bad flag runs no extension code.
    const options = checkedOptions(schema, self.opts(), path);
    const args = (self.processedArgs as unknown[]).flatMap((v) => (v === undefined ? [] : Array.isArray(v) ? (v as string[]) : [v as string]));
    // Step 3: the host, with every extension loaded as for any command.
    const host = await openSession(globals, ctx.io);
    const stop = new AbortController();
    const onInterrupt = () => stop.abort();
    process.once('SIGINT', onInterrupt);
    const unwatch = whenOutputClosed(onInterrupt);
    try {
      const record = recordOf(host, ctx.entry);
      const extension = extensionOf(host, ctx.entry, record);
      if (!extension.loaded && ctx.needsSetup) throw notLoaded(host, ctx.entry, record, path);
      const code = await run({
        args,
        options,
        stdout: ctx.io.stdout,
        stderr: ctx.io.stderr,
        cwd: resolve(ctx.io.cwd, globals.cwd ?? '.'),
        json: globals.json === true,
        globals: Object.freeze({ ...globals }),
        env: ctx.io.env,
        kernel: { cwd: host.kernel.session.cwd, registry: host.kernel.registry },
        settings: host.settings.settings,
        settingsOptions: settingsOptionsOf(host, record),
        extension,
        signal: stop.signal,
        readStdin: () => ctx.io.readStdin(),
        readJson: (text, what) => readJsonArgument(text, ctx.io, what),
        preflight: (call) => host.kernel.preflight(call, { tools: host.selection }),
        reportLoad: () => reportDiagnostics(host, ctx.io, { verbose: globals.verbose === true }),
        host: hostFacts(host),
      });
      ctx.done(exitCodeOf(code, path, ctx));
    } catch (error) {
      if (error instanceof UsageError) throw error;
      // A thrown error is a problem before the command could do its work: exit 2, its message and
      // fix shown as the CLI shows its own (`hint`, or `fix`).
      const e = error as { message?: string; hint?: string; fix?: string };
      throw new UsageError(e.message ?? String(error), e.hint ?? e.fix);
    } finally {
      process.off('SIGINT', onInterrupt);
      unwatch();
      await host.close();
    }
  });
}

/** The record of the extension whose package declares the command: the same real folder. */
function recordOf(host: Host, entry: ExtensionCommandEntry): ExtensionRecord | undefined {
  // One package may have several records (an untrusted project's entry skipped, the default one
  // loaded): the one that loaded is the one whose setup the command gets.
  const records = host.extensions.extensions.filter((r) => r.source?.realDir === entry.realDir);
  return records.find((r) => r.status === 'loaded') ?? records.at(-1);
}

/** What the command learns of its extension: loaded, with the options its setup got and what setup returned, or not. */
function extensionOf(host: Host, entry: ExtensionCommandEntry, record: ExtensionRecord | undefined): CommandExtension {
  const name = record?.name ?? entry.packageName;
  const setup = record?.status === 'loaded' ? host.extensions.setups.get(entry.realDir) : undefined;
  if (setup === undefined) return Object.freeze({ name, packageName: entry.packageName, loaded: false });
  return Object.freeze({ name, packageName: entry.packageName, loaded: true, options: setup.options, fromSetup: setup.fromSetup });
}

/** Why the command cannot run: its extension did not load, in the loader's own words (the diagnostic ends with its fix). */
function notLoaded(host: Host, entry: ExtensionCommandEntry, record: ExtensionRecord | undefined, path: string): UsageError {
  const who = record === undefined ? show(entry.packageName) : `${show(record.name)} (${show(entry.packageName)})`;
  const why = record === undefined ? undefined : host.diagnostics.find((d) => d.severity === 'error' && (d.extension === record.name || d.extension === record.spec));
  const status = record?.status ?? 'failed';
  return new UsageError(
    `\`airlock ${show(path)}\` comes from extension ${who}, which did not load (${status}), so it cannot run.${why === undefined ? '' : `\n${why.message}`}`,
    why === undefined ? 'Run `airlock extensions` to see why it did not load.' : undefined,
  );
}

/** What a command may know of the host: rules with their origin, extensions, protected files, the sandbox. */
function hostFacts(host: Host): CommandHostFacts {
  return Object.freeze({
    permissions: host.settings.permissions.map((p) => Object.freeze({ ...p })),
    extensions: host.extensions.extensions.map((r) => Object.freeze({ name: r.name, spec: r.spec, status: r.status })),
    protectedPaths: host.protectedPaths,
    sandboxActive: host.sandbox.service.status.active,
    describeSandbox: (cwd: string, hosts: readonly string[]) => host.sandbox.describe(cwd, hosts),
  });
}

/** What the settings files write as options for the extension behind the command (see CommandInput.settingsOptions). */
function settingsOptionsOf(host: Host, record: ExtensionRecord | undefined): unknown {
  // Also for a failed extension: a command that runs without its setup reads the options that made it fail.
  if (record === undefined) return undefined;
  const entry = host.settings.extensions.filter((e) => e.spec === record.spec && e.enabled !== false).at(-1);
  return entry?.options;
}

/** The exit code the command returned; anything but a whole number 0–255 is a bug in the extension, reported as a failure. */
function exitCodeOf(code: unknown, path: string, ctx: Context): number {
  if (typeof code === 'number' && Number.isInteger(code) && code >= 0 && code <= 255) return code;
  ctx.io.stderr.write(`airlock: command "${show(path)}" of extension ${show(ctx.entry.packageName)} returned ${displayText(String(code), { maxChars: 80 })}, not an exit code; treating it as a failure.\n`);
  return EXIT.outcome;
}

const SUBCOMMAND_NAME = /^[a-z][a-z0-9-]{0,39}$/;

/** What is wrong with a module's default export as a command (none: usable). */
function definitionProblems(definition: unknown, where = ''): string[] {
  if (typeof definition !== 'object' || definition === null) {
    return [`${where || 'the default export'} is ${definition === null ? 'null' : typeof definition}, not an object (export default defineCommand({ ... }))`];
  }
  const c = definition as Partial<ExtensionCommand & CommandDefinition>;
  const problems: string[] = [];
  const at = where === '' ? '' : `${where}: `;
  if (c.run !== undefined && typeof c.run !== 'function') problems.push(`${at}run must be a function`);
  if (c.run === undefined && (c.subcommands === undefined || c.subcommands.length === 0)) problems.push(`${at}it needs a run function or subcommands`);
  if (c.needsSetup !== undefined && typeof c.needsSetup !== 'boolean') problems.push(`${at}needsSetup must be true or false`);
  const seen = new Set<string>();
  for (const sub of c.subcommands ?? []) {
    const name = (sub as { name?: unknown } | null)?.name;
    if (typeof name !== 'string' || !SUBCOMMAND_NAME.test(name)) {
      problems.push(`${at}subcommand name ${JSON.stringify(name) ?? 'nothing'} is not usable: use lowercase letters, digits and "-", starting with a letter`);
      continue;
    }
    if (typeof sub.summary !== 'string' || sub.summary.trim() === '') problems.push(`${at}subcommand "${name}" needs a one-line summary`);
    if (seen.has(name)) problems.push(`${at}two subcommands are named "${name}"`);
    seen.add(name);
    problems.push(...definitionProblems(sub, `${where}${where === '' ? '' : ' '}subcommand "${name}"`));
  }
  return problems;
}

/** commander options from a TypeBox object: `fooBar` → `--foo-bar`, booleans as switches, `short` as `-x`. */
function optionsOf(schema: TSchema | undefined): Option[] {
  const properties = (schema as { properties?: Record<string, TSchema & { type?: unknown; description?: string; short?: string; default?: unknown }> } | undefined)?.properties ?? {};
  return Object.entries(properties).map(([key, p]) => {
    const long = key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    const short = typeof p.short === 'string' && /^[a-zA-Z]$/.test(p.short) ? `-${p.short}, ` : '';
    const flags =
      p.type === 'boolean' ? (p.default === true ? `--no-${long}` : `${short}--${long}`) : p.type === 'array' ? `${short}--${long} <values...>` : `${short}--${long} <${long}>`;
    return new Option(flags, p.description ?? '');
  });
}

/** Defaults filled in, numbers converted, then checked against the schema; a bad value is a usage error naming the flag. */
function checkedOptions(schema: TSchema | undefined, given: Record<string, unknown>, command: string): Readonly<Record<string, unknown>> {
  if (schema === undefined) return Object.freeze({ ...given });
  // The extension's patterns are matched in linear time (linearSchema); a bad one is refused by name.
  const safe = linearSchema(schema);
  const value = Value.Convert(safe, Value.Default(safe, { ...given }));
  if (Value.Check(safe, value)) return Object.freeze(value as Record<string, unknown>);
  // The one schema wording, with the option's flag in place of its key.
  const problems = schemaProblems(schema, value).map((p) => {
    const [key, ...rest] = p.keys;
    const flag = typeof key === 'string' ? `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}${rest.map((k) => `[${String(k)}]`).join('')}: ` : '';
    return `${flag}${displayText(p.message, { maxChars: 300 })}`;
  });
  throw new UsageError(`airlock ${command}: ${problems.join('; ')}`, `Run \`airlock ${command} --help\` for its options.`);
}

function show(text: string): string {
  return displayText(text, { maxChars: 300 });
}
