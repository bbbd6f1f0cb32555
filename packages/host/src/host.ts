import { homedir } from 'node:os';
import { dirname } from 'node:path';
import { createKernel, type Kernel, type KernelBatchOptions, type ToolSelection } from '@airlock/kernel';
import { HostServices, redactionError, registerErrorCodes } from '@airlock/toolkit';
import {
  type Diagnostic,
  type EventSink,
  type Logger,
  type ProtectedPaths,
  type RuleStore,
  type ToolCall,
  type ToolResultMessage,
  type ToolUI,
} from '@airlock/contract';
import { displayFields } from '@airlock/toolkit/display';
import { defaultExtensionEntries, hostPackageDir, inlineExtensionName, loadExtensions, withDefaultSet, type BundledExtensions, type ExtensionToLoad, type InlineExtension, type LoadExtensionsResult } from './extensions/index.js';
import { addPermissionRule, toKernelOptions, toSelectOptions, type LoadedSettings, type PermissionEntry, type SettingsLayer } from './settings/index.js';
import type { TrustDecision } from './trust/index.js';
import { fromExtensionDiagnostic, settingsWithTrust } from './settings-trust.js';
import { protectedPaths } from './protected-paths.js';
import { createSandbox, type HostSandbox } from './sandbox/index.js';
import { chooseUI } from './ui/index.js';

/** What the CLI (or an SDK user) sets on top of the settings files: the highest layer. */
export interface HostFlags {
  tools?: string[];
  noTools?: boolean;
  excludeTools?: string[];
  noBuiltinTools?: boolean;
  executionMode?: 'parallel' | 'sequential';
  maxConcurrency?: number;
}

export interface OpenHostOptions {
  /** The project folder the run starts in. */
  cwd: string;
  /** An explicit settings file: skips discovery. */
  settingsFile?: string;
  flags?: HostFlags;
  /** --trust (true) / --no-trust (false) for this run only. */
  trust?: boolean;
  /** A person can answer dialogs (stdin and stdout are a terminal). */
  interactive: boolean;
  env?: Readonly<Record<string, string | undefined>>;
  homeDir?: string;
  /** One line per message for people (the CLI writes them to stderr). */
  log?: (line: string) => void;
  /** Who answers asks (see createAskUI); default: the TTY prompts when interactive, else the no-op UI. */
  ui?: ToolUI;
  /** Airlock's own extension packages compiled into the caller (the CLI bundle): no jiti for them. */
  bundled?: BundledExtensions;
  /** An extension whose setup takes longer fails to load (default 10,000 ms; 0 = no limit). */
  setupTimeoutMs?: number;
  /** bubblewrap's path (default: `bwrap` on PATH). For tests and SDK users; settings never name it. */
  sandboxProgram?: string;
  /**
   * The processor architecture the sandbox's seccomp filter is built for; default `process.arch`.
   * For tests of a machine where the filter cannot apply (`'riscv64'`), never from settings.
   */
  sandboxArch?: string;
  /**
   * Settings in code: one layer over the user's and the project's files, under `flags`, validated
   * like a file (a bad value throws a SettingsError). Its `extensions` entries (package names,
   * paths) load like any other layer's.
   *
   * @example
   * openHost({ cwd, interactive: false, settings: { permissions: { deny: ['fs.read(**\/.env)'] } } });
   */
  settings?: SettingsLayer;
  /**
   * Extension modules in code, loaded after the settings' extensions through the same steps as a
   * package (manifest checks, kernel range, options, setup, fail-closed); see {@link InlineExtension}.
   */
  modules?: readonly InlineExtension[];
}

registerErrorCodes('host (openHost)', {
  AIRLOCK_UNTRUSTED_ALLOW_RULES: {
    severity: 'warning',
    message: 'Ignored {n} allow rules from {file}: the folder is not trusted, and an allow rule lets calls run without asking. Its deny and ask rules apply.',
    action: 'Review the rules, then run `airlock trust <dir>` (or pass --trust for this run only).',
  },
  AIRLOCK_SANDBOX_UNAVAILABLE: {
    severity: 'warning',
    message: '{problem} With sandbox.mode "required" bash refuses every command; otherwise commands run without the sandbox and the shell analysis asks for what it cannot judge.',
    action: 'Follow the fix the message gives (install bubblewrap, allow user namespaces), or set sandbox.mode to "off" to run without it knowingly.',
  },
  AIRLOCK_SANDBOX_WEAKER: {
    severity: 'warning',
    message: 'The OS sandbox runs without its seccomp filter ({why}): commands can connect to any Unix socket on the machine.',
    action: 'Run Airlock where the seccomp filter applies (x86_64 or arm64 Linux with seccomp filters), or set sandbox.mode to "required" so commands are refused instead of running in the weaker sandbox.',
  },
});

