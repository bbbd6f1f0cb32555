import { pathToFileURL } from 'node:url';
import type { Jiti } from 'jiti';
import * as contractModule from '@airlock/contract';
import * as kernelModule from '@airlock/kernel';
import * as toolkitModule from '@airlock/toolkit';
import * as toolkitDisplay from '@airlock/toolkit/display';
import * as toolkitUtil from '@airlock/toolkit/util';
import { isAirlockError } from '@airlock/toolkit';
import { type EventSink, type ExtensionCommand, type LoadedExtensionInfo, type Logger, type ProtectedPaths, type RuleStore, type SandboxService, type ToolUI } from '@airlock/contract';
import { KERNEL_VERSION, type Kernel } from '@airlock/kernel';
import type { HostServices } from '@airlock/toolkit';
import * as typebox from 'typebox';
import * as typeboxCompile from 'typebox/compile';
import * as typeboxSystem from 'typebox/system';
import * as typeboxValue from 'typebox/value';
import type { TObject, TSchema } from 'typebox';
import { createExtensionApi, type ExtensionSandbox, type RegistrationError } from './api.js';
import { checkKernelRange } from './compat.js';
import { compiledEntry } from './compiled-entry.js';
import { BUILTIN_TOOL_PACKAGES } from './defaults.js';
import type { Diagnostic } from '@airlock/contract';
import { diagnostic, errorText, type Subject } from './diagnostics.js';
import { POLICY_PHASES } from './manifest.js';
import { validateOptions } from './options.js';
import { settingsSlice, sliceDeclarationProblems, sliceFix, sliceProblemLines, type SettingsForExtensions } from './settings-slice.js';
import type { BundledExtensions, ExtensionCommandEntry, ExtensionRecord, ResolvedExtension } from './types.js';

/**
 * Loading one located extension: compatibility, import (jiti), export shape, options, the
 * settings it reads, setup. Each step either passes or produces the diagnostic that explains it;
 * nothing here throws. Incompatible code is never imported, and invalid options or settings never
 * reach setup.
 */

/**
 * Airlock's own packages (found next to the host) through the runtime's module loader, so every
 * host in a process shares one copy: opening a host then costs milliseconds instead of seconds of
 * re-evaluating the same code (the SDK and tests open many), and the shell parser loads once.
 * Their code cannot change under a running process the way a user's extension folder can, so
 * fresh modules buy nothing. A TypeScript entry the runtime cannot load (the workspace on plain
 * Node: the SDK or a bench from dist/) runs the JavaScript `pnpm build` compiled it to, which its
 * package's exports map names; jiti transpiled every built-in on every start (seconds per host).
 * Only a package never built still goes through jiti. Any other failure is the import's failure.
 */
async function importBuiltin(file: string, realDir: string, jiti: () => Promise<Jiti>): Promise<unknown> {
  try {
    return await import(pathToFileURL(file).href);
  } catch (error) {
    if (!unknownExtension(error)) throw error;
    const compiled = compiledEntry(realDir, file);
    if (compiled !== undefined) {
      try {
        return await import(pathToFileURL(compiled).href);
      } catch (compiledError) {
        // A dependency the runtime resolved to TypeScript (a package's `source` condition under a
        // runner started with --conditions source): jiti resolves and transpiles it itself.
        if (!unknownExtension(compiledError)) throw compiledError;
      }
    }
    return (await jiti()).import(file);
  }
}

/**
 * A command module a manifest declares, imported as its package's entry would be: compiled into
 * the caller (the bundled CLI), through the runtime for Airlock's own packages, through jiti (with
 * the host's kernel and typebox) for any other. Importing it runs none of the extension's setup.
 *
 * @example
 * const mod = await importCommandModule(host.extensions.commands[0]!, { bundled });
 */
