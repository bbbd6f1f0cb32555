import { closestNames, type HostServices } from '@airlock/toolkit';
import { NO_UI, type Kernel, type Refusal } from '@airlock/kernel';
import { type EventSink, type ExtensionCommand, type KernelEvent, type Logger, type ProtectedPaths, type RuleStore, type SandboxService, type ToolUI } from '@airlock/contract';
import { DEFAULT_GUARDS, defaultExtensionEntries } from './defaults.js';
import type { Diagnostic } from '@airlock/contract';
import { displayText } from '@airlock/toolkit/display';
import { diagnostic, errorText, type DiagnosticCode, type Subject } from './diagnostics.js';
import { defaultExtensionDirs, hostPackageDir } from './dirs.js';
import type { Jiti } from 'jiti';
import { createExtensionJiti, loadResolved, type ExtensionSetup, type LoadContext } from './load.js';
import { resolveExtension, type ResolveResult } from './resolve.js';
import { checkLockedPackage } from './lock.js';
import { defaultSettingsForExtensions, type SettingsForExtensions } from './settings-slice.js';
import {
  LAYER_ORDER,
  type BundledExtensions,
  type ExtensionCommandEntry,
  type ExtensionDirs,
  type ExtensionToLoad,
  type ExtensionListener,
  type ExtensionRecord,
  type LoadedExtension,
  type ResolvedExtension,
} from './types.js';

/**
 * Load every extension settings name, in order, and report every problem without stopping:
 *
 *   plan (files only): entries (or the default set) → trust filter → resolve → de-duplicate →
 *   command words; then for each, in order: compatibility → import → export → options →
 *   settings it reads → setup (rolled back on failure)
 *
 * Fail closed: when an extension with authorize, approve or redact handlers (registered, or
 * declared in its manifest) fails, or any extension settings name cannot be found or loaded
 * (unless its entry says `optional: true`), `blocked` says no tool may run and how to fix it, and
 * the kernel is told to refuse every call (refuseAll). Settings name an extension to be used:
 * a typo must not turn into a run without it.
 */

export interface LoadExtensionsOptions {
  /**
   * The entries to load, in order, exactly: `withDefaultSet(settings.extensions, defaultExtensionEntries(hostPackageDir()))`
   * is what a host passes (settings add to the default set). `undefined`: the default set alone.
   */
  entries: readonly ExtensionToLoad[] | undefined;
  kernel: Kernel;
  /**
   * Where extensions' access checks, redactors, sandbox profiles and agent-activity listeners go:
   * the HostServices whose `access` the kernel was built with (`createKernel({ access: services.access })`),
   * so what a policy registers is what each call's `ctx.access` consults.
   */
  services: HostServices;
  /** The OS sandbox the kernel was built with, offered to extensions as `api.sandbox`. */
  sandbox?: SandboxService;
  /** From `resolveTrust` (or --trust / --no-trust). `projectDir` defaults to `cwd`. */
  trust: { trusted: boolean; projectDir?: string };
  ui?: ToolUI;
  log?: Logger;
  /**
   * The loaded settings (`loadSettings`'s result, after the host dropped what an untrusted
   * project may not bring): each extension gets the part it declares (`Extension.settings`),
   * checked and frozen. Default: the built-in defaults and no rules.
   */
  settings?: SettingsForExtensions;
  /** Default: the kernel's cwd. */
  cwd?: string;
  /** Default: `defaultExtensionDirs(env)`. */
  dirs?: Partial<ExtensionDirs>;
  /** For the default dirs (XDG_CONFIG_HOME). Default: process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The default set (when settings name none); `false` for none. Default: DEFAULT_EXTENSIONS. */
  defaults?: readonly string[] | false;
  /** A setup that takes longer fails (and is rolled back). Default 10,000 ms; 0 = no limit. */
  setupTimeoutMs?: number;
  /** Airlock's own packages compiled into the caller; see {@link BundledExtensions}. */
  bundled?: BundledExtensions;
  /** Where extensions may save a person's "always" answers (`api.rules`). */
  rules?: RuleStore;
  /** Airlock's own files no tool may write (`api.protectedPaths`). */
  protectedPaths?: ProtectedPaths;
}