/** Why an open host refuses every call. */
export interface HostBlocked {
  /** The whole explanation, for people. */
  message: string;
  fix: string;
  /** The (first) policy extension that failed, and every one that did. */
  extension: string;
  extensions: string[];
  /** What went wrong with the first one, in one line. */
  reason: string;
}

/**
 * An open Airlock host: settings loaded, trust decided, extensions loaded into one kernel.
 * `execute` and `batch` run calls with the enabled tools and fan events out to extensions.
 */
export interface Host {
  readonly kernel: Kernel;
  /** What extensions registered beside the kernel: access checks, redactors, sandbox profiles, activity listeners. */
  readonly services: HostServices;
  readonly settings: LoadedSettings;
  readonly trust: TrustDecision | undefined;
  readonly extensions: LoadExtensionsResult;
  /** The enabled set now: recomputed, with the same settings and flags, whenever an extension changes its tool set (api.toolSet). */
  readonly selection: ToolSelection;
  readonly diagnostics: readonly Diagnostic[];
  /** Airlock's own settings, trust and state files, which no tool may write (what extensions get as `api.protectedPaths`). */
  readonly protectedPaths: ProtectedPaths;
  /**
   * Set when a policy extension failed to load: no tool may run (fail closed). The kernel itself
   * refuses every call then (`execute`, `batch`, and `kernel` used directly): each gets a `denied`
   * result naming the extension and the fix; this field is for telling people before any call.
   */
  readonly blocked: HostBlocked | undefined;
  /** The OS sandbox tools run processes in (`ctx.sandbox`), and its profile in words. */
  readonly sandbox: HostSandbox;
  /**
   * The text with every redactor extensions registered applied (redact-secrets': tokens, keys,
   * secret environment values), for what a program writes down beside the tool pipeline, such
   * as session transcripts. Throws when a redactor fails or a policy extension failed to load
   * (`blocked`): the caller must withhold the text then, never write it in clear.
   *
   * @example
   * openTranscript({ cwd, model, redact: host.redact, where: { env: process.env, home: homedir() } });
   */
  redact(text: string): string;
  execute(call: ToolCall, options?: { signal?: AbortSignal; onEvent?: EventSink; timeoutMs?: number }): Promise<ToolResultMessage>;
  batch(calls: readonly ToolCall[], options?: KernelBatchOptions): Promise<{ messages: ToolResultMessage[]; terminate: boolean }>;
  /**
   * Be told when the enabled set changed after the host opened (an extension replaced its tool
   * set: an MCP server's tools changed), with the new selection; once per change, not per tool.
   * Returns the function that stops listening. `airlock mcp` tells its client with
   * `notifications/tools/list_changed`.
   *
   * @example
   * host.onToolsChanged((selection) => console.log(selection.enabled.map((e) => e.tool.name)));
   */
  onToolsChanged(listener: (selection: ToolSelection) => void): () => void;
  close(): Promise<void>;
}

/**
 * Open a host for a folder: settings (defaults, user, project, flags), project trust, the kernel
 * and its extensions. Throws a SettingsError when a settings file is invalid (nothing runs then);
 * every other problem is a diagnostic, and a failed policy extension sets `blocked` and makes the
 * kernel refuse every call (outcome `denied`), whoever makes it.
 *
 * @example
 * const host = await openHost({ cwd: process.cwd(), interactive: process.stdin.isTTY === true });
 * if (host.blocked) console.error(host.blocked.message); // calls would be refused anyway
 * const result = await host.execute({ id: '1', name: 'read', arguments: { path: 'README.md' } });
 */