export async function importCommandModule(command: ExtensionCommandEntry, options: { bundled?: BundledExtensions } = {}): Promise<unknown> {
  const bundled = command.foundIn === 'builtin' ? options.bundled?.[command.packageName] : undefined;
  const compiledIn = bundled !== undefined && bundled.version === command.version ? bundled.commands?.[command.module] : undefined;
  if (compiledIn !== undefined) return compiledIn();
  let jiti: Promise<Jiti> | undefined;
  const loader = () => (jiti ??= createExtensionJiti());
  return command.foundIn === 'builtin' ? importBuiltin(command.file, command.realDir, loader) : (await loader()).import(command.file);
}

function unknownExtension(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ERR_UNKNOWN_FILE_EXTENSION';
}

/**
 * One jiti for a load. Airlock's packages (and typebox) are given to extensions as the host's own
 * module objects (`virtualModules`), not as an `alias` to a file: an alias makes jiti load that
 * file itself, which is a second kernel whenever the host's kernel was loaded by anyone else
 * (vitest's module runner, or dist/ while the alias points at src/): `instanceof` fails and
 * there are two mutation queues. The module object the host imported is the one there is, from
 * src/ or dist/ alike. typebox is shared for the same reason, and so an extension folder without
 * its own node_modules still loads. `moduleCache: false`: every load (a second kernel in the same
 * process, a reload after settings changed) gets fresh modules of the user's extensions;
 * Airlock's own packages are shared instead (see importBuiltin).
 *
 * @example
 * const jiti = createExtensionJiti();
 * const mod = await jiti.import('/p/tools/hello/src/index.ts');
 */
export async function createExtensionJiti(): Promise<Jiti> {
  // Loaded on demand: a run with no extension to load never pays for jiti and babel.
  const { createJiti } = await import('jiti');
  return createJiti(import.meta.url, {
    moduleCache: false,
    virtualModules: {
      '@airlock/contract': contractModule,
      '@airlock/toolkit': toolkitModule,
      '@airlock/toolkit/display': toolkitDisplay,
      '@airlock/toolkit/util': toolkitUtil,
      '@airlock/kernel': KERNEL_1_0,
      // Extensions written before the kernel was split into contract, kernel and toolkit import
      // the helpers from these paths; they keep loading (see KERNEL_1_0).
      '@airlock/kernel/display': toolkitDisplay,
      '@airlock/kernel/util': toolkitUtil,
      typebox,
      'typebox/compile': typeboxCompile,
      'typebox/system': typeboxSystem,
      'typebox/value': typeboxValue,
    },
  });
}

/**
 * What `@airlock/kernel` offered extensions at run time before the split (defineTool,
 * defineExtension, the output helpers, the error catalogue…): one object, so a published
 * extension built against kernel 1.0 loads unchanged. New code imports each name from its own
 * package.
 */
const KERNEL_1_0: Readonly<Record<string, unknown>> = Object.freeze({ ...toolkitDisplay, ...toolkitModule, ...contractModule, ...kernelModule });

export interface LoadContext {
  /** The loader, created on the first extension that needs it. */
  jiti: () => Promise<Jiti>;
  bundled: BundledExtensions;
  rules?: RuleStore;
  protectedPaths?: ProtectedPaths;
  kernel: Kernel;
  services: HostServices;
  sandbox?: SandboxService;
  ui: ToolUI;
  log: Logger;
  /** What each extension's declared settings are cut from (settings-slice.ts). */
  settings: SettingsForExtensions;
  cwd: string;
  /** Whether the project's own settings layers count (its folder is trusted). */
  projectTrusted: boolean;
  setupTimeoutMs: number;
  /** Extension names already loaded → how to name that extension in a message. */
  names: Map<string, string>;
  /** Tool origins (`package@version`) already loaded → how to name their extension in a message. */
  origins: Map<string, string>;
  /** The extensions loaded so far (every one, once the load ends). */
  loadedExtensions: () => readonly LoadedExtensionInfo[];
}

export interface LoadOutcome {
  record: ExtensionRecord;
  diagnostics: Diagnostic[];
  listeners: EventSink[];
  /** For an extension that loaded: the checked options its setup got and what setup returned (its commands get both). */
  setup?: ExtensionSetup;
  /** The extension's `dispose`, bound to the api its setup got; only for an extension that loaded and has one. */
  dispose?: () => unknown;
  /** The diagnostic that stopped the load, when it did not load. */
  failure?: Diagnostic;
}