/** Why no tool may run. */
export interface Blocked {
  /** The (first) policy extension that failed. */
  extension: string;
  /** Every policy extension that failed. */
  extensions: string[];
  /** The failure's code in the error catalogue (docs/errors.md). */
  code: string;
  /** What went wrong with it, in one line. */
  reason: string;
  /** How to fix it, or how to remove it. */
  fix: string;
  /** The whole explanation, for people. */
  message: string;
}

export interface LoadExtensionsResult {
  /** Extensions that loaded, in load order. */
  loaded: LoadedExtension[];
  /** Every entry, loaded or not, in settings order: what `airlock extensions` lists. */
  extensions: ExtensionRecord[];
  diagnostics: Diagnostic[];
  /** Set when a policy extension failed: the kernel then refuses every tool call. */
  blocked?: Blocked;
  /**
   * What extensions registered with `api.onEvent`, in load order. Each is on the kernel's own
   * listener list (`kernel.onEvent`), so every call's events reach it, from any entry point: there
   * is nothing to pass along. A listener that throws or rejects is logged with its extension's name.
   */
  listeners: ExtensionListener[];
  /**
   * The CLI commands the manifests declare, in load order: every extension that was to load,
   * whether its setup then succeeded or not (running such a command says why it cannot).
   */
  commands: ExtensionCommandEntry[];
  /** What each loaded extension's setup got and gave, by its package's real folder (`source.realDir`): for its commands. */
  setups: ReadonlyMap<string, ExtensionSetup>;
}

/** What a load would do, learnt from settings and manifests alone: no extension code has run. */
export interface ExtensionPlan {
  /**
   * Every entry, in settings order, as far as resolution knows it. Those in `toLoad` still say
   * `failed` (the load sets `loaded`); the others say why they do not load.
   */
  records: ExtensionRecord[];
  diagnostics: Diagnostic[];
  /** The entries that go on to load, in order, with their index in `records`. */
  toLoad: { index: number; resolved: ResolvedExtension }[];
  /** The commands those entries' manifests declare, in order, each word once. */
  commands: ExtensionCommandEntry[];
  /** Listed extensions that already failed (and may be policy extensions). */
  failedPolicy: PolicyFailure[];
  /** Default guards and policy extensions settings turned off. */
  guardsLeftOut: GuardLeftOut[];
}

/** What planning needs: the load's options without the kernel (nothing runs). */
export type PlanExtensionsOptions = Pick<LoadExtensionsOptions, 'entries' | 'trust' | 'dirs' | 'env' | 'defaults'> & { cwd: string };

/**
 * The first half of a load, reading files only: which entries load (trust, resolution,
 * de-duplication) and which commands their manifests declare. `airlock --help` lists commands
 * from this without running any extension's code.
 *
 * @example
 * const plan = planExtensions({ entries, trust: { trusted: false }, cwd });
 * plan.commands.map((c) => c.name); // ['audit', 'policy']
 */
