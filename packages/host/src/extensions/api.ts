import type {
  AccessCheck,
  AgentActivityListener,
  AnyAgentTool,
  EventSink,
  ExtensionAPI,
  HandlerOptions,
  HookName,
  HookRegistrar,
  LoadedExtensionInfo,
  Logger,
  ProtectedPaths,
  RuleStore,
  SandboxProfileProvider,
  SandboxService,
  TextRedactor,
  ToolUI,
} from '@airlock/contract';
import { KERNEL_VERSION, type Kernel, type ToolSource } from '@airlock/kernel';
import type { HostServices } from '@airlock/toolkit';
import { errorText } from './diagnostics.js';
import { POLICY_PHASES } from './manifest.js';
import { unjudgedPathParameters, unknownToolKeys } from './tool-checks.js';
import { Registrations, type RegistrationError } from './registrations.js';
import { createToolSet, type HostToolSet } from './tool-set.js';

export type { RegistrationError };
import type { RegisteredHandler } from './types.js';

/**
 * The ExtensionAPI one extension receives in `setup`. Each extension gets its own, which
 * records everything it registers, so that:
 * - a setup that fails can be rolled back completely (the kernel hands back an unregister
 *   function for every tool and handler);
 * - after setup has settled the API is sealed: a registration from a stray timer would escape
 *   the rollback and the load report, so it throws instead;
 * - handler names are namespaced: a name without the `<extension>/` prefix gets it (never
 *   rejected — the prefix is the convention, not something worth failing a load over). So
 *   `"deny-rules"` becomes `"path-policy/deny-rules"`, and an extension cannot pass itself off
 *   as another in decisions and audit records (`"path-policy/x"` from `acme` becomes
 *   `"acme/path-policy/x"`), nor take another extension's handler name to make it fail.
 */

export interface ApiContext {
  kernel: Kernel;
  /** Where access checks, redactors, sandbox profiles and agent-activity listeners go. */
  services: HostServices;
  /** The OS sandbox the host built, offered as `api.sandbox` and `api.processSandbox`. */
  sandbox?: SandboxService;
  /** The extension's own name: the handler namespace and the log prefix. */
  extension: string;
  /** `package@version`, recorded as each tool's origin. */
  origin: string;
  /** `builtin` for Airlock's own tool packages (so --no-builtin-tools applies), else `extension`. */
  toolSource: ToolSource;
  ui: ToolUI;
  log: Logger;
  /** The settings the extension declared it reads, checked and frozen (settings-slice.ts); `{}` when none. */
  settings: Readonly<Record<string, unknown>>;
  cwd: string;
  rules?: RuleStore;
  /** Airlock's own files (settings, trust, state); handed to every extension as `api.protectedPaths`. */
  protectedPaths?: ProtectedPaths;
  /** The extensions loaded so far in this load (complete once it ends): what `api.loadedExtensions()` returns. */
  loadedExtensions?: () => readonly LoadedExtensionInfo[];
}

/** A registration the kernel refused; it is thrown into setup and reported. */

export interface ExtensionSandbox {
  readonly api: ExtensionAPI;
  /** Tool names registered (and still registered). */
  readonly tools: string[];
  readonly handlers: RegisteredHandler[];
  readonly listeners: EventSink[];
  /** Names given to `api.registerCommand`, which adds nothing (the loader says how to declare them). */
  readonly undeclaredCommands: readonly string[];
  /** Registered an authorize, approve or redact handler at some point (rollback does not reset it). */
  readonly policy: boolean;
  readonly registrationErrors: readonly RegistrationError[];
  /** Tools that take a path-like parameter but declare no resources(): policy judges them by name only. */
  readonly unjudged: readonly { tool: string; parameters: string[] }[];
  /** Tools held by its tool sets (api.toolSet) now: their names come from a source at run time, so no manifest can list them. */
  toolSetTools(): string[];
  /** Stop accepting registrations (call once setup has settled, however it settled). */
  seal(): void;
  /** Remove everything registered, newest first. Returns what was removed, e.g. `tool "echo"`. */
  rollback(): string[];
}

