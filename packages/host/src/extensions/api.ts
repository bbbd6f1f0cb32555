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
import { createToolSet, type HostToolSet } from './tool-set.js';
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
  /** Already frozen; shared by every extension. */
  settings: Readonly<Record<string, unknown>>;
  cwd: string;
  rules?: RuleStore;
  /** Airlock's own files (settings, trust, state); handed to every extension as `api.protectedPaths`. */
  protectedPaths?: ProtectedPaths;
  /** The extensions loaded so far in this load (complete once it ends): what `api.loadedExtensions()` returns. */
  loadedExtensions?: () => readonly LoadedExtensionInfo[];
}

/** A registration the kernel refused; it is thrown into setup and reported. */
export interface RegistrationError {
  kind: 'tool' | 'handler';
  name: string;
  error: unknown;
}

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
  const registrationErrors: RegistrationError[] = [];
  const unjudged: { tool: string; parameters: string[] }[] = [];
  const undo: { what: string; run: () => void }[] = [];
  let sealed = false;
  let policy = false;

  const refuseWhenSealed = (method: string): void => {
    if (!sealed) return;
    const message =
      `Extension "${ctx.extension}" called api.${method} after its setup finished. Register tools, handlers and ` +
      'listeners inside setup (await anything they need first), so a failed load can be undone and `airlock extensions` shows them.';
    ctx.log.warn(message);
    throw new Error(message);
  };

  // Caught here too (the kernel catches as well), so the warning names the extension whose listener failed.
  const guarded =
    <E extends { type: string }>(what: string, listener: (event: E) => unknown) =>
    (event: E): void => {
      const report = (error: unknown): void => ctx.log.warn(`[${ctx.extension}] ${what} failed on ${event.type}: ${errorText(error)}`);
      try {
        const returned = listener(event);
        if (returned instanceof Promise) returned.catch(report);
      } catch (error) {
        report(error);
      }
    };

  const namespaced = (name: unknown): unknown =>
    typeof name === 'string' && name.trim() !== '' && !name.startsWith(`${ctx.extension}/`) ? `${ctx.extension}/${name}` : name;

  const on = ((hook: HookName, handler: unknown, options: HandlerOptions) => {
    refuseWhenSealed('on');
    const isObject = typeof options === 'object' && options !== null;
    const name = namespaced(isObject ? options.name : undefined);
    const phase = isObject ? String(options.phase) : '?';
    let off: () => void;
    try {
      // Non-objects go to the kernel unchanged, so its own message explains what is missing.
      off = ctx.kernel.on(hook as never, handler as never, (isObject ? { ...options, name } : options) as never);
    } catch (error) {
      registrationErrors.push({ kind: 'handler', name: typeof name === 'string' ? name : '?', error });
      throw error;
    }
    const record: RegisteredHandler = { hook, phase, name: name as string };
    handlers.push(record);
    if (POLICY_PHASES.includes(`${hook}:${phase}`)) policy = true;
    let done = false;
    const remove = () => {
      if (done) return;
      done = true;
      off();
      const i = handlers.indexOf(record);
      if (i >= 0) handlers.splice(i, 1);
    };
    undo.push({ what: `handler "${record.name}" (${hook}:${phase})`, run: remove });
    // The extension may remove its own handler later; that is not a registration, so no seal check.
    return remove;
  }) as HookRegistrar['on'];

  const log = prefixedLogger(ctx.log, ctx.extension);
  const toolSets = new Map<string, HostToolSet>();

  const api: ExtensionAPI = Object.freeze({
    registerTool(tool: AnyAgentTool): void {
      refuseWhenSealed('registerTool');
      const name = typeof (tool as { name?: unknown } | null)?.name === 'string' ? (tool as { name: string }).name : '?';
      let off: () => void;
      try {
        const unknown = unknownToolKeys(tool);
        if (unknown.length > 0) throw new Error(`tool "${name}" has keys the kernel does not read (they would do nothing): ${unknown.join('; ')}`);
        off = ctx.kernel.registry.register(tool, { source: ctx.toolSource, origin: ctx.origin });
      } catch (error) {
        registrationErrors.push({ kind: 'tool', name, error });
        throw error;
      }
      tools.push(name);
      const parameters = unjudgedPathParameters(tool);
      if (parameters.length > 0) unjudged.push({ tool: name, parameters });
      undo.push({
        what: `tool "${name}"`,
        run: () => {
          off();
          const i = tools.indexOf(name);
          if (i >= 0) tools.splice(i, 1);
        },
      });
    },
    on,
    onEvent(listener: EventSink): void {
      refuseWhenSealed('onEvent');
      if (typeof listener !== 'function') throw new TypeError(`api.onEvent needs a function, got ${typeof listener}`);
      // The kernel's own listener list: every entry point's calls reach it, whoever runs them.
      const off = ctx.kernel.onEvent(guarded('event listener', listener));
      listeners.push(listener);
      undo.push({
        what: 'an event listener',
        run: () => {
          off();
          const i = listeners.indexOf(listener);
          if (i >= 0) listeners.splice(i, 1);
        },
      });
    },
    onAgentActivity(listener: AgentActivityListener): void {
      refuseWhenSealed('onAgentActivity');
      if (typeof listener !== 'function') throw new TypeError(`api.onAgentActivity needs a function, got ${typeof listener}`);
      const off = ctx.services.activity.add(guarded('agent activity listener', listener));
      undo.push({ what: 'an agent activity listener', run: off });
    },
    loadedExtensions: () => ctx.loadedExtensions?.() ?? [],
    // Commands are declared in the manifest, so --help needs no setup. An extension that calls
    // this still loads: its command is left out, and the loader says how to declare it.
    registerCommand(command: unknown): void {
      const name = (command as { name?: unknown } | null)?.name;
      undeclaredCommands.push(typeof name === 'string' ? name : '?');
    },
    registerAccessCheck(check: AccessCheck, options?: { name?: string }): void {
      refuseWhenSealed('registerAccessCheck');
      const name = (namespaced(options?.name ?? 'access-check') as string) || `${ctx.extension}/access-check`;
      let off: () => void;
      try {
        off = ctx.services.access.add(name, check);
      } catch (error) {
        registrationErrors.push({ kind: 'handler', name, error });
        throw error;
      }
      // A per-file check is policy: if its extension fails to load, nothing may run (fail closed).
      policy = true;
      undo.push({ what: `access check "${name}"`, run: off });
    },
    registerRedactor(redactor: TextRedactor, options?: { name?: string }): void {
      refuseWhenSealed('registerRedactor');
      const name = (namespaced(options?.name ?? 'redactor') as string) || `${ctx.extension}/redactor`;
      let off: () => void;
      try {
        off = ctx.services.redactors.add(name, redactor);
      } catch (error) {
        registrationErrors.push({ kind: 'handler', name, error });
        throw error;
      }
      // A redactor is policy: if its extension fails to load, nothing may run (fail closed).
      policy = true;
      undo.push({ what: `text redactor "${name}"`, run: off });
    },
    registerSandboxProfile(provider: SandboxProfileProvider): void {
      refuseWhenSealed('registerSandboxProfile');
      const off = ctx.services.sandboxProfiles.add(provider);
      // The sandbox's rules are policy: if their extension fails to load, nothing may run.
      policy = true;
      undo.push({ what: 'a sandbox profile provider', run: off });
    },
    toolSet(name: string) {
      refuseWhenSealed('toolSet');
      if (toolSets.has(name)) throw new Error(`api.toolSet("${name}") was already created by this extension; keep the object it returned`);
      const set = createToolSet({ kernel: ctx.kernel, extension: ctx.extension, origin: ctx.origin, toolSource: ctx.toolSource, log, tools }, name);
      toolSets.set(name, set);
      undo.push({ what: `tool set "${name}"`, run: () => set.close() });
      return set;
    },
    ui: ctx.ui,
    log,
    settings: ctx.settings,
    kernelVersion: KERNEL_VERSION,
    cwd: ctx.cwd,
    sessionId: ctx.kernel.session.id,
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
      return policy;
    },
    registrationErrors,
    unjudged,
    toolSetTools: () => [...toolSets.values()].flatMap((set) => set.names),
    seal() {
      sealed = true;
    },
    rollback() {
      const removed: string[] = [];
      while (undo.length > 0) {
        const step = undo.pop()!;
        step.run();
        removed.push(step.what);
      }
      return removed.reverse();
    },
  };
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