export function planExtensions(options: PlanExtensionsOptions): ExtensionPlan {
  const cwd = options.cwd;
  const projectDir = options.trust.projectDir ?? cwd;
  const trusted = options.trust.trusted === true;
  const dirs: ExtensionDirs = { ...defaultExtensionDirs(options.env), ...options.dirs };
  // Settings with no `extensions` key at all get the default set; an explicit list (even `[]`) is exact.
  const entries =
    options.entries !== undefined
      ? [...options.entries]
      : options.defaults === false
        ? []
        : defaultExtensionEntries(hostPackageDir(), options.defaults);

  const diagnostics: Diagnostic[] = [];
  const records: ExtensionRecord[] = [];
  const failedPolicy: PolicyFailure[] = [];
  const guardsLeftOut: GuardLeftOut[] = [];
  const toLoad: { index: number; resolved: ResolvedExtension }[] = [];

  // Resolve everything first (reading files only, no extension code): de-duplication and the
  // fail-closed rule need every manifest before anything loads.
  const consider = (entry: ExtensionToLoad): void => {
    const index = records.length;
    if (entry.layer === 'project' && !trusted) {
      // Located anyway (a JSON read) to report what it is; never loaded.
      const located = resolveExtension(entry, { dirs, projectDir, projectTrusted: true });
      const record = recordFor(entry, located);
      record.status = 'skipped';
      records.push(record);
      // Its deny and ask rules apply even here (package-layers.ts); rules that cannot be read are
      // a policy that cannot be known, so nothing runs, as for a user's broken policy pack.
      if (!located.ok && located.partial.carriesPolicy === true) {
        diagnostics.push(located.diagnostic);
        failedPolicy.push({ record, diagnostic: located.diagnostic, entry, unknown: false });
      }
      const fallback = usableReplacement(entry);
      diagnostics.push(
        diagnostic('AIRLOCK_EXTENSION_UNTRUSTED', subjectOf(entry), {
          spec: entry.spec,
          projectDir,
          policy: record.policy,
          ...(fallback ? { fallback: { layer: fallback.layer, ...(fallback.file ? { file: fallback.file } : {}) } } : {}),
        }),
      );
      // The project may not turn off or reconfigure what the user listed: the user's entry stands.
      if (fallback) consider(fallback);
      return;
    }
    if (entry.enabled === false) {
      records.push({ ...recordFor(entry, undefined), status: 'disabled' });
      const guard = leftOutGuard(entry) ?? leftOutPolicy(entry, (e) => resolveExtension(e, { dirs, projectDir, projectTrusted: trusted }).policy);
      if (guard !== undefined) guardsLeftOut.push(guard);
      // "-@airlock/path-polcy" leaves out nothing: say so, or the user believes path-policy is gone.
      // (An entry kept listed but off, with no near name, is a choice, not a typo.)
      const suggestions = entry.replaces === undefined ? closestNames(entry.spec, entries.map((e) => e.spec).filter((spec) => spec !== entry.spec)) : [];
      if (suggestions.length > 0) diagnostics.push(diagnostic('AIRLOCK_EXTENSION_LEFT_OUT_UNKNOWN', subjectOf(entry), { spec: entry.spec, suggestions }));
      return;
    }
    const result = resolveExtension(entry, { dirs, projectDir, projectTrusted: trusted });
    const record = recordFor(entry, result);
    records.push(record);
    if (!result.ok) {
      record.status = result.diagnostic.code === 'AIRLOCK_EXTENSION_NOT_INSTALLED' ? 'not-installed' : 'failed';
      diagnostics.push(result.diagnostic);
      // Not found, or no manifest to read: it may be the policy the settings count on (an
      // uninstalled guard looks exactly like this), and nothing says otherwise, so it blocks.
      const unknown = !record.policy && record.kernelRange === undefined && entry.layer !== 'defaults';
      if (record.status === 'failed' && blocks(entry, record)) failedPolicy.push({ record, diagnostic: result.diagnostic, entry, unknown });
      return;
    }
    const changed = lockMismatch(entry, result.resolved);
    if (changed !== undefined) {
      record.status = 'failed';
      diagnostics.push(changed);
      if (blocks(entry, record)) failedPolicy.push({ record, diagnostic: changed, entry, unknown: false });
      return;
    }
    toLoad.push({ index, resolved: result.resolved });
  };
  for (const entry of entries) {
    try {
      consider(entry);
    } catch (error) {
      // Resolution only reads files; a throw here is a race or a bug, never a reason to crash.
      const d = diagnostic('AIRLOCK_EXTENSION_LOAD_FAILED', subjectOf(entry), { reason: errorText(error) }, error);
      records.push({ ...recordFor(entry, undefined), status: 'failed' });
      diagnostics.push(d);
    }
  }

  const kept = dedupe(toLoad, records, diagnostics);
  const claimed = claimCommands(kept, records, diagnostics, failedPolicy);
  return { records, diagnostics, toLoad: kept.filter((item) => !claimed.refused.has(item)), commands: claimed.commands, failedPolicy, guardsLeftOut };
}

/**
 * Each command word belongs to the first extension (in load order) whose manifest declares it:
 * two extensions cannot share one, since `airlock <word>` must mean one thing. A later extension
 * declaring a taken word does not load, and says which extension has it.
 */