/** What one extension's setup got and gave, for its commands (CommandInput.extension). */
export interface ExtensionSetup {
  /** Checked against its options schema, defaults filled in. */
  options: unknown;
  /** What `setup` returned, resolved. */
  fromSetup: unknown;
}

/** An extension module's default export, as far as the loader needs it. */
interface ExtensionShape {
  name: string;
  options?: TSchema;
  settings?: TObject;
  setup(api: unknown, options: unknown): unknown;
  setupTimeoutMs?(options: unknown): unknown;
  dispose?(api: unknown): unknown;
}

/** The most an extension may declare its setup needs (Extension.setupTimeoutMs). */
const MAX_DECLARED_SETUP_MS = 600_000;

/**
 * The limit for this extension's setup: the host's, raised to what the extension declares it
 * needs with these options (an MCP server's configured start-up time), up to 10 minutes. No limit
 * (0) stays none; a declaration that throws or is not a number leaves the host's limit.
 */
function setupLimitMs(ext: ExtensionShape, options: unknown, hostMs: number): number {
  if (hostMs <= 0 || typeof ext.setupTimeoutMs !== 'function') return hostMs;
  let declared: unknown;
  try {
    declared = ext.setupTimeoutMs(options);
  } catch {
    return hostMs;
  }
  if (typeof declared !== 'number' || !Number.isFinite(declared)) return hostMs;
  return Math.max(hostMs, Math.min(Math.ceil(declared), MAX_DECLARED_SETUP_MS));
}

const EXTENSION_NAME = /^[a-z0-9][a-z0-9._-]*$/;

/**
 * @example
 * const outcome = await loadResolved(resolved, record, ctx);
 * if (outcome.failure) report(outcome.failure);
 */
