import type { EventSink } from '@airlock/contract';
import type { ToolCall, ToolResultMessage } from '@airlock/contract';
import type { ToolSelection } from './registry.js';
import { type CallRefusal, finish, type KernelRuntime, preflight, refuseToolCall, type RunContext, runPrepared, runToolCall } from './run-tool-call.js';
import { type Prepared, runScheduled } from './batch-schedule.js';
import { EventChannel } from './state/event-channel.js';
import { RunAbort } from './state/run-abort.js';
import { type CallState, isStopped } from './state/call-state.js';

/**
 * One assistant message's tool calls.
 *
 * - Preflight (stages 1–4) runs one call at a time in source order, so approval prompts never
 *   overlap and each decision is made in the order the model wrote the calls.
 * - Then the calls that may run execute concurrently, at most `maxConcurrency` at once, unless the
 *   options or any of the batch's tools ask for "sequential": then each call is preflighted and run
 *   before the next one starts, so a decision sees the effects of the calls before it.
 * - A batch keeps the model's order where it matters. Calls that touch the same file (as their
 *   tools' `resources()` say, compared as real paths, a folder covering what is inside it) run in
 *   source order when one of them writes; a call whose tool declares no resources, or a process
 *   the tool could not analyse (`exec` without `touches`), is a barrier: it waits for every
 *   earlier call, and every later call waits for it. Calls with no conflict run side by side.
 * - One batch cannot race its own policy: a call that waited for one that may have changed its
 *   files is judged again (`resources()`, authorize, and approve if the votes ask) before it
 *   runs: a deny says the batch changed the filesystem; a new ask goes to the approvers,
 *   mid-batch; an approval stands when the votes and resources are unchanged. A batch in which
 *   nothing may change files is never re-judged (see batch-schedule.ts).
 * - `tool_execution_end` events arrive in completion order; the result messages come back in
 *   source order, one per call, whatever happened — an abort included.
 * - `terminate` ends the run only when every result sets it.
 */
export interface BatchOptions {
  signal?: AbortSignal;
  /** Receives every event. Called synchronously and never awaited; a throwing sink is ignored. */
  onEvent?: EventSink;
  executionMode?: 'parallel' | 'sequential';
  /** Default 8. */
  maxConcurrency?: number;
  /** Time limit for each call's execute, in ms; 0 = none. */
  timeoutMs?: number;
}

/** BatchOptions with the kernel's defaults filled in. */
export interface ResolvedBatchOptions {
  signal: AbortSignal | undefined;
  onEvent: EventSink | undefined;
  executionMode: 'parallel' | 'sequential';
  maxConcurrency: number;
  timeoutMs: number;
}

export interface BatchResult {
  /** One per call, in source order. */
  messages: ToolResultMessage[];
  /** Every result asked to end the run (and there was at least one). */
  terminate: boolean;
}

export async function runBatch(
  kernel: KernelRuntime,
  selection: ToolSelection,
  rawCalls: readonly unknown[],
  options: ResolvedBatchOptions,
): Promise<BatchResult> {
  const calls = rawCalls.map(toToolCall);
  const abort = new RunAbort(options.signal, calls.length);
  const run: RunContext = {
    selection,
    events: new EventChannel(options.onEvent),
    timeoutMs: options.timeoutMs,
    abort,
  };
  const messages: ToolResultMessage[] = new Array(calls.length);
  try {
    const mode = options.executionMode;
    const sequential = mode === 'sequential' || calls.some((c) => selection.get(c.name)?.tool.executionMode === 'sequential');
    if (sequential) {
      for (let i = 0; i < calls.length; i++) messages[i] = await runToolCall(kernel, calls[i]!, run);
    } else {
      const ready: Prepared[] = [];
      let changes = false;
      for (let i = 0; i < calls.length; i++) {
        const state = await preflight(kernel, calls[i]!, run);
        if (isStopped(state)) messages[i] = await finish(kernel, state);
        else {
          ready.push({ index: i, state });
          changes ||= state.mayChangeFiles;
        }
      }
      const limit = Math.max(1, Math.floor(options.maxConcurrency));
      // The common case — nothing in the batch may change files — needs no barriers and no re-checks.
      if (changes) await runScheduled(kernel, run, ready, limit, messages);
      else {
        await pool(ready, limit, async ({ index, state }) => {
          await runPrepared(kernel, state, run);
          messages[index] = await finish(kernel, state);
        });
      }
    }
  } finally {
    abort.release();
  }
  return { messages, terminate: messages.length > 0 && messages.every((m) => m.terminate === true) };
}

/** Calls answered without running any part of them (Kernel.refuseBatch): one result each, in source order. */
export async function refuseBatch(kernel: KernelRuntime, selection: ToolSelection, rawCalls: readonly unknown[], refusal: CallRefusal, onEvent: EventSink | undefined): Promise<ToolResultMessage[]> {
  const calls = rawCalls.map(toToolCall);
  const abort = new RunAbort(undefined, calls.length);
  const run: RunContext = { selection, events: new EventChannel(onEvent), timeoutMs: 0, abort };
  const messages: ToolResultMessage[] = [];
  try {
    for (const call of calls) messages.push(await refuseToolCall(kernel, call, refusal, run));
  } finally {
    abort.release();
  }
  return messages;
}

/** Run `work` over `items`, at most `limit` at a time, starting them in order. */
async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Whatever the caller passed, each call gets an id and a name, so it can get a result. */
export function toToolCall(raw: unknown, index: number): ToolCall {
  // The kernel never changes a call object, so a well-formed one is used as it is.
  if (isWellFormed(raw)) return raw;
  const value = (raw !== null && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  return {
    id: typeof value.id === 'string' && value.id !== '' ? value.id : `call_${index}`,
    name: typeof value.name === 'string' ? value.name : '',
    arguments: 'arguments' in value ? value.arguments : {},
  };
}

function isWellFormed(raw: unknown): raw is ToolCall {
  if (raw === null || typeof raw !== 'object') return false;
  const call = raw as Record<string, unknown>;
  return typeof call.id === 'string' && call.id !== '' && typeof call.name === 'string' && 'arguments' in call;
}
