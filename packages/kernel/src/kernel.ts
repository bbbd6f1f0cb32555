import { randomUUID } from 'node:crypto';
import { AccessChecks } from './access-checks.js';
import { SandboxProfiles } from './sandbox-profiles.js';
import { callSandbox } from './call/call-sandbox.js';
import type { AskRequest, ToolUI } from './contract/ask.js';
import type { AccessCheck, FileLedger, FileStamp, SandboxProfile, SandboxProfileProvider, SandboxService, ToolContext, Logger, TruncationLimits } from './contract/context.js';
import type { EventSink, HookRegistrar, KernelEvent } from './contract/hooks.js';
import type { AgentActivity, AgentActivityListener } from './contract/agent-activity.js';
import { OUTCOMES, type Outcome, type ToolCall, type ToolResultMessage } from './contract/outcome.js';
import { createHookBus, type HandlerInfo, type HookBus } from './bus/hooks.js';
import type { ImageResizer } from './call/6-normalize-result.js';
import { DEFAULT_IMAGE_LIMITS } from './output/images.js';
import { EventListeners } from './event-listeners.js';
import type { CallState } from './state/call-state.js';
import { FileMutationQueue } from './file-mutation-queue.js';
import { SpillStore } from './output/spill-store.js';
import { createTruncationService, noticingCuts } from './output/truncation-service.js';
import { resolveLimits } from './output/truncate.js';
import { type SelectOptions, type ToolSelection, ToolRegistry } from './registry.js';
import { refuseBatch, runBatch, type BatchOptions, type BatchResult } from './run-batch.js';
import type { CallRefusal, KernelRuntime, Refusal } from './run-tool-call.js';
import { dryRun, type PreflightReport } from './preflight.js';
import { TextRedactors } from './text-redactors.js';
import { askToShow } from './util/ask.js';
import type { TextRedactor } from './contract/extension.js';

/** The kernel's own version; extensions declare the range they need (`"kernel": "^1.0.0"`). */
export const KERNEL_VERSION = '1.0.0';

export interface KernelOptions {
  /** Where relative paths resolve. Default: process.cwd(). */
  cwd?: string;
  /** Names the spill folder and goes into every ToolContext. Default: a random UUID. */
  sessionId?: string;
  /** Limits for what enters the model's context (default 2,000 lines / 50 KiB). */
  limits?: Partial<TruncationLimits>;
  /**
   * The spill store: its root folder, this session's budget, and the retention policy for all
   * sessions under the root (age, total bytes). Spills outlive the kernel; the policy prunes them.
   */
  spill?: { dir?: string; budgetBytes?: number; retentionMs?: number; totalBudgetBytes?: number };
  /**
   * Images in results. Over `maxDimension` px a side or `maxBytes` of base64 (defaults 2000 and
   * 4.5 MiB), an image goes to `resize`; without one it becomes a note.
   */
  images?: { blockImages?: boolean; imageInput?: boolean; resize?: ImageResizer; maxDimension?: number; maxBytes?: number };
  /** Defaults for batches. */
  execution?: { mode?: 'parallel' | 'sequential'; maxConcurrency?: number; timeoutMs?: number; graceMs?: number };
  /** Minimum interval between forwarded tool_execution_update events per call (default 100 ms). */
  updateThrottleMs?: number;
  ui?: ToolUI;
  log?: Logger;
  /** The environment tools may see (default: an empty object; the host decides what to pass). */
  env?: Readonly<Record<string, string | undefined>>;
  /** The OS sandbox tools run their processes in (`ctx.sandbox`); the host builds it from settings. */
  sandbox?: SandboxService;
}

export interface CallOptions {
  signal?: AbortSignal;
  onEvent?: BatchOptions['onEvent'];
  /** The enabled set (default: every registered tool). */
  tools?: ToolSelection | SelectOptions;
  timeoutMs?: number;
}

/** Options of Kernel.preflight. */
export interface PreflightOptions {
  signal?: AbortSignal;
  /** The enabled set (default: every registered tool). */
  tools?: ToolSelection | SelectOptions;
}

export type KernelBatchOptions = BatchOptions & { tools?: ToolSelection | SelectOptions };