function claimCommands(
  kept: readonly ToLoad[],
  records: ExtensionRecord[],
  diagnostics: Diagnostic[],
  failedPolicy: PolicyFailure[],
): { commands: ExtensionCommandEntry[]; refused: Set<ToLoad> } {
  const owners = new Map<string, ExtensionCommandEntry>();
  const refused = new Set<ToLoad>();
  for (const item of kept) {
    const { index, resolved } = item;
    const taken = resolved.commands.find((c) => owners.has(c.name));
    if (taken === undefined) {
      for (const c of resolved.commands) owners.set(c.name, c);
      continue;
    }
    const owner = owners.get(taken.name)!;
    const record = records[index]!;
    record.status = 'failed';
    refused.add(item);
    const d = diagnostic('AIRLOCK_EXTENSION_COMMAND_INVALID', subjectOf(resolved.entry), { command: taken.name, owner: owner.packageName });
    diagnostics.push(d);
    if (blocks(resolved.entry, record)) failedPolicy.push({ record, diagnostic: d, entry: resolved.entry, unknown: false });
  }
  return { commands: [...owners.values()], refused };
}

/**
 * @example
 * const s = await loadSettings({ cwd });
 * const trust = await resolveTrust({ projectDir: s.projectDir ?? cwd, flag, mode: trustModeFromLayers(s.layers).mode, interactive, confirm });
 * const result = await loadExtensions({
 *   entries: withDefaultSet(s.extensions, defaultExtensionEntries(hostPackageDir())), // untrusted project entries are skipped (and reported) here
 *   kernel, trust, ui, log, settings: s, cwd,
 * });
 * if (result.blocked) console.error(result.blocked.message); // the kernel now refuses every call
 * await kernel.executeBatch(calls); // extensions' api.onEvent listeners hear it through kernel.onEvent
 * await kernel.dispose(); // runs each loaded extension's dispose(), newest first
 */
export async function loadExtensions(options: LoadExtensionsOptions): Promise<LoadExtensionsResult> {
  const cwd = options.cwd ?? options.kernel.session.cwd;
  const trusted = options.trust.trusted === true;
  const log = options.log ?? SILENT;
  const { records, diagnostics, toLoad, commands, failedPolicy, guardsLeftOut } = planExtensions({ ...options, cwd });

  let jiti: Promise<Jiti> | undefined;
  const ctx: LoadContext = {
    jiti: () => (jiti ??= createExtensionJiti()),
    kernel: options.kernel,
    services: options.services,
    ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
    ui: options.ui ?? NO_UI,
    log,
    settings: options.settings ?? defaultSettingsForExtensions(),
    cwd,
    projectTrusted: trusted,
    setupTimeoutMs: options.setupTimeoutMs ?? 10_000,
    bundled: options.bundled ?? {},
    ...(options.rules === undefined ? {} : { rules: options.rules }),
    ...(options.protectedPaths === undefined ? {} : { protectedPaths: options.protectedPaths }),
    names: new Map(),
    origins: new Map(),
    // Read from `records` when asked: by then (a call, not a setup) every extension has loaded.
    loadedExtensions: () =>
      records.filter((r): r is LoadedExtension => r.status === 'loaded').map((r) => Object.freeze({ name: r.name, packageName: r.packageName, version: r.version })),
  };
  const listeners: ExtensionListener[] = [];
  const setups = new Map<string, ExtensionSetup>();
  const disposers: { extension: string; run: () => unknown }[] = [];
  for (const { index, resolved } of toLoad) {
    const outcome = await loadResolved(resolved, records[index]!, ctx).catch((error: unknown) => {
      const failure = diagnostic('AIRLOCK_EXTENSION_LOAD_FAILED', subjectOf(resolved.entry), { reason: errorText(error) }, error);
      return { record: { ...records[index]!, status: 'failed' as const }, diagnostics: [failure], listeners: [], failure };
    });
    records[index] = outcome.record;
    diagnostics.push(...outcome.diagnostics);
    for (const listener of outcome.listeners) listeners.push({ extension: outcome.record.name, listener });
    if ('setup' in outcome && outcome.setup !== undefined) setups.set(resolved.realDir, outcome.setup);
    if ('dispose' in outcome && outcome.dispose !== undefined) disposers.push({ extension: outcome.record.name, run: outcome.dispose });
    if (outcome.failure && blocks(resolved.entry, outcome.record)) {
      failedPolicy.push({ record: outcome.record, diagnostic: outcome.failure, entry: resolved.entry, unknown: false });
    }
  }
  if (guardsLeftOut.length > 0) diagnostics.push(diagnostic('AIRLOCK_EXTENSION_GUARDS_LEFT_OUT', {}, { left: guardsLeftOut }));

  if (disposers.length > 0) options.kernel.onDispose(() => disposeInReverse(disposers, log));
  const loaded = records.filter((r): r is LoadedExtension => r.status === 'loaded');
  const blocked = failedPolicy.length > 0 ? blockedBy(failedPolicy) : undefined;
  // The kernel itself refuses from now on, so whoever runs calls on it (openHost's execute and
  // batch, an SDK user who called loadExtensions, a server) cannot forget to check `blocked`.
  if (blocked !== undefined) options.kernel.refuseAll(refusalFor(blocked));
  return {
    loaded,
    extensions: records,
    diagnostics,
    ...(blocked ? { blocked } : {}),
    listeners,
    commands,
    setups,
  };
}

