import { AsyncSeriesWaterfallHook } from 'tapable';
import type { FailureMode, HandlerOptions, HookName, HookRegistrar } from '@airlock/contract';
import type { CallState } from '../state/call-state.js';
import { AirlockErrors } from '@airlock/toolkit';
import { DeadlineQueue } from './deadlines.js';
import { policeHandler, policeUpdateRedactor, type ResolvedHandler, type UpdateState } from './handler-policy.js';
import { PHASE_KEYS, phaseKey, phaseNames, PHASES, type Phase } from './phases.js';

/** A handler as registered, for introspection (`airlock extensions`, audit). */
export interface HandlerInfo {
  hook: HookName;
  phase: string;
  name: string;
  failure: FailureMode;
  timeoutMs: number;
}

export interface HookBus extends HookRegistrar {
  /** Streamed partials pass the redact handlers too. Only the kernel fires it. */
  readonly toolUpdate: AsyncSeriesWaterfallHook<[UpdateState], UpdateState | undefined>;
  handlers(): HandlerInfo[];
  /** True when any redact handler is registered (partials then need redacting before forwarding). */
  hasRedactors(): boolean;
  /**
   * Run one phase's handlers in registration order. Undefined (no promise, no trip through
   * tapable) when the phase has no handlers: a call without extensions costs no await.
   *
   * @example
   * const pending = bus.runPhase('tool_call:authorize', state);
   * if (pending !== undefined) await pending;
   */
  runPhase(phase: Phase, state: CallState): Promise<unknown> | undefined;
}

type PhaseHook = AsyncSeriesWaterfallHook<[CallState], CallState | undefined>;

/**
 * One tapable waterfall per phase, and a registrar that turns `on(hook, handler, {phase})` into a
 * policed tap on its phase's waterfall. The order of the phases is the caller's (stage 4 and 7).
 */
export function createHookBus(): HookBus {
  const hooks = Object.fromEntries(PHASE_KEYS.map((key) => [key, new AsyncSeriesWaterfallHook<[CallState], CallState | undefined>(['state'], key)])) as Record<Phase, PhaseHook>;
  const toolUpdate = new AsyncSeriesWaterfallHook<[UpdateState], UpdateState | undefined>(['update'], 'tool_update');
  const deadlines = new DeadlineQueue();
  const registered: (HandlerInfo & { active: boolean })[] = [];
  const active = Object.fromEntries(PHASE_KEYS.map((key) => [key, 0])) as Record<Phase, number>;

  function on(hook: HookName, handler: unknown, options: HandlerOptions): () => void {
    const resolved = resolve(hook, handler, options);
    if (registered.some((h) => h.active && h.hook === hook && h.name === resolved.name)) {
      throw AirlockErrors.AIRLOCK_HOOK_DUPLICATE_NAME({ hook, name: resolved.name });
    }
    const info = { hook, phase: resolved.phase, name: resolved.name, failure: resolved.failure, timeoutMs: resolved.timeoutMs, active: true };
    registered.push(info);
    active[resolved.key] += 1;
    // tapable has no untap; an unregistered handler stays in the chain as a pass-through.
    const police = policeHandler(resolved, deadlines);
    hooks[resolved.key].tapAsync({ name: resolved.name }, (state, done) => (info.active ? police(state, done) : done()));
    if (resolved.key === 'tool_result:redact') {
      const policeUpdate = policeUpdateRedactor(resolved, deadlines);
      toolUpdate.tapAsync({ name: resolved.name }, (update, done) => (info.active ? policeUpdate(update, done) : done()));
    }
    return () => {
      if (!info.active) return;
      info.active = false;
      active[resolved.key] -= 1;
    };
  }

  return {
    toolUpdate,
    on: on as HookRegistrar['on'],
    handlers: () => registered.filter((h) => h.active).map(({ active: _active, ...info }) => info),
    hasRedactors: () => active['tool_result:redact'] > 0,
    runPhase: (phase, state) => (active[phase] > 0 ? hooks[phase].promise(state) : undefined),
  };
}

function resolve(hook: HookName, handler: unknown, options: HandlerOptions): ResolvedHandler {
  if (hook !== 'tool_call' && hook !== 'tool_result') throw AirlockErrors.AIRLOCK_HOOK_UNKNOWN({ hook: String(hook) });
  if (options === null || typeof options !== 'object') throw AirlockErrors.AIRLOCK_HOOK_OPTIONS({ hook, name: '?', problem: 'options {name, phase} are required' });
  const name = options.name;
  if (typeof name !== 'string' || name.trim() === '') throw AirlockErrors.AIRLOCK_HOOK_OPTIONS({ hook, name: '?', problem: 'a non-empty `name` (extension/purpose) is required' });
  if (typeof handler !== 'function') throw AirlockErrors.AIRLOCK_HOOK_OPTIONS({ hook, name, problem: `the handler is ${typeof handler}, not a function` });
  const key = phaseKey(hook, options.phase);
  if (key === undefined) throw AirlockErrors.AIRLOCK_HOOK_PHASE_UNKNOWN({ hook, name, phase: String(options.phase), phases: phaseNames(hook) });
  const row = PHASES[key];
  const failure = options.failure ?? row.failure;
  if (failure !== 'open' && failure !== 'closed') throw AirlockErrors.AIRLOCK_HOOK_OPTIONS({ hook, name, problem: `failure must be "open" or "closed", not ${JSON.stringify(failure)}` });
  const timeoutMs = options.timeoutMs ?? row.timeoutMs;
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs < 0) {
    throw AirlockErrors.AIRLOCK_HOOK_OPTIONS({ hook, name, problem: `timeoutMs must be a finite number ≥ 0 (0 = no limit), not ${String(timeoutMs)}` });
  }
  return { hook, phase: options.phase, key, name, failure, timeoutMs, fn: handler as ResolvedHandler['fn'] };
}