export async function loadResolved(resolved: ResolvedExtension, base: ExtensionRecord, ctx: LoadContext): Promise<LoadOutcome> {
  const started = performance.now();
  const record: ExtensionRecord = { ...base };
  const diagnostics: Diagnostic[] = [];
  const subject: Subject = {
    extension: resolved.entry.spec,
    spec: resolved.entry.spec,
    layer: resolved.entry.layer,
    ...(resolved.entry.file ? { file: resolved.entry.file } : {}),
  };
  const fail = (d: Diagnostic): LoadOutcome => {
    record.status = 'failed';
    record.loadMs = elapsed(started);
    diagnostics.push(d);
    return { record, diagnostics, listeners: [], failure: d };
  };

  // 1. Compatibility, before any of its code runs.
  const incompatible = checkKernelRange(
    { packageName: resolved.packageName, version: resolved.version, range: resolved.manifest.kernel, kernelVersion: KERNEL_VERSION },
    subject,
  );
  record.compatible = incompatible === undefined;
  if (incompatible) return fail(incompatible);

  // 2. Import. TypeScript loads straight from source; its relative imports too. Airlock's own
  // packages may already be compiled into the caller (the same version only).
  let mod: unknown;
  try {
    const bundled = resolved.foundIn === 'builtin' ? ctx.bundled[resolved.packageName] : undefined;
    mod =
      resolved.module !== undefined
        ? resolved.module
        : bundled !== undefined && bundled.version === resolved.version
        ? await bundled.load()
        : resolved.foundIn === 'builtin'
          ? await importBuiltin(resolved.entryFile, resolved.realDir, ctx.jiti)
          : await (await ctx.jiti()).import(resolved.entryFile);
  } catch (error) {
    return fail(
      diagnostic(
        'AIRLOCK_EXTENSION_IMPORT_FAILED',
        subject,
        { packageName: resolved.packageName, entryFile: resolved.entryFile, reason: firstLines(errorText(error)) },
        error,
      ),
    );
  }

  // 3. The default export.
  const shape = checkExport(mod);
  if (!shape.ok) return fail(diagnostic('AIRLOCK_EXTENSION_BAD_EXPORT', subject, { entryFile: resolved.entryFile, problems: shape.problems }));
  const ext = shape.extension;
  record.name = ext.name;
  subject.extension = ext.name;
  const self = `extension "${ext.name}" (${resolved.packageName}@${resolved.version})`;
  const holder = ctx.names.get(ext.name);
  if (holder !== undefined) return fail(diagnostic('AIRLOCK_EXTENSION_NAME_TAKEN', subject, { name: ext.name, first: holder, second: self }));

  // 4. Options, against the extension's own schema.
  let options: unknown = resolved.entry.options;
  if (ext.options === undefined) {
    // Settings hand `{}` for "no options"; only options someone actually wrote deserve a warning.
    if (options !== undefined && !isEmptyObject(options)) diagnostics.push(diagnostic('AIRLOCK_EXTENSION_OPTIONS_UNEXPECTED', subject, { received: options }));
  } else {
    // The loader skips an untrusted project's entries before this; judged here too, so no later change can let its paths through.
    const project = resolved.entry.layer === 'project' || resolved.entry.layer === 'local';
    const untrusted = project && !ctx.projectTrusted;
    const checked = validateOptions(ext.options, options, { untrusted, project });
    if (!checked.ok) return fail(diagnostic('AIRLOCK_EXTENSION_OPTIONS_INVALID', subject, { errors: checked.errors, received: options }));
    if (checked.ignored.length > 0) diagnostics.push(diagnostic(untrusted ? 'AIRLOCK_EXTENSION_OPTIONS_UNTRUSTED' : 'AIRLOCK_EXTENSION_OPTIONS_USER_ONLY', subject, { ignored: checked.ignored }));
    options = checked.value;
  }

  // 5. The settings it declared it reads, against its own schema, naming the file of a value it refuses.
  const slice = settingsSlice(ext.settings, ctx.settings);
  if (!slice.ok) {
    const { fix, inSettings } = sliceFix(slice.problems);
    return fail(diagnostic('AIRLOCK_EXTENSION_SETTINGS_INVALID', subject, { problems: sliceProblemLines(slice.problems), fix, ...(inSettings ? { settingsFix: fix } : {}) }));
  }

  // 6. Setup, with an API that records what it registers so a failure leaves nothing behind.
  const origin = `${resolved.packageName}@${resolved.version}`;
  const box = createExtensionApi({
    kernel: ctx.kernel,
    services: ctx.services,
    ...(ctx.sandbox === undefined ? {} : { sandbox: ctx.sandbox }),
    extension: ext.name,
    origin,
    toolSource: BUILTIN_TOOL_PACKAGES.includes(resolved.packageName) ? 'builtin' : 'extension',
    ui: ctx.ui,
    log: ctx.log,
    settings: slice.value,
    cwd: ctx.cwd,
    ...(ctx.rules === undefined ? {} : { rules: ctx.rules }),
    ...(ctx.protectedPaths === undefined ? {} : { protectedPaths: ctx.protectedPaths }),
    loadedExtensions: ctx.loadedExtensions,
  });
  try {
    const limitMs = setupLimitMs(ext, options, ctx.setupTimeoutMs);
    const settled = await runSetup(ext, box, options, limitMs);
    box.seal();
    record.policy = record.policy || box.policy;
    if (!settled.ok) {
      const rolledBack = box.rollback();
      record.tools = [];
      record.hooks = [];
      const cause = settled.timedOut ? undefined : box.registrationErrors.find((r) => r.error === settled.error);
      // Refusals the extension caught and lived with are still worth reporting.
      for (const r of box.registrationErrors) if (r !== cause) diagnostics.push(registrationDiagnostic(r, subject, self, ctx.origins));
      const d = settled.timedOut
        ? diagnostic('AIRLOCK_EXTENSION_SETUP_TIMEOUT', subject, { timeoutMs: limitMs, rolledBack })
        : cause
          ? registrationDiagnostic(cause, subject, self, ctx.origins, rolledBack)
          : diagnostic(
              'AIRLOCK_EXTENSION_SETUP_FAILED',
              subject,
              { packageName: resolved.packageName, reason: firstLines(errorText(settled.error)), rolledBack, ...settingsFixOf(settled.error) },
              settled.error,
            );
      return fail(d);
    }

    for (const r of box.registrationErrors) diagnostics.push(registrationDiagnostic(r, subject, self, ctx.origins));
    for (const command of box.undeclaredCommands) diagnostics.push(diagnostic('AIRLOCK_EXTENSION_COMMAND_UNDECLARED', subject, { command }));
    for (const u of box.unjudged.filter((u) => box.tools.includes(u.tool))) diagnostics.push(diagnostic('AIRLOCK_EXTENSION_TOOL_UNJUDGED', subject, u));
    const drift = providesDrift(record.provides, box);
    if (drift.length > 0) diagnostics.push(diagnostic('AIRLOCK_EXTENSION_PROVIDES_MISMATCH', subject, { problems: drift }));
    ctx.names.set(ext.name, self);
    ctx.origins.set(origin, self);
    record.status = 'loaded';
    record.tools = [...box.tools];
    record.hooks = box.handlers.map((h) => ({ ...h }));
    record.loadMs = elapsed(started);
    const dispose = ext.dispose;
    return {
      record,
      diagnostics,
      listeners: [...box.listeners],
      setup: { options, fromSetup: settled.returned },
      ...(dispose === undefined ? {} : { dispose: () => dispose.call(ext, box.api) }),
    };
  } catch (error) {
    // Only a bug in this file could get here; even then nothing half-registered may stay behind.
    box.seal();
    box.rollback();
    throw error;
  }
}