/**
 * Whether a failure to find, load or set up this entry stops every tool: always for a policy
 * extension; never for a package whose manifest says it brings tools only (its tools are missing,
 * nothing else: no guard is lost with them); never for a default tool package or an entry that
 * says `optional: true`. Anything else blocks, since what it would have guarded is unknown: no
 * manifest or one that could not be read, no `provides`, or hooks of any phase (an auditor or a
 * transform is a guard a user may count on).
 */
function blocks(entry: ExtensionToLoad, record: ExtensionRecord): boolean {
  if (record.policy) return true;
  if (entry.layer === 'defaults' || entry.optional === true) return false;
  return !toolsOnly(record);
}

/**
 * The manifest was read and declares `provides` with no hooks (nor rules or settings, which make
 * `record.policy`): what it registers is tools, so losing it loses those tools. A package that
 * registers a hook it did not declare fails its load as a policy extension (load.ts, providesDrift).
 */
function toolsOnly(record: ExtensionRecord): boolean {
  return !record.policy && record.provides !== undefined && record.provides.hooks.length === 0;
}

/** A disabled entry that took the place of a default guard (see withDefaultSet): what the run loses. */
function leftOutGuard(entry: ExtensionToLoad): GuardLeftOut | undefined {
  let base: ExtensionToLoad | undefined = entry;
  while (base?.replaces !== undefined) base = base.replaces;
  const loss = base?.layer === 'defaults' ? DEFAULT_GUARDS[base.spec] : undefined;
  if (loss === undefined) return undefined;
  return { spec: entry.spec, loss, layer: entry.layer, ...(entry.file ? { file: entry.file } : {}) };
}

/**
 * A disabled entry over an earlier layer's entry for a policy extension (its manifest declares
 * authorize, approve or redact handlers): turning that off is dropping a guard too. Resolution
 * reads files only; nothing of the extension runs.
 */
function leftOutPolicy(
  entry: ExtensionToLoad,
  isPolicy: (earlier: ExtensionToLoad) => boolean,
): GuardLeftOut | undefined {
  const earlier = entry.replaces;
  if (earlier === undefined || earlier.enabled === false || !isPolicy(earlier)) return undefined;
  const loss = `its policy handlers (authorize, approve or redact), which ${earlier.file ?? `the ${earlier.layer} layer`} asked for, do not run`;
  return { spec: entry.spec, loss, layer: entry.layer, ...(entry.file ? { file: entry.file } : {}) };
}

/**
 * An installed package checked against the pin `extensions add` wrote beside the settings file
 * that names it (lock.ts), before any of its code runs. Airlock's own copy and folders named by
 * path are not pinned.
 */
function lockMismatch(entry: ExtensionToLoad, resolved: ResolvedExtension): Diagnostic | undefined {
  if (entry.file === undefined || (resolved.foundIn !== 'project' && resolved.foundIn !== 'user')) return undefined;
  const mismatch = checkLockedPackage(entry.file, resolved.packageName, resolved.version, resolved.realDir);
  if (mismatch === undefined) return undefined;
  const change =
    mismatch.kind === 'unreadable'
      ? `the lock file cannot be read (${mismatch.reason})`
      : mismatch.kind === 'version'
        ? `version ${mismatch.installed} is installed, but ${mismatch.pinned} was added`
        : `its files changed under the same version (${mismatch.version})`;
  return diagnostic('AIRLOCK_EXTENSION_CHANGED', subjectOf(entry), { packageName: resolved.packageName, lockFile: mismatch.lockFile, change });
}

