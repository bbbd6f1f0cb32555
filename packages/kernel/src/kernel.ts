import { randomUUID } from 'node:crypto';
import type { AccessProvider, AskRequest, EventSink, FileLedger, FileStamp, HookRegistrar, KernelEvent, Logger, SandboxService, ToolContext, ToolUI, TruncationLimits } from '@airlock/contract';
import { OUTCOMES, type Outcome, type ToolCall, type ToolResultMessage } from '@airlock/contract';
import { AccessChecks, createTruncationService, DEFAULT_IMAGE_LIMITS, EventListeners, FileMutationQueue, noticingCuts, resolveLimits, SpillStore } from '@airlock/toolkit';
import { askToShow } from '@airlock/toolkit/util';
import { createHookBus, type HandlerInfo, type HookBus } from './bus/hooks.js';
import { callSandbox } from './call/call-sandbox.js';
import type { ImageResizer } from './call/6-normalize-result.js';
import { dryRun } from './preflight.js';
import type { PreflightReport } from '@airlock/contract';
import { type SelectOptions, type ToolSelection, ToolRegistry } from './registry.js';
import { refuseBatch, runBatch, type BatchOptions, type BatchResult } from './run-batch.js';
import type { CallRefusal, KernelRuntime, Refusal } from './run-tool-call.js';
import type { CallState } from './state/call-state.js';

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
  /**
   * Where each call's `ctx.access` comes from: the host's per-file checks (default: none, so every
   * file is allowed and `ctx.access.active` is false).
   */
  access?: AccessProvider;
}

/** What a kernel was started with, fixed for its life. */
export interface KernelSession {
  /** Names the spill folder and goes into every ToolContext. */
  readonly id: string;
  /** Where relative paths resolve. */
  readonly cwd: string;
  /** The environment tools see as `ctx.env`. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Limits for what enters the model's context. */
  readonly limits: TruncationLimits;
  /** The folder this session's spill files go to (under the spill root, which holds every session's). */
  readonly spillDir: string;
}

/** How a kernel is doing now: what a host checks before it reports or leaves. */
export interface KernelStatus {
  /** Set when every call is refused (see Kernel.refuseAll). */
  refusal: Refusal | undefined;
  /**
   * Calls the kernel gave up on (time limit or abort, then the grace period) whose tool has not
   * settled yet. Such a tool may hold a thread in a system call nothing can cancel (a blocking
   * open of a FIFO), and then Node cannot exit: a host about to leave checks this and ends its
   * process the hard way.
   */
  stuckCalls: number;
  /** The hook handlers registered, in registration order. */
  handlers: HandlerInfo[];
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
  /** The tools this kernel can run, and the enabled sets it selects from them. */
  readonly registry = new ToolRegistry();
  /** What the kernel was started with (frozen). */
  readonly session: KernelSession;
  readonly #fileMutations = new FileMutationQueue();
  readonly #spillStore: SpillStore;
  readonly #bus: HookBus;
  readonly #stuck = { count: 0 };
  readonly #onDispose = new Set<() => void | Promise<void>>();
  readonly #runtime: KernelRuntime;
  readonly #execution: { mode: 'parallel' | 'sequential'; maxConcurrency: number; timeoutMs: number };
  #defaultSelection: { revision: number; selection: ToolSelection } | undefined;

  constructor(options: KernelOptions = {}) {
    const cwd = options.cwd ?? process.cwd();
    const sessionId = options.sessionId ?? randomUUID();
    const limits = resolveLimits(options.limits);
    const spillStore = new SpillStore({
      sessionId,
      ...(options.spill?.dir === undefined ? {} : { root: options.spill.dir }),
      ...(options.spill?.budgetBytes === undefined ? {} : { budgetBytes: options.spill.budgetBytes }),
      ...(options.spill?.retentionMs === undefined ? {} : { retentionMs: options.spill.retentionMs }),
      ...(options.spill?.totalBudgetBytes === undefined ? {} : { totalBudgetBytes: options.spill.totalBudgetBytes }),
      onWarning: (message) => this.#log.warn(message),
    });
    this.#spillStore = spillStore;
    this.#bus = createHookBus();
    this.#execution = {
      mode: options.execution?.mode ?? 'parallel',
      maxConcurrency: options.execution?.maxConcurrency ?? 8,
      timeoutMs: options.execution?.timeoutMs ?? 0,
    };
    this.#log = options.log ?? SILENT;
    this.#listeners = new EventListeners(this.#log);
    const truncate = createTruncationService(limits);
    const ui = options.ui ?? NO_UI;
    const env = Object.freeze({ ...(options.env ?? {}) });
    this.session = Object.freeze({ id: sessionId, cwd, env, limits, spillDir: spillStore.dir });
    const access = options.access ?? new AccessChecks();
    const fileMutations = this.#fileMutations;
    const imageInput = options.images?.imageInput ?? true;
    const base = {
      cwd,
      sessionId,
      limits,
      truncate,
      spill: (data: string | Uint8Array, o?: Parameters<ToolContext['spill']>[1]) => spillStore.spill(data, o),
      openSpill: (o?: Parameters<ToolContext['openSpill']>[0]) => spillStore.open(o),
      withFileMutation: <T>(path: string, fn: () => Promise<T>, o?: { signal?: AbortSignal }) =>
        fileMutations.run(path, fn, { cwd, ...(o?.signal === undefined ? {} : { signal: o.signal }) }),
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
        limits,
        images: {
          block: options.images?.blockImages ?? false,
          imageInput,
          maxDimension: options.images?.maxDimension ?? DEFAULT_IMAGE_LIMITS.maxDimension,
          maxBytes: options.images?.maxBytes ?? DEFAULT_IMAGE_LIMITS.maxBytes,
          ...(options.images?.resize ? { resize: options.images.resize } : {}),
        },
        spill: (text, o) => spillStore.spill(text, o),
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
        access: access.serviceFor(state.call.name, base.cwd),
        ...(base.sandbox === undefined ? {} : { sandbox: callSandbox(base.sandbox, state) }),
        judged: () => state.judged,
      }),
    };
  }

  readonly #log: Logger;
  readonly #listeners: EventListeners<KernelEvent>;

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
   * Add a handler to a hook phase. Returns a function that removes it.
   *
   * @example
   * kernel.on('tool_result', (e) => ({ content: scrub(e.content) }), { name: 'acme/scrub', phase: 'redact' });
   */
  readonly on: HookRegistrar['on'] = (hook, handler, options) => this.#bus.on(hook, handler, options);

  /**
   * How the kernel is doing now: the refusal, if every call is refused; calls given up on whose
   * tool has not settled; the handlers registered. A snapshot: it does not change afterwards.
   *
   * @example
   * if (kernel.status().stuckCalls > 0) process.kill(process.pid, 'SIGKILL');
   */
  status(): KernelStatus {
    return { refusal: this.#runtime.refusal, stuckCalls: this.#stuck.count, handlers: this.#bus.handlers() };
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
    await this.#spillStore.dispose();
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
