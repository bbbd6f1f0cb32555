import { AsyncSeriesWaterfallHook } from 'tapable';
import type { FailureMode, HandlerOptions, HookName, HookRegistrar } from '../contract/hooks.js';
import type { CallState } from '../call/state.js';
import { AirlockErrors } from '../errors.js';
import { DeadlineQueue } from './deadlines.js';
import { policeHandler, policeUpdateRedactor, type ResolvedHandler, type UpdateState } from './handler-policy.js';
import { KERNEL_STAGES, phaseNames, phaseRow } from './phases.js';

/** The kernel's own steps inside the tool_call waterfall (see KERNEL_STAGES). */
export interface KernelSteps {
  revalidate(state: CallState): void;
  combineVotes(state: CallState): void;
  settle(state: CallState): void;
}

/** A handler as registered, for introspection (`airlock extensions`, audit). */
export interface HandlerInfo {
  hook: HookName;
  phase: string;
  name: string;
  failure: FailureMode;
  timeoutMs: number;
}

export interface HookBus extends HookRegistrar {
  /** The tapable hooks. Only the kernel fires them; extensions get `on` alone. */
  readonly hooks: {
    readonly toolCall: AsyncSeriesWaterfallHook<[CallState], CallState | undefined>;
    readonly toolResult: AsyncSeriesWaterfallHook<[CallState], CallState | undefined>;
    /** Streamed partials pass the redact handlers too. */
    readonly toolUpdate: AsyncSeriesWaterfallHook<[UpdateState], UpdateState | undefined>;
  };
  handlers(): HandlerInfo[];
  /** True when any redact handler is registered (partials then need redacting before forwarding). */
  hasRedactors(): boolean;
  /**
   * Run the tool_call waterfall. With no handlers registered the kernel's own steps run directly,
   * in the same order, without a trip through tapable (and without a promise: undefined returned).
   */
  fireToolCall(state: CallState): Promise<unknown> | undefined;
  /** Run the tool_result waterfall; undefined when it has no handlers. */
  fireToolResult(state: CallState): Promise<unknown> | undefined;
}

/**
 * Declare both hooks once, with the kernel's steps at their stages, and hand out a registrar
 * that turns `on(hook, handler, {phase})` into a policed tap at the phase's stage.
 */
export function createHookBus(steps: KernelSteps): HookBus {
  const hooks = Object.freeze({
    toolCall: new AsyncSeriesWaterfallHook<[CallState], CallState | undefined>(['state'], 'tool_call'),
    toolResult: new AsyncSeriesWaterfallHook<[CallState], CallState | undefined>(['state'], 'tool_result'),
    toolUpdate: new AsyncSeriesWaterfallHook<[UpdateState], UpdateState | undefined>(['update'], 'tool_update'),
  });
  const deadlines = new DeadlineQueue();
  const registered: (HandlerInfo & { active: boolean })[] = [];
  const active = { tool_call: 0, tool_result: 0, redact: 0 };
  const count = (info: HandlerInfo, delta: number): void => {
    active[info.hook] += delta;
    if (info.hook === 'tool_result' && info.phase === 'redact') active.redact += delta;
  };

  hooks.toolCall.tap({ name: 'kernel/revalidate', stage: KERNEL_STAGES.revalidate }, (state) => {
    steps.revalidate(state);
    return undefined;
  });
  hooks.toolCall.tap({ name: 'kernel/combine-votes', stage: KERNEL_STAGES.combineVotes }, (state) => {
    steps.combineVotes(state);
    return undefined;
  });
  hooks.toolCall.tap({ name: 'kernel/settle', stage: KERNEL_STAGES.settle }, (state) => {
    steps.settle(state);
    return undefined;
  });

  function on(hook: HookName, handler: unknown, options: HandlerOptions): () => void {
    const resolved = resolve(hook, handler, options);
    if (registered.some((h) => h.active && h.hook === hook && h.name === resolved.name)) {
      throw AirlockErrors.AIRLOCK_HOOK_DUPLICATE_NAME({ hook, name: resolved.name });
    }
    const info = { hook, phase: resolved.phase, name: resolved.name, failure: resolved.failure, timeoutMs: resolved.timeoutMs, active: true };
    registered.push(info);
    count(info, 1);
    const stage = phaseRow(hook, resolved.phase)!.stage;
    // tapable has no untap; an unregistered handler stays in the chain as a pass-through.
    const police = policeHandler(resolved, deadlines);
    const target = hook === 'tool_call' ? hooks.toolCall : hooks.toolResult;
    target.tapAsync({ name: resolved.name, stage }, (state, done) => (info.active ? police(state, done) : done()));
    if (hook === 'tool_result' && resolved.phase === 'redact') {
      const policeUpdate = policeUpdateRedactor(resolved, deadlines);
      hooks.toolUpdate.tapAsync({ name: resolved.name, stage }, (update, done) => (info.active ? policeUpdate(update, done) : done()));
    }
    return () => {
      if (!info.active) return;
      info.active = false;
      count(info, -1);
    };
  }

  return {
    hooks,
    on: on as HookRegistrar['on'],
    handlers: () => registered.filter((h) => h.active).map(({ active: _active, ...info }) => info),
    hasRedactors: () => active.redact > 0,
    fireToolCall(state) {
      if (active.tool_call > 0) return hooks.toolCall.promise(state);
      steps.revalidate(state);
      steps.combineVotes(state);
      steps.settle(state);
      return undefined;
    },
    fireToolResult: (state) => (active.tool_result > 0 ? hooks.toolResult.promise(state) : undefined),
  };
}

function resolve(hook: HookName, handler: unknown, options: HandlerOptions): ResolvedHandler {
  if (hook !== 'tool_call' && hook !== 'tool_result') throw AirlockErrors.AIRLOCK_HOOK_UNKNOWN({ hook: String(hook) });
  if (options === null || typeof options !== 'object') throw AirlockErrors.AIRLOCK_HOOK_OPTIONS({ hook, name: '?', problem: 'options {name, phase} are required' });
  const name = options.name;
  if (typeof name !== 'string' || name.trim() === '') throw AirlockErrors.AIRLOCK_HOOK_OPTIONS({ hook, name: '?', problem: 'a non-empty `name` (extension/purpose) is required' });
  if (typeof handler !== 'function') throw AirlockErrors.AIRLOCK_HOOK_OPTIONS({ hook, name, problem: `the handler is ${typeof handler}, not a function` });
  const row = phaseRow(hook, options.phase);
  if (row === undefined) throw AirlockErrors.AIRLOCK_HOOK_PHASE_UNKNOWN({ hook, name, phase: String(options.phase), phases: phaseNames(hook) });
  const failure = options.failure ?? row.failure;
  if (failure !== 'open' && failure !== 'closed') throw AirlockErrors.AIRLOCK_HOOK_OPTIONS({ hook, name, problem: `failure must be "open" or "closed", not ${JSON.stringify(failure)}` });
  const timeoutMs = options.timeoutMs ?? row.timeoutMs;
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs < 0) {
    throw AirlockErrors.AIRLOCK_HOOK_OPTIONS({ hook, name, problem: `timeoutMs must be a finite number ≥ 0 (0 = no limit), not ${String(timeoutMs)}` });
  }
  return { hook, phase: options.phase, name, failure, timeoutMs, fn: handler as ResolvedHandler['fn'] };
}