function subjectOf(entry: ExtensionToLoad): Subject {
  return { extension: entry.spec, spec: entry.spec, layer: entry.layer, ...(entry.file ? { file: entry.file } : {}) };
}

/** The earlier entry an untrusted project entry replaced, skipping other project entries. */
function usableReplacement(entry: ExtensionToLoad): ExtensionToLoad | undefined {
  let candidate = entry.replaces;
  while (candidate !== undefined && candidate.layer === 'project') candidate = candidate.replaces;
  return candidate;
}

/** The record for an entry, filled with whatever resolution learnt (nothing for a disabled one). */
function recordFor(entry: ExtensionToLoad, result: ResolveResult | undefined): ExtensionRecord {
  const record: ExtensionRecord = {
    name: typeof entry.spec === 'string' ? entry.spec : String(entry.spec),
    spec: entry.spec,
    status: 'failed',
    layer: entry.layer,
    tools: [],
    hooks: [],
    policy: result?.policy ?? false,
  };
  if (entry.file) record.settingsFile = entry.file;
  if (result === undefined) return record;
  const kind = result.ok && result.resolved.foundIn === 'path' ? 'path' : 'package';
  if (result.ok) {
    const r = result.resolved;
    record.name = r.packageName;
    record.source = { kind, foundIn: r.foundIn, dir: r.packageDir, realDir: r.realDir };
    record.packageName = r.packageName;
    record.version = r.version;
    record.kernelRange = r.manifest.kernel;
    if (r.manifest.description !== undefined) record.description = r.manifest.description;
    if (r.manifest.provides !== undefined) {
      record.provides = { tools: [...(r.manifest.provides.tools ?? [])], hooks: [...(r.manifest.provides.hooks ?? [])] };
    }
  } else {
    const p = result.partial;
    if (p.packageName) record.name = record.packageName = p.packageName;
    if (p.version) record.version = p.version;
    if (p.kernelRange) record.kernelRange = p.kernelRange;
    if (p.provides) record.provides = { tools: [...p.provides.tools], hooks: [...p.provides.hooks] };
    if (p.packageDir && p.realDir && p.foundIn) record.source = { kind: p.foundIn === 'path' ? 'path' : 'package', foundIn: p.foundIn, dir: p.packageDir, realDir: p.realDir };
  }
  return record;
}

/**
 * One package listed twice (by real folder) loads once: from the highest settings layer (a
 * later layer overrides an earlier one, as everywhere in settings; the later entry breaks a tie).
 */
function dedupe(
  toLoad: { index: number; resolved: ResolvedExtension }[],
  records: ExtensionRecord[],
  diagnostics: Diagnostic[],
): { index: number; resolved: ResolvedExtension }[] {
  const winner = new Map<string, { index: number; resolved: ResolvedExtension }>();
  for (const item of toLoad) {
    const current = winner.get(item.resolved.realDir);
    const rank = (x: { resolved: ResolvedExtension }) => LAYER_ORDER.indexOf(x.resolved.entry.layer);
    if (current === undefined || rank(item) >= rank(current)) winner.set(item.resolved.realDir, item);
  }
  const keep = new Set(winner.values());
  for (const item of toLoad) {
    if (keep.has(item)) continue;
    const kept = winner.get(item.resolved.realDir)!.resolved.entry;
    records[item.index]!.status = 'skipped';
    diagnostics.push(
      diagnostic('AIRLOCK_EXTENSION_LISTED_TWICE', subjectOf(item.resolved.entry), {
        spec: item.resolved.entry.spec,
        kept: { layer: kept.layer, ...(kept.file ? { file: kept.file } : {}) },
      }),
    );
  }
  return toLoad.filter((item) => keep.has(item));
}

/** An entry that goes on to load, with its index in the records. */
interface ToLoad {
  index: number;
  resolved: ResolvedExtension;
}