/**
 * @example
 * const box = createExtensionApi({ kernel, extension: 'hello', origin: 'hello-ext@1.0.0', toolSource: 'extension', ui, log, settings, cwd });
 * await ext.setup(box.api, options);
 * box.seal();
 */
export function createExtensionApi(ctx: ApiContext): ExtensionSandbox {
  const tools: string[] = [];
  const handlers: RegisteredHandler[] = [];
  const listeners: EventSink[] = [];
  const undeclaredCommands: string[] = [];
  const unjudged: { tool: string; parameters: string[] }[] = [];
  const reg = new Registrations(ctx.extension, ctx.log);
  const log = prefixedLogger(ctx.log, ctx.extension);
  const toolSets = new Map<string, HostToolSet>();
  const named = (name: string | undefined, fallback: string): string => (namespaced(ctx.extension, name ?? fallback) as string) || `${ctx.extension}/${fallback}`;

  const api: ExtensionAPI = Object.freeze({
    registerTool(tool: AnyAgentTool): void {
      reg.refuseWhenSealed('registerTool');
      const name = typeof (tool as { name?: unknown } | null)?.name === 'string' ? (tool as { name: string }).name : '?';
      const off = reg.register('tool', name, () => {
        const unknown = unknownToolKeys(tool);
        if (unknown.length > 0) throw new Error(`tool "${name}" has keys the kernel does not read (they would do nothing): ${unknown.join('; ')}`);
        return ctx.kernel.registry.register(tool, { source: ctx.toolSource, origin: ctx.origin });
      });
      tools.push(name);
      const parameters = unjudgedPathParameters(tool);
      if (parameters.length > 0) unjudged.push({ tool: name, parameters });
      reg.undoWith(`tool "${name}"`, () => {
        off();
        remove(tools, name);
      });
    },
    on: handlerRegistrar(ctx, reg, handlers),
    onEvent(listener: EventSink): void {
      reg.refuseWhenSealed('onEvent');
      if (typeof listener !== 'function') throw new TypeError(`api.onEvent needs a function, got ${typeof listener}`);
      // The kernel's own listener list: every entry point's calls reach it, whoever runs them.
      const off = ctx.kernel.onEvent(guarded(ctx, 'event listener', listener));
      listeners.push(listener);
      reg.undoWith('an event listener', () => {
        off();
        remove(listeners, listener);
      });
    },
    onAgentActivity(listener: AgentActivityListener): void {
      reg.refuseWhenSealed('onAgentActivity');
      if (typeof listener !== 'function') throw new TypeError(`api.onAgentActivity needs a function, got ${typeof listener}`);
      reg.undoWith('an agent activity listener', ctx.services.activity.add(guarded(ctx, 'agent activity listener', listener)));
    },
    loadedExtensions: () => ctx.loadedExtensions?.() ?? [],
    // Commands are declared in the manifest, so --help needs no setup. An extension that calls
    // this still loads: its command is left out, and the loader says how to declare it.
    registerCommand(command: unknown): void {
      const name = (command as { name?: unknown } | null)?.name;
      undeclaredCommands.push(typeof name === 'string' ? name : '?');
    },
    // Access checks, redactors and sandbox rules are policy: if their extension fails to load, nothing may run.
    registerAccessCheck(check: AccessCheck, options?: { name?: string }): void {
      reg.refuseWhenSealed('registerAccessCheck');
      const name = named(options?.name, 'access-check');
      reg.undoWith(`access check "${name}"`, reg.register('handler', name, () => ctx.services.access.add(name, check)));
      reg.markPolicy();
    },
    registerRedactor(redactor: TextRedactor, options?: { name?: string }): void {
      reg.refuseWhenSealed('registerRedactor');
      const name = named(options?.name, 'redactor');
      reg.undoWith(`text redactor "${name}"`, reg.register('handler', name, () => ctx.services.redactors.add(name, redactor)));
      reg.markPolicy();
    },
    registerSandboxProfile(provider: SandboxProfileProvider): void {
      reg.refuseWhenSealed('registerSandboxProfile');
      reg.undoWith('a sandbox profile provider', ctx.services.sandboxProfiles.add(provider));
      reg.markPolicy();
    },
    toolSet(name: string) {
      reg.refuseWhenSealed('toolSet');
      if (toolSets.has(name)) throw new Error(`api.toolSet("${name}") was already created by this extension; keep the object it returned`);
      const set = createToolSet({ kernel: ctx.kernel, extension: ctx.extension, origin: ctx.origin, toolSource: ctx.toolSource, log, tools }, name);
      toolSets.set(name, set);
      reg.undoWith(`tool set "${name}"`, () => set.close());
      return set;
    },
    ui: ctx.ui,
    log,
    settings: ctx.settings,
    kernelVersion: KERNEL_VERSION,
    cwd: ctx.cwd,
    sessionId: ctx.kernel.session.id,
    transcriptPath: () => ctx.services.transcriptPath,
    env: ctx.kernel.session.env,
    ...(ctx.rules === undefined ? {} : { rules: ctx.rules }),
    ...(ctx.protectedPaths === undefined ? {} : { protectedPaths: ctx.protectedPaths }),
    ...(ctx.sandbox === undefined ? {} : { sandbox: ctx.sandbox.status, processSandbox: ctx.sandbox }),
  });

  return {
    api,
    tools,
    handlers,
    listeners,
    undeclaredCommands,
    get policy() {
      return reg.policy;
    },
    registrationErrors: reg.errors,
    unjudged,
    toolSetTools: () => [...toolSets.values()].flatMap((set) => set.names),
    seal: () => reg.seal(),
    rollback: () => reg.rollback(),
  };
}