/**
 * One kernel: a registry, a hook bus, one file mutation queue and one spill store, shared by every
 * call it runs.
 *
 * @example
 * const kernel = createKernel({ cwd: process.cwd() });
 * kernel.registry.register(echoTool, { source: 'sdk' });
 * kernel.on('tool_call', (e) => (e.toolName === 'bash' ? { effect: 'ask' } : undefined), { name: 'me/ask-bash', phase: 'authorize' });
 * const { messages } = await kernel.executeBatch([{ id: '1', name: 'echo', arguments: { text: 'hi' } }]);
 */
export class Kernel {
  readonly version = KERNEL_VERSION;
  readonly registry = new ToolRegistry();
  readonly fileMutations = new FileMutationQueue();
  readonly spillStore: SpillStore;
  readonly sessionId: string;
  readonly cwd: string;
  readonly limits: TruncationLimits;
  /** The OS sandbox tools get as `ctx.sandbox`, if the host offers one. */
  readonly sandbox: SandboxService | undefined;
  /** The environment tools see as `ctx.env` (frozen). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly #bus: HookBus;
  readonly #access = new AccessChecks();
  readonly #redactors = new TextRedactors();
  readonly #stuck = { count: 0 };
  readonly #onDispose = new Set<() => void | Promise<void>>();
  readonly #sandboxProfiles = new SandboxProfiles();
  readonly #runtime: KernelRuntime;
  readonly #execution: { mode: 'parallel' | 'sequential'; maxConcurrency: number; timeoutMs: number };
  #defaultSelection: { revision: number; selection: ToolSelection } | undefined;

  constructor(options: KernelOptions = {}) {
    this.cwd = options.cwd ?? process.cwd();
    this.sandbox = options.sandbox;
    this.sessionId = options.sessionId ?? randomUUID();
    this.limits = resolveLimits(options.limits);
    this.spillStore = new SpillStore({
      sessionId: this.sessionId,
      ...(options.spill?.dir === undefined ? {} : { root: options.spill.dir }),
      ...(options.spill?.budgetBytes === undefined ? {} : { budgetBytes: options.spill.budgetBytes }),
      ...(options.spill?.retentionMs === undefined ? {} : { retentionMs: options.spill.retentionMs }),
      ...(options.spill?.totalBudgetBytes === undefined ? {} : { totalBudgetBytes: options.spill.totalBudgetBytes }),
      onWarning: (message) => this.#log.warn(message),
    });
    this.#bus = createHookBus();
    this.#execution = {
      mode: options.execution?.mode ?? 'parallel',
      maxConcurrency: options.execution?.maxConcurrency ?? 8,
      timeoutMs: options.execution?.timeoutMs ?? 0,
    };
    this.#log = options.log ?? SILENT;
    this.#listeners = new EventListeners(this.#log);
    this.#activity = new EventListeners(this.#log, 'kernel.onAgentActivity', 'agent activity listener');
    const truncate = createTruncationService(this.limits);
    const ui = options.ui ?? NO_UI;
    const env = Object.freeze({ ...(options.env ?? {}) });
    this.env = env;
    const imageInput = options.images?.imageInput ?? true;
    const base = {
      cwd: this.cwd,
      sessionId: this.sessionId,
      limits: this.limits,
      truncate,
      spill: (data: string | Uint8Array, o?: Parameters<ToolContext['spill']>[1]) => this.spillStore.spill(data, o),
      openSpill: (o?: Parameters<ToolContext['openSpill']>[0]) => this.spillStore.open(o),
      withFileMutation: <T>(path: string, fn: () => Promise<T>, o?: { signal?: AbortSignal }) =>
        this.fileMutations.run(path, fn, { cwd: this.cwd, ...(o?.signal === undefined ? {} : { signal: o.signal }) }),
      files: createFileLedger(),
      ui,
      log: this.#log,
      env,
      imageInput,
      sandbox: options.sandbox,
    };
    this.#runtime = {
      bus: this.#bus,
      normalize: {
        limits: this.limits,
        images: {
          block: options.images?.blockImages ?? false,
          imageInput,
          maxDimension: options.images?.maxDimension ?? DEFAULT_IMAGE_LIMITS.maxDimension,
          maxBytes: options.images?.maxBytes ?? DEFAULT_IMAGE_LIMITS.maxBytes,
          ...(options.images?.resize ? { resize: options.images.resize } : {}),
        },
        spill: (text, o) => this.spillStore.spill(text, o),
      },
      refusal: undefined,
      updateThrottleMs: options.updateThrottleMs ?? 100,
      graceMs: options.execution?.graceMs ?? 2000,
      stuck: this.#stuck,
      // Spelled out rather than spread: a spread of a dozen keys per call was 7% of the kernel's time.
      contextFor: (state: CallState): ToolContext => ({
        cwd: base.cwd,
        sessionId: base.sessionId,
        toolCallId: state.call.id,
        limits: base.limits,
        truncate: noticingCuts(base.truncate, () => (state.limitedByTool = true)),
        spill: base.spill,
        openSpill: base.openSpill,
        withFileMutation: base.withFileMutation,
        files: base.files,
        ui: base.ui,
        log: base.log,
        env: base.env,
        imageInput: base.imageInput,
        access: this.#access.serviceFor(state.call.name, base.cwd),
        ...(base.sandbox === undefined ? {} : { sandbox: callSandbox(base.sandbox, state) }),
        judged: () => state.judged,
      }),
    };
  }

  readonly #log: Logger;
  readonly #listeners: EventListeners<KernelEvent>;
  readonly #activity: EventListeners<AgentActivity>;

  /**
   * Listen to every call's events (tool_execution_start/update/end, decisions, hook failures),
   * from every entry point, for as long as the kernel lives: the persistent counterpart of a run's
   * `onEvent` option, which still gets the same events. Every run started after this returns
   * reaches the listener. It is called synchronously and never awaited; a throw or a rejection is
   * logged (warn) and the call goes on. Returns the function that removes it.
   *
   * @example
   * const off = kernel.onEvent((e) => { if (e.type === 'tool_execution_end') console.log(e.toolName, e.result.outcome); });
   * await kernel.executeToolCall({ id: '1', name: 'echo', arguments: { text: 'hi' } }); // logs "echo success"
   * off();
   */
  onEvent(listener: EventSink): () => void {
    return this.#listeners.add(listener);
  }