/** A guard settings turned off, and what the run loses by it. */
interface GuardLeftOut {
  spec: string;
  loss: string;
  file?: string;
  layer: ExtensionToLoad['layer'];
}

/** A listed extension that failed and is (or, `unknown`, may be) a policy extension. */
interface PolicyFailure {
  record: ExtensionRecord;
  diagnostic: Diagnostic;
  entry: ExtensionToLoad;
  /** It could not be found or read, so whether it is a policy extension is unknown. */
  unknown: boolean;
}

function blockedBy(failures: PolicyFailure[]): Blocked {
  const first = failures[0]!;
  // Names, specs and files come from settings (a project's too): one line each, escaped.
  const one = (text: string): string => displayText(text, { maxChars: 300 });
  const where = (e: ExtensionToLoad) => (e.file ? ` in ${one(e.file)}` : e.layer === 'cli' ? ' on the command line' : e.layer === 'code' ? ' in the extensions your program passes in code' : '');
  const lines = failures.map(
    (f) =>
      `- "${one(f.record.name)}" (${f.diagnostic.code}${f.unknown ? '; it could not be read, so it may be a policy extension' : ''}): ${f.diagnostic.message.split('\n')[0]}`,
  );
  // The first line, without a trailing "Looked in:" that announces lines left out here.
  const reason = (first.diagnostic.message.split('\n')[0] ?? '').replace(/(?<=\.)\s*[^.]*:$/, '') || first.diagnostic.code;
  // When the extension refused the settings (details.settingsFix), correcting them is the fix;
  // offering to drop a policy extension over a typo in one of its rules would be bad advice.
  const settingsFix = typeof first.diagnostic.details.settingsFix === 'string';
  const optionalToo = !first.record.policy && first.entry.layer !== 'defaults';
  const fix =
    `${first.diagnostic.fix}${settingsFix ? '' : ` Or, to run without it, remove "${one(first.entry.spec)}" from "extensions"${where(first.entry)}${optionalToo ? ` (or, to go on without it whenever it fails, give it "optional": true)` : ''}.`}` +
    ' Run `airlock extensions` for every detail.';
  const anyPolicy = failures.some((f) => f.record.policy);
  const what = anyPolicy
    ? failures.length === 1
      ? 'a policy extension'
      : failures.every((f) => f.record.policy)
        ? `${failures.length} policy extensions`
        : `${failures.length} extensions, policy among them,`
    : failures.length === 1
      ? 'an extension your settings name'
      : `${failures.length} extensions your settings name`;
  const why = anyPolicy
    ? 'and Airlock fails closed rather than run calls without the checks (authorize, approve, redact) your settings ask for.'
    : 'and Airlock fails closed rather than run without what your settings ask for (it may be a policy extension, or a tool the work depends on).';
  const message = `No tool may run: ${what} failed to load, ${why}\n${lines.join('\n')}\nFix: ${fix}`;
  return { extension: first.record.name, extensions: failures.map((f) => f.record.name), code: first.diagnostic.code, reason, fix, message };
}

/** The blocked state in words for the model, which reads it in every refused call's result. */
function refusalFor(b: Blocked): Refusal {
  const which = b.extensions.length === 1 ? `the extension "${b.extension}"` : `the extensions ${b.extensions.map((e) => `"${e}"`).join(', ')}`;
  const first = b.extensions.length === 1 ? '' : `"${b.extension}": `;
  return {
    reason: `${which} failed to load (${first}${b.reason}); the settings name ${b.extensions.length === 1 ? 'it' : 'them'}, and Airlock fails closed rather than run calls without ${b.extensions.length === 1 ? 'it' : 'them'}`,
    fix: b.fix,
  };
}

/**
 * Extensions' `dispose`, newest first (one may use what an earlier one set up), each awaited
 * before the next. A throw or rejection is logged with the extension's name and the rest still run.
 */
async function disposeInReverse(disposers: readonly { extension: string; run: () => unknown }[], log: Logger): Promise<void> {
  for (const { extension, run } of [...disposers].reverse()) {
    try {
      await run();
    } catch (error) {
      log.warn(`[${extension}] dispose failed: ${errorText(error)}`);
    }
  }
}

const SILENT: Logger = { debug() {}, info() {}, warn() {}, error() {} };