/** `api.on`: the kernel's, with the handler's name prefixed by the extension's, and undone with a failed load. */
function handlerRegistrar(ctx: ApiContext, reg: Registrations, handlers: RegisteredHandler[]): HookRegistrar['on'] {
  return ((hook: HookName, handler: unknown, options: HandlerOptions) => {
    reg.refuseWhenSealed('on');
    const isObject = typeof options === 'object' && options !== null;
    const name = namespaced(ctx.extension, isObject ? options.name : undefined);
    const phase = isObject ? String(options.phase) : '?';
    // Non-objects go to the kernel unchanged, so its own message explains what is missing.
    const off = reg.register('handler', typeof name === 'string' ? name : '?', () => ctx.kernel.on(hook as never, handler as never, (isObject ? { ...options, name } : options) as never));
    const record: RegisteredHandler = { hook, phase, name: name as string };
    handlers.push(record);
    if (POLICY_PHASES.includes(`${hook}:${phase}`)) reg.markPolicy();
    let done = false;
    const removeHandler = () => {
      if (done) return;
      done = true;
      off();
      remove(handlers, record);
    };
    reg.undoWith(`handler "${record.name}" (${hook}:${phase})`, removeHandler);
    // The extension may remove its own handler later; that is not a registration, so no seal check.
    return removeHandler;
  }) as HookRegistrar['on'];
}

/** `name` under the extension's namespace (`guard/rules`), unless it already is or is not a name. */
function namespaced(extension: string, name: unknown): unknown {
  return typeof name === 'string' && name.trim() !== '' && !name.startsWith(`${extension}/`) ? `${extension}/${name}` : name;
}

/** A listener whose failure is logged naming the extension (the kernel catches it as well, without the name). */
function guarded<E extends { type: string }>(ctx: ApiContext, what: string, listener: (event: E) => unknown): (event: E) => void {
  return (event) => {
    const report = (error: unknown): void => ctx.log.warn(`[${ctx.extension}] ${what} failed on ${event.type}: ${errorText(error)}`);
    try {
      const returned = listener(event);
      if (returned instanceof Promise) returned.catch(report);
    } catch (error) {
      report(error);
    }
  };
}

function remove<T>(list: T[], item: T): void {
  const i = list.indexOf(item);
  if (i >= 0) list.splice(i, 1);
}

/** `[hello] message`: every line says which extension wrote it. */
export function prefixedLogger(log: Logger, prefix: string): Logger {
  const tag = `[${prefix}] `;
  return Object.freeze({
    debug: (message: string, data?: unknown) => log.debug(tag + message, data),
    info: (message: string, data?: unknown) => log.info(tag + message, data),
    warn: (message: string, data?: unknown) => log.warn(tag + message, data),
    error: (message: string, data?: unknown) => log.error(tag + message, data),
  });
}
