import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import Value from 'typebox/value';
import type { TSchema } from 'typebox';
import type { ExtensionCommandEntry, Host } from '@airlock/host';
import { displayText, type CommandHostFacts, type ExtensionCommand } from '@airlock/kernel';
import { linearSchema, schemaProblems } from '@airlock/kernel/util';
import { refuseUnknownSubcommand } from './subcommand-words.js';
import { reportDiagnostics } from './commands/diagnostics.js';
import { EXIT, UsageError, whenOutputClosed, type IO } from './io.js';
import { readJsonArgument } from './json-input.js';
import type { GlobalOptions } from './global-options.js';

/**
 * Commands extensions bring (`api.registerCommand`), added to the program next to the built-in
 * ones. The top-level summary says which extension brings the command, so `airlock --help` tells
 * a person whose code `airlock <name>` runs.
 *
 * @example
 * for (const entry of host.extensions.commands) addExtensionCommand(program, entry, host, io, done);
 */
export function addExtensionCommand(program: Command, entry: ExtensionCommandEntry, host: Host, io: IO, done: (code: number) => void): void {
  // The host already refuses RESERVED_COMMANDS; this catches a CLI word added since, rather than let commander throw.
  if (program.commands.some((c) => c.name() === entry.command.name)) {
    io.stderr.write(`airlock: extension ${displayText(entry.extension, { maxChars: 200 })} brings a command "${displayText(entry.command.name, { maxChars: 80 })}", but that is one of airlock's own commands; it is left out. Rename it in the extension.\n`);
    return;
  }
  add(program, entry.command, `${entry.command.summary} (from extension ${entry.extension})`, { entry, host, io, done });
}

interface Context {
  entry: ExtensionCommandEntry;
  host: Host;
  io: IO;
  done: (code: number) => void;
}

function add(parent: Command, c: ExtensionCommand, summary: string, ctx: Context): void {
  const cmd = parent.command(c.name).description(summary);
  for (const a of c.arguments ?? []) {
    const word = `${a.name}${a.variadic ? '...' : ''}`;
    cmd.argument(a.required ? `<${word}>` : `[${word}]`, a.description);
  }
  const schema = c.options;
  for (const option of optionsOf(schema)) cmd.addOption(option);
  for (const sub of c.subcommands ?? []) add(cmd, sub, sub.summary, ctx);
  const run = c.run;
  if (run === undefined) return;
  // Runs on its own and has subcommands, with no words of its own: a stray word names a subcommand that is not there.
  const wordsAreSubcommands = (c.subcommands ?? []).length > 0 && (c.arguments ?? []).length === 0;
  if (wordsAreSubcommands) cmd.allowExcessArguments(true);
  cmd.action(async (...params: unknown[]) => {
    const self = params.at(-1) as Command;
    if (wordsAreSubcommands) refuseUnknownSubcommand(self);
    const globals = self.optsWithGlobals() as GlobalOptions;
    const options = checkedOptions(schema, self.opts(), c.name);
    const args = (self.processedArgs as unknown[]).flatMap((v) => (v === undefined ? [] : Array.isArray(v) ? (v as string[]) : [v as string]));
    const stop = new AbortController();
    const onInterrupt = () => stop.abort();
    process.once('SIGINT', onInterrupt);
    const unwatch = whenOutputClosed(onInterrupt);
    try {
      const code = await run({
        args,
        options,
        stdout: ctx.io.stdout,
        stderr: ctx.io.stderr,
        cwd: resolve(ctx.io.cwd, globals.cwd ?? '.'),
        json: globals.json === true,
        globals: Object.freeze({ ...globals }),
        env: ctx.io.env,
        kernel: ctx.host.kernel,
        settings: ctx.host.settings.settings as unknown as Readonly<Record<string, unknown>>,
        settingsOptions: settingsOptionsOf(ctx),
        signal: stop.signal,
        readStdin: () => ctx.io.readStdin(),
        readJson: (text, what) => readJsonArgument(text, ctx.io, what),
        preflight: (call) => ctx.host.kernel.preflight(call, { tools: ctx.host.selection }),
        reportLoad: () => reportDiagnostics(ctx.host, ctx.io, { verbose: globals.verbose === true }),
        host: hostFacts(ctx.host),
      });
      ctx.done(exitCodeOf(code, ctx));
    } catch (error) {
      // A thrown error is a problem before the command could do its work: exit 2, its message and
      // fix shown as the CLI shows its own (`hint`, or `fix`).
      const e = error as { message?: string; hint?: string; fix?: string };
      throw new UsageError(e.message ?? String(error), e.hint ?? e.fix);
    } finally {
      process.off('SIGINT', onInterrupt);
      unwatch();
    }
  });
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
function settingsOptionsOf(ctx: Context): unknown {
  // Also for a failed extension: a command kept after its setup failed reads the options that made it fail.
  const record = ctx.host.extensions.extensions.find((r) => r.name === ctx.entry.extension);
  if (record === undefined) return undefined;
  const entry = ctx.host.settings.extensions.filter((e) => e.spec === record.spec && e.enabled !== false).at(-1);
  return entry?.options;
}

/** The exit code the command returned; anything but a whole number 0–255 is a bug in the extension, reported as a failure. */
function exitCodeOf(code: unknown, ctx: Context): number {
  if (typeof code === 'number' && Number.isInteger(code) && code >= 0 && code <= 255) return code;
  ctx.io.stderr.write(`airlock: command "${displayText(ctx.entry.command.name, { maxChars: 80 })}" of extension ${displayText(ctx.entry.extension, { maxChars: 200 })} returned ${displayText(String(code), { maxChars: 80 })}, not an exit code; treating it as a failure.\n`);
  return EXIT.outcome;
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
