import { Compile } from 'typebox/compile';
import { AgentToolResultSchema, type AgentToolResult } from '@airlock/contract';
import type { HookBus } from '../bus/hooks.js';
import { deepFreeze, MAX_VALUE_DEPTH, nestsDeeperThan } from '@airlock/toolkit/util';
import { errorMessage } from '@airlock/toolkit/util';
import { createUpdateForwarder } from './forward-updates.js';
import { abortedWhileRunning, didNotStop, malformedResult, timedOut as timedOutText } from '../wording.js';
import type { CallState } from '../state/call-state.js';

/**
 * Stage 5: run the tool with the call's signal, its update channel and its context.
 *
 * The kernel does not trust `execute` to stop: when the call is aborted or runs out of time, the
 * tool gets `graceMs` to settle (a result that still arrives is reported truthfully — the work
 * happened), and after that the call ends as `aborted` or `timeout` whatever the tool does.
 */
export interface ExecuteOptions {
  bus: HookBus;
  updateThrottleMs: number;
  /** 0 = no limit. */
  timeoutMs: number;
  graceMs: number;
  /** Counts calls given up on while their tool still runs; each leaves the count when it settles. */
  stuck?: { count: number };
}

const ResultCheck = Compile(AgentToolResultSchema);

export class CallTimeoutError extends Error {
  override name = 'TimeoutError';
  constructor(readonly ms: number) {
    super(`the call ran longer than its ${ms} ms limit`);
  }
}

export async function execute(state: CallState, options: ExecuteOptions): Promise<void> {
  const tool = state.tool!.tool;
  const updates = createUpdateForwarder(state, options.bus, options.updateThrottleMs);
  const limit = options.timeoutMs > 0 ? callTimeLimit(state, options.timeoutMs) : undefined;
  const signal = limit?.signal ?? state.signal;

  let settled: { ok: true; value: unknown } | { ok: false; error: unknown } | undefined;
  let graceTimer: NodeJS.Timeout | undefined;
  let unwatch: (() => void) | undefined;
  let running: Promise<unknown> | undefined;
  await new Promise<void>((resolve) => {
    const giveUp = (): void => {
      graceTimer = setTimeout(resolve, options.graceMs);
    };
    try {
      running = Promise.resolve(tool.execute(state.call.id, state.args as never, signal, updates.push, state.ctx!));
    } catch (error) {
      running = Promise.reject(error);
    }
    running.then(
      (value) => {
        settled = { ok: true, value };
        resolve();
      },
      (error: unknown) => {
        settled = { ok: false, error };
        resolve();
      },
    );
    // Most tools settle at once; only watch for an abort if this one is still running a tick
    // later (the then-callbacks above run first), so fast calls never touch the signal. Not
    // queueMicrotask: Node wraps each of those in an AsyncResource, which costs more than the call.
    void Promise.resolve().then(() => {
      if (settled !== undefined) return;
      if (signal?.aborted) giveUp();
      else unwatch = limit ? limit.onAbort(giveUp) : state.abort.watch(giveUp);
    });
  });
  if (graceTimer !== undefined) clearTimeout(graceTimer);
  unwatch?.();
  limit?.release();
  const draining = updates.close();
  if (draining !== undefined) await draining;

  // Read the kernel's own flags, not the signal: touching a per-run AbortSignal on every call makes
  // V8 embed it in optimized code, which is then thrown away at each major GC ("weak objects").
  const aborted = limit === undefined ? state.abort.current() : limit.aborted();
  const reason = aborted ? signal!.reason : undefined;
  const timedOut = reason instanceof CallTimeoutError;
  if (settled === undefined) {
    const stuck = options.stuck;
    if (stuck !== undefined) {
      stuck.count++;
      const leave = (): void => void stuck.count--;
      running!.then(leave, leave);
    }
    const outcome = timedOut ? 'timeout' : 'aborted';
    state.result = failure(outcome, didNotStop(outcome, state.call.name, options.timeoutMs, options.graceMs));
    return;
  }
  // TypeScript cannot see the assignments inside the callbacks above.
  const outcome = settled as { ok: true; value: unknown } | { ok: false; error: unknown };
  if (!outcome.ok) {
    const message = errorMessage(outcome.error);
    if (timedOut) state.result = failure('timeout', timedOutText(state.call.name, options.timeoutMs, message));
    else if (reason !== undefined) state.result = failure('aborted', abortedWhileRunning(state.call.name, message));
    else state.result = failure('error', message);
    return;
  }
  const value = outcome.value;
  if (!ResultCheck.Check(value)) {
    state.result = failure('error', malformedResult(state.call.name, describeMalformed(value)));
    return;
  }
  const result = value as AgentToolResult;
  // Everything after this point (freezing, redaction, audit, the JSON of events) walks the result;
  // the whole of it is checked (+1 for the result object), so extra fields cannot slip past.
  if (nestsDeeperThan(result, MAX_VALUE_DEPTH + 1)) {
    state.result = failure('error', malformedResult(state.call.name, `its details (or another field) nest deeper than ${MAX_VALUE_DEPTH} levels`));
    return;
  }
  if (result.limited === true) state.limitedByTool = true;
  state.result = {
    outcome: result.isError === true ? 'error' : 'ok',
    content: deepFreeze(result.content),
    details: deepFreeze(result.details),
    usage: result.usage,
    isError: result.isError === true,
    terminate: result.terminate === true,
    patches: [],
  };
}

/**
 * A call with a time limit gets a signal of its own: aborted by the run, or by its timer with a
 * CallTimeoutError as the reason. Calls without a limit share the run's signal.
 */
function callTimeLimit(state: CallState, ms: number) {
  const controller = new AbortController();
  const abort = (reason: unknown): void => controller.abort(reason);
  const unwatchRun = state.abort.watch(() => abort(state.abort.reason));
  if (state.abort.current()) abort(state.abort.reason);
  const timer = setTimeout(() => abort(new CallTimeoutError(ms)), ms);
  return {
    signal: controller.signal,
    aborted: () => controller.signal.aborted,
    onAbort(fn: () => void): () => void {
      controller.signal.addEventListener('abort', fn, { once: true });
      return () => controller.signal.removeEventListener('abort', fn);
    },
    release(): void {
      clearTimeout(timer);
      unwatchRun();
    },
  };
}

export function failure(outcome: NonNullable<CallState['result']>['outcome'], text: string): NonNullable<CallState['result']> {
  return {
    outcome,
    content: deepFreeze([{ type: 'text', text }]),
    details: undefined,
    usage: undefined,
    isError: true,
    terminate: false,
    patches: [],
  };
}

function describeMalformed(value: unknown): string {
  if (value === null || typeof value !== 'object') return `expected {content: [...]}, got ${value === null ? 'null' : typeof value}`;
  const v = value as Record<string, unknown>;
  if (!Array.isArray(v.content)) return 'its `content` is not an array';
  const bad = v.content.findIndex((c) => {
    const block = c as Record<string, unknown> | null;
    if (block === null || typeof block !== 'object') return true;
    if (block.type === 'text') return typeof block.text !== 'string';
    if (block.type === 'image') return typeof block.data !== 'string' || typeof block.mimeType !== 'string';
    return true;
  });
  if (bad >= 0) return `content[${bad}] is not {type: "text", text} or {type: "image", data, mimeType}`;
  return 'a field has the wrong type (isError, terminate, usage)';
}