function checkExport(mod: unknown): { ok: true; extension: ExtensionShape } | { ok: false; problems: string[] } {
  if (typeof mod !== 'object' || mod === null || !('default' in mod)) {
    const names = typeof mod === 'object' && mod !== null ? Object.keys(mod).filter((k) => k !== '__esModule') : [];
    const hint = names.length > 0 ? ` It exports ${names.map((n) => `"${n}"`).join(', ')}; default-export the extension instead.` : '';
    return { ok: false, problems: [`the module has no default export.${hint}`] };
  }
  const ext = (mod as { default: unknown }).default;
  if (typeof ext === 'function') {
    return {
      ok: false,
      problems: ['the default export is a function; Airlock expects an object { name, setup(api, options) } (a Pi-style factory function is not an Airlock extension)'],
    };
  }
  if (typeof ext !== 'object' || ext === null) return { ok: false, problems: [`the default export is ${ext === null ? 'null' : typeof ext}, not an object { name, setup }`] };
  const e = ext as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof e.name !== 'string' || !EXTENSION_NAME.test(e.name)) {
    problems.push(
      `"name" must be lowercase letters, digits, ".", "_" or "-" (it prefixes the extension's handler names), got ${JSON.stringify(e.name) ?? 'nothing'}`,
    );
  }
  if (typeof e.setup !== 'function') problems.push(`"setup" must be a function (api, options) => void | Promise<void>, got ${typeof e.setup}`);
  if (e.dispose !== undefined && typeof e.dispose !== 'function') problems.push(`"dispose" must be a function (api) => void | Promise<void> when given, got ${typeof e.dispose}`);
  if (e.setupTimeoutMs !== undefined && typeof e.setupTimeoutMs !== 'function') {
    problems.push(`"setupTimeoutMs" must be a function (options) => milliseconds when given, got ${typeof e.setupTimeoutMs}`);
  }
  if (e.options !== undefined && (typeof e.options !== 'object' || e.options === null || Array.isArray(e.options))) {
    problems.push(`"options" must be a TypeBox schema such as Type.Object({...}) when given, got ${Array.isArray(e.options) ? 'an array' : typeof e.options}`);
  }
  if (e.settings !== undefined) problems.push(...sliceDeclarationProblems(e.settings));
  return problems.length > 0 ? { ok: false, problems } : { ok: true, extension: e as unknown as ExtensionShape };
}