  /**
   * Listen to what agent loops driving this kernel report: runs, turns and model requests with
   * token usage, never message content (see AgentActivity). Called synchronously, never awaited; a
   * throw or rejection is logged and the run goes on. Returns the function that removes it.
   *
   * @example
   * kernel.onAgentActivity((a) => { if (a.type === 'model_request_end') console.log(a.model, a.usage?.output); });
   */
  onAgentActivity(listener: AgentActivityListener): () => void {
    return this.#activity.add(listener);
  }

  /**
   * Tell the agent-activity listeners what a loop did. `@airlock/agent` calls it through its tool
   * runner; call it from a loop of your own so telemetry sees your turns and model requests too.
   * Never throws for a listener's failure.
   *
   * @example
   * kernel.reportAgentActivity({ type: 'turn_start', runId, turnId: `${runId}:1`, turn: 1 });
   */
  reportAgentActivity(activity: AgentActivity): void {
    this.#activity.emit(activity);
  }

  /**
   * Add a handler to a hook phase. Returns a function that removes it.
   *
   * @example
   * kernel.on('tool_result', (e) => ({ content: scrub(e.content) }), { name: 'acme/scrub', phase: 'redact' });
   */
  readonly on: HookRegistrar['on'] = (hook, handler, options) => this.#bus.on(hook, handler, options);

  /**
   * Add a per-file check tools consult through `ctx.access` (see AccessService). Returns a
   * function that removes it.
   *
   * @example
   * kernel.registerAccessCheck(({ path }) => (path.endsWith('.env') ? { effect: 'deny', reason: 'secrets stay closed' } : undefined), { name: 'me/env' });
   */
  registerAccessCheck(check: AccessCheck, options: { name?: string } = {}): () => void {
    return this.#access.add(options.name ?? `access-check-${this.#access.size + 1}`, check);
  }

  /**
   * Add a text redactor (see TextRedactor): what `redactText` applies to text a host writes down
   * outside the tool pipeline, such as session transcripts. Returns a function that removes it.
   *
   * @example
   * kernel.registerRedactor((text) => text.replaceAll(token, '[REDACTED]'), { name: 'me/token' });
   */
  registerRedactor(redactor: TextRedactor, options: { name?: string } = {}): () => void {
    return this.#redactors.add(options.name ?? `redactor-${this.#redactors.size + 1}`, redactor);
  }

  /**
   * The text with every registered redactor applied, in registration order (unchanged when none
   * is registered). Throws when a redactor fails, naming it: the caller withholds the text then.
   *
   * @example
   * kernel.redactText('token ghp_…'); // 'token [REDACTED:github-token#1]' with redact-secrets loaded
   */
  redactText(text: string): string {
    return this.#redactors.apply(text);
  }