export async function openHost(options: OpenHostOptions): Promise<Host> {
  const env = options.env ?? process.env;
  const homeDir = options.homeDir ?? homedir();
  const say = options.log ?? (() => {});
  const ui = options.ui ?? chooseUI({ isTTY: options.interactive });

  const { settings, trust, diagnostics, projectAllows, trustDir } = await settingsWithTrust(options, ui);
  if (projectAllows.length > 0 && trust?.trusted !== true) {
    dropAllows(settings, projectAllows);
    // Paths from the project: one line each (displayFields), so none can add a line to the message.
    const shown = displayFields({ files: [...new Set(projectAllows.map((p) => p.file ?? p.layer))].join(', '), dir: trustDir ?? options.cwd });
    diagnostics.push({
      code: 'AIRLOCK_UNTRUSTED_ALLOW_RULES',
      severity: 'warning',
      details: { ignored: projectAllows.length },
      message: `Ignored ${projectAllows.length} allow rule${projectAllows.length === 1 ? '' : 's'} from ${shown.files}: the folder is not trusted, and an allow rule lets calls run without asking. Its deny and ask rules apply.`,
      fix: `Review the rules, then run \`airlock trust ${shown.dir}\` (or pass --trust for this run only).`,
    });
  }

  const log: Logger = {
    debug: () => {},
    info: (m) => say(m),
    warn: (m) => say(`warning: ${m}`),
    error: (m) => say(`error: ${m}`),
  };
  // What extensions register beside the kernel (access checks, redactors, sandbox profiles,
  // activity listeners). The sandbox is detected before the kernel exists (it hands the service to
  // every call); the profile comes from the providers policy extensions register, asked at each wrap.
  const services = new HostServices(log);
  const sandbox = await createSandbox({
    mode: settings.settings.sandbox.mode,
    profile: (cwd) => services.sandboxProfiles.profile(cwd),
    ...(options.sandboxProgram === undefined ? {} : { program: options.sandboxProgram }),
    ...(options.sandboxArch === undefined ? {} : { arch: options.sandboxArch }),
    ...(env.PATH === undefined ? {} : { path: env.PATH }),
  });
  const status = sandbox.service.status;
  if (!status.active && status.mode !== 'off') {
    diagnostics.push({
      code: 'AIRLOCK_SANDBOX_UNAVAILABLE',
      severity: 'warning',
      details: { mode: status.mode },
      message:
        status.mode === 'required'
          ? `${status.problem} sandbox.mode is "required", so bash refuses every command.`
          : `${status.problem} Commands run without it; the shell analysis asks for what it cannot judge.`,
      ...(status.fix === undefined ? {} : { fix: status.fix }),
    });
  }
  if (status.active && status.weaker !== undefined) {
    diagnostics.push({ code: 'AIRLOCK_SANDBOX_WEAKER', severity: 'warning', details: { mode: status.mode, unixSockets: status.unixSockets }, message: status.weaker });
  }
  const kernel = createKernel({ cwd: options.cwd, ...toKernelOptions(settings.settings), ui, log, env, sandbox: sandbox.service, access: services.access });
  // Settings add to the default set; leaving a default out takes an explicit entry ("-@airlock/audit-log"),
  // which an untrusted project's entries cannot be (the loader skips them and keeps the default).
  const entries = [...withDefaultSet(settings.extensions, defaultExtensionEntries(hostPackageDir())), ...(options.modules ?? []).map((m, i) => moduleEntry(m, i, options.cwd))];
  const guarded = protectedPaths({
    cwd: options.cwd,
    homeDir,
    env,
    ...(settings.projectDir === undefined ? {} : { projectDir: settings.projectDir }),
    ...(options.settingsFile === undefined ? {} : { settingsFile: options.settingsFile }),
    spillRoot: dirname(kernel.session.spillDir),
    extensions: settings.extensions,
  });
  const extensions = await loadExtensions({
    entries,
    kernel,
    services,
    sandbox: sandbox.service,
    trust: { trusted: trust?.trusted ?? false, ...(settings.projectDir === undefined ? {} : { projectDir: settings.projectDir }) },
    ui,
    log,
    settings,
    cwd: options.cwd,
    env: { ...env },
    ...(options.bundled === undefined ? {} : { bundled: options.bundled }),
    ...(options.setupTimeoutMs === undefined ? {} : { setupTimeoutMs: options.setupTimeoutMs }),
    rules: createRuleStore({ local: settings.localFile, user: settings.userFile }, trust?.trusted === true, (file) => sandbox.expectWrite(file)),
    protectedPaths: guarded,
  });
  diagnostics.push(...extensions.diagnostics.map(fromExtensionDiagnostic));
  // loadExtensions has already made the kernel refuse every call (see there); this is for people.
  const blocked = extensions.blocked === undefined ? undefined : blockedFrom(extensions.blocked);
  // The sandbox's walk of the workspace, started in the background: the first command finds it done.
  if (blocked === undefined) {
    kernel.onEvent((event) => {
      if (event.type === 'tool_execution_start') sandbox.calls(1);
      else if (event.type === 'tool_execution_end') sandbox.calls(-1);
    });
    sandbox.warm(options.cwd);
  }

  const selectOptions = toSelectOptions(settings.settings.tools);
  const initial = kernel.registry.select(selectOptions);
  diagnostics.push(...initial.diagnostics.map((d) => ({ ...d, details: { ...d.details } })));
  // Extensions may change their tool sets after load (an MCP server's list changed): the enabled
  // set follows the registry, with the same settings and flags, so new tools are selected (or
  // left out) by the same rules and removed ones are gone.
  let current = { revision: kernel.registry.revision, selection: initial };
  const selectionNow = (): ToolSelection => {
    if (current.revision !== kernel.registry.revision) current = { revision: kernel.registry.revision, selection: kernel.registry.select(selectOptions) };
    return current.selection;
  };

  return {
    kernel,
    services,
    settings,
    trust,
    extensions,
    get selection() {
      return selectionNow();
    },
    diagnostics,
    protectedPaths: guarded,
    blocked,
    sandbox,
    redact: (text) => {
      if (blocked !== undefined) throw redactionError(`the policy extension "${blocked.extension}" failed to load (${blocked.reason}), so nothing is written in clear`);
      return services.redactors.apply(text);
    },
    onToolsChanged: (listener) => {
      let seen = enabledTools(selectionNow());
      return kernel.registry.onChange(() => {
        const selection = selectionNow();
        const tools = enabledTools(selection);
        // A change among tools the settings leave out is no change of the enabled set; a
        // definition replaced under its name is (its schema or description may differ).
        if (tools.length === seen.length && tools.every((tool, i) => tool === seen[i])) return;
        seen = tools;
        try {
          listener(selection);
        } catch (error) {
          log.warn(`A tools-changed listener failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      });
    },
    // Extensions' listeners are on the kernel (kernel.onEvent); `o.onEvent` is the caller's own.
    execute: (call, o = {}) => kernel.executeToolCall(call, { ...o, tools: selectionNow() }),
    batch: (calls, o = {}) => kernel.executeBatch(calls, { ...o, tools: o.tools ?? selectionNow() }),
    close: async () => {
      await sandbox.dispose();
      await kernel.dispose();
    },
  };
}

function enabledTools(selection: ToolSelection): readonly object[] {
  return selection.enabled.map((entry) => entry.tool);
}

/** A module passed in code as an entry of the `code` layer: it loads (and fails closed) like a listed package. */
function moduleEntry(module: InlineExtension, index: number, cwd: string): ExtensionToLoad {
  return {
    spec: inlineExtensionName(module) ?? `module #${index + 1}`,
    layer: 'code',
    baseDir: cwd,
    module,
    ...(module.options === undefined ? {} : { options: module.options }),
    ...(module.optional === undefined ? {} : { optional: module.optional }),
  };
}

function blockedFrom(b: NonNullable<LoadExtensionsResult['blocked']>): HostBlocked {
  return { message: b.message, fix: b.fix, extension: b.extension, extensions: [...b.extensions], reason: b.reason };
}

/** `api.rules`: a person's "always" answers go to the project's local rules or the user's settings. */
function createRuleStore(files: { local: string; user: string }, localCounts: boolean, willWrite: (file: string) => void): RuleStore {
  return {
    files,
    localCounts,
    add: (effect, rule, where) => {
      // The sandbox takes back settings a command creates; this one is the person's own answer.
      willWrite(files[where]);
      return addPermissionRule(files[where], effect, rule, where);
    },
  };
}

/** Remove `dropped` from the rules, so neither extensions nor `policy explain` see them. */
function dropAllows(settings: LoadedSettings, dropped: readonly PermissionEntry[]): void {
  const gone = new Set(dropped);
  settings.permissions = settings.permissions.filter((p) => !gone.has(p));
}