type Settled = { ok: true; returned: unknown } | { ok: false; timedOut: false; error: unknown } | { ok: false; timedOut: true };

async function runSetup(ext: ExtensionShape, box: ExtensionSandbox, options: unknown, timeoutMs: number): Promise<Settled> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Settled>((resolve) => {
    if (timeoutMs > 0) timer = setTimeout(() => resolve({ ok: false, timedOut: true }), timeoutMs);
  });
  const run = (async (): Promise<Settled> => {
    try {
      return { ok: true, returned: await ext.setup(box.api, options) };
    } catch (error) {
      return { ok: false, timedOut: false, error };
    }
  })();
  try {
    return await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A kernel refusal, worded with both extensions' names for a duplicate tool. */
function registrationDiagnostic(
  r: RegistrationError,
  subject: Subject,
  self: string,
  origins: Map<string, string>,
  rolledBack?: string[],
): Diagnostic {
  const extra = rolledBack === undefined ? {} : { rolledBack };
  if (isAirlockError(r.error, 'AIRLOCK_TOOL_DUPLICATE')) {
    const existing = r.error.details.existing;
    const name = existing.origin !== undefined ? origins.get(existing.origin) : undefined;
    const existingText = name ?? (existing.origin ? `${existing.source} "${existing.origin}"` : `a ${existing.source} tool`);
    return diagnostic('AIRLOCK_EXTENSION_DUPLICATE_TOOL', subject, { tool: r.name, existing: existingText, incoming: self, ...extra }, r.error);
  }
  if (r.kind === 'tool') return diagnostic('AIRLOCK_EXTENSION_TOOL_INVALID', subject, { tool: r.name, reason: errorText(r.error), ...extra }, r.error);
  return diagnostic('AIRLOCK_EXTENSION_HANDLER_INVALID', subject, { handler: r.name, reason: errorText(r.error), ...extra }, r.error);
}

/**
 * What setup registered beyond what `provides` declares. Only that direction: a tool an option
 * turned off is legitimately declared and not registered, but an undeclared policy hook means
 * Airlock could not fail closed if this extension broke before registering it.
 */
function providesDrift(declared: ExtensionRecord['provides'], box: ExtensionSandbox): string[] {
  const problems: string[] = [];
  const registeredHooks = [...new Set(box.handlers.map((h) => `${h.hook}:${h.phase}`))];
  if (declared === undefined) {
    const policy = registeredHooks.filter((h) => POLICY_PHASES.includes(h));
    if (policy.length > 0) problems.push(`registers ${policy.join(', ')} handlers, but package.json#airlock has no "provides"`);
    return problems;
  }
  const fromSets = box.toolSetTools();
  const extraTools = box.tools.filter((t) => !declared.tools.includes(t) && !fromSets.includes(t));
  const extraHooks = registeredHooks.filter((h) => !declared.hooks.includes(h));
  if (extraTools.length > 0) problems.push(`registers tools not listed in provides.tools: ${extraTools.join(', ')}`);
  if (extraHooks.length > 0) problems.push(`registers handlers not listed in provides.hooks: ${extraHooks.join(', ')}`);
  return problems;
}

/** Import errors can carry a whole transpiled stack; the first lines say what happened. */
function firstLines(text: string, max = 6): string {
  const lines = text.split('\n');
  return lines.length <= max ? text : `${lines.slice(0, max).join('\n')}\n  …`;
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}

/**
 * The fix a setup error carries when the extension refused the settings it was given: an Error
 * with a string `fix` (e.g. path-policy's "correct the rule or its example in <file>").
 */
function settingsFixOf(error: unknown): { settingsFix?: string } {
  const fix = (error as { fix?: unknown } | null)?.fix;
  return typeof fix === 'string' && fix.trim() !== '' ? { settingsFix: fix.trim() } : {};
}