  /** How many text redactors are registered (a host can tell "nothing redacts" from "nothing found"). */
  get redactorCount(): number {
    return this.#redactors.size;
  }

  /**
   * Add a provider of the OS sandbox's file rules (see SandboxProfileProvider). Returns a
   * function that removes it.
   *
   * @example
   * kernel.registerSandboxProfile(({ cwd }) => ({ writable: [cwd], readOnly: [], hidden: [], classify: () => undefined }));
   */
  registerSandboxProfile(provider: SandboxProfileProvider): () => void {
    return this.#sandboxProfiles.add(provider);
  }

  /** The registered providers' combined profile for `cwd`; undefined when none is registered. */
  sandboxProfile(cwd: string): SandboxProfile | undefined {
    return this.#sandboxProfiles.profile(cwd);
  }

  /** The handlers registered, in registration order. */
  handlers(): HandlerInfo[] {
    return this.#bus.handlers();
  }

  /** The enabled set for these selection options (see ToolRegistry.select). */
  selectTools(options: SelectOptions = {}): ToolSelection {
    return this.registry.select(options);
  }

  /** Run one call through every stage. Never throws: every outcome is a result message. */
  async executeToolCall(call: ToolCall, options: CallOptions = {}): Promise<ToolResultMessage> {
    const { messages } = await runBatch(this.#runtime, this.#selection(options.tools), [call], {
      signal: options.signal,
      onEvent: this.#listeners.sinkWith(options.onEvent),
      executionMode: 'sequential',
      maxConcurrency: 1,
      timeoutMs: options.timeoutMs ?? this.#execution.timeoutMs,
    });
    return messages[0]!;
  }

  /**
   * Judge one call without running it: stages 1–4 (find the tool, prepare, validate, transform,
   * re-validate and resources, authorize, combine the votes) through the same code as a real call.
   * Nothing is executed and nobody is asked: approve handlers do not run (they may prompt a person
   * or remember an answer), so an ask is reported as `effect: 'ask'` with the votes that asked;
   * observe handlers do not run and no event is emitted, so an audit log records nothing. Transform
   * and authorize handlers do run, as in a real call. Never throws.
   *
   * @example
   * const r = await kernel.preflight({ id: '1', name: 'bash', arguments: { command: 'rm -rf /' } });
   * if (r.effect === 'deny') console.log(r.source, r.reason); // { kind: 'vote', handler: 'acme/guard', rule: 'no-rm' } …
   */
  preflight(call: ToolCall, options: PreflightOptions = {}): Promise<PreflightReport> {
    return dryRun(this.#runtime, this.#selection(options.tools), call, options.signal);
  }

  /** Run one assistant message's calls (see run-batch.ts for the ordering guarantees). */
  executeBatch(calls: readonly ToolCall[], options: KernelBatchOptions = {}): Promise<BatchResult> {
    return runBatch(this.#runtime, this.#selection(options.tools), Array.isArray(calls) ? calls : [], {
      signal: options.signal,
      onEvent: this.#listeners.sinkWith(options.onEvent),
      executionMode: options.executionMode ?? this.#execution.mode,
      maxConcurrency: options.maxConcurrency ?? this.#execution.maxConcurrency,
      timeoutMs: options.timeoutMs ?? this.#execution.timeoutMs,
    });
  }

  /**
   * Answer calls that must not run, without running any part of them: no tool is looked up and
   * no argument read, yet each gets a result (`refusal.outcome`, `refusal.text`) that passes the
   * tool_result hook with the usual events, so the audit log, the redactor and telemetry see it
   * like any other. An agent loop sends here the calls of a message the model did not finish
   * (cut off, failed, aborted while streaming) and calls it could not read. One result per call,
   * in order. Never throws.
   *
   * @example
   * const [m] = await kernel.refuseBatch(calls, { outcome: 'error', text: 'Not run: the output was cut off.' });
   * m.outcome; // 'error'
   */
  refuseBatch(calls: readonly ToolCall[], refusal: CallRefusal, options: { onEvent?: EventSink } = {}): Promise<ToolResultMessage[]> {
    // A malformed refusal still refuses, with words of the kernel's own.
    const given: unknown = refusal?.outcome;
    const outcome = given !== 'ok' && OUTCOMES.includes(given as Outcome) ? (given as CallRefusal['outcome']) : 'error';
    const text = typeof refusal?.text === 'string' && refusal.text !== '' ? refusal.text : 'Not run: the program that drives this agent refused the call.';
    return refuseBatch(this.#runtime, this.#selection(undefined), Array.isArray(calls) ? calls : [], { outcome, text }, this.#listeners.sinkWith(options.onEvent));
  }

  /**
   * Refuse every call from now on, for good: each one still gets a result (outcome `denied`,
   * naming the reason and the fix) and passes the tool_result hook, so auditors see it, but no
   * tool is looked up, no argument read, nothing run. A host calls this when a policy extension
   * failed to load; every way of running calls (executeToolCall, executeBatch, anything built on
   * them) goes through the check. The first refusal stands; later ones are ignored.
   *
   * @example
   * kernel.refuseAll({ reason: 'the policy extension "guard" failed to load (rules file missing)', fix: 'Restore rules.json.' });
   * (await kernel.executeToolCall({ id: '1', name: 'read', arguments: { path: 'a' } })).outcome; // 'denied'
   */
  refuseAll(refusal: Refusal): void {
    if (this.#runtime.refusal !== undefined) return;
    // A malformed refusal still refuses (fail closed), with words of the kernel's own.
    const reason = typeof refusal?.reason === 'string' && refusal.reason !== '' ? refusal.reason : 'the host that runs Airlock refused every call';
    const fix = typeof refusal?.fix === 'string' && refusal.fix !== '' ? refusal.fix : 'Check the host\'s diagnostics (`airlock extensions`).';
    this.#runtime.refusal = Object.freeze({ reason, fix });
  }

  /** Why every call is refused, if it is (see refuseAll). */
  get refusal(): Refusal | undefined {
    return this.#runtime.refusal;
  }

  /**
   * Calls this kernel gave up on (time limit or abort, then the grace period) whose tool has not
   * settled yet. Such a tool may hold a thread in a system call nothing can cancel (a blocking
   * open of a FIFO), and then Node cannot exit: a host about to leave checks this and ends its
   * process the hard way.
   *
   * @example
   * if (kernel.stuckCalls > 0) process.kill(process.pid, 'SIGKILL');
   */
  get stuckCalls(): number {
    return this.#stuck.count;
  }

  /**
   * Run `fn` when the kernel is disposed, before spills in flight are closed. Returns the function that
   * takes it back.
   *
   * @example
   * const off = kernel.onDispose(() => jobs.close());
   */
  onDispose(fn: () => void | Promise<void>): () => void {
    this.#onDispose.add(fn);
    return () => void this.#onDispose.delete(fn);
  }

  /**
   * End the session: dispose callbacks run, spills in flight finish. The spill files stay (a
   * result named them; the retention policy removes them later).
   */
  async dispose(): Promise<void> {
    const callbacks = [...this.#onDispose];
    this.#onDispose.clear();
    await Promise.all(
      callbacks.map(async (fn) => {
        try {
          await fn();
        } catch (error) {
          this.#log.warn(`A dispose callback failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }),
    );
    await this.spillStore.dispose();
  }

  #selection(tools: ToolSelection | SelectOptions | undefined): ToolSelection {
    if (tools !== undefined) return isSelection(tools) ? tools : this.registry.select(tools);
    const revision = this.registry.revision;
    if (this.#defaultSelection?.revision !== revision) this.#defaultSelection = { revision, selection: this.registry.select({}) };
    return this.#defaultSelection.selection;
  }
}

function createFileLedger(): FileLedger {
  const stamps = new Map<string, FileStamp>();
  return {
    note: (path, stamp) => void stamps.set(path, { ...stamp }),
    get: (path) => stamps.get(path),
    forget: (path) => void stamps.delete(path),
  };
}

/** Create a kernel. See {@link Kernel}. */
export function createKernel(options?: KernelOptions): Kernel {
  return new Kernel(options);
}

function isSelection(value: ToolSelection | SelectOptions): value is ToolSelection {
  return typeof (value as ToolSelection).get === 'function' && Array.isArray((value as ToolSelection).enabled);
}

const SILENT: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Nobody to ask: every ask ends `unavailable` at once. A malformed ask still throws, as it would
 * with a person there, so an asker's bug does not hide in runs nobody watches.
 */
export const NO_UI: ToolUI = Object.freeze({
  interactive: false,
  ask: async (request: AskRequest) => {
    askToShow(request);
    return { noAnswer: { kind: 'unavailable' as const, detail: 'no terminal and no dialog to show it in' } };
  },
});
