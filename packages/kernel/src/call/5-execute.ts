import { Compile } from 'typebox/compile';
import { AgentToolResultSchema, type AgentToolResult } from '../contract/content.js';
import type { HookBus } from '../bus/hooks.js';
import { deepFreeze, errorMessage } from '../values.js';
import { createUpdateForwarder } from './forward-updates.js';
import type { CallState } from './state.js';

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
  const timer = options.timeoutMs > 0 ? setTimeout(() => state.controller.abort(new CallTimeoutError(options.timeoutMs)), options.timeoutMs) : undefined;

  let settled: { ok: true; value: unknown } | { ok: false; error: unknown } | undefined;
  const running = (async () => tool.execute(state.call.id, state.args as never, state.signal, updates.push, state.ctx))().then(
    (value) => (settled = { ok: true, value }),
    (error: unknown) => (settled = { ok: false, error }),
  );
  try {
    if (state.signal.aborted) await withGrace(running, options.graceMs);
    else await Promise.race([running, abortedThenGrace(state.signal, running, options.graceMs)]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    updates.close();
  }

  const reason = state.signal.aborted ? state.signal.reason : undefined;
  const timedOut = reason instanceof CallTimeoutError;
  if (settled === undefined) {
    const text = timedOut
      ? `Timed out: the call to "${state.call.name}" ran longer than ${options.timeoutMs} ms and did not stop within ${options.graceMs} ms of being cancelled; it may still be running.`
      : `Aborted: the call to "${state.call.name}" was cancelled and did not stop within ${options.graceMs} ms; it may still be running.`;
    state.result = failure(timedOut ? 'timeout' : 'aborted', text);
    return;
  }
  if (!settled.ok) {
    const message = errorMessage(settled.error);
    if (timedOut) state.result = failure('timeout', `Timed out: the call to "${state.call.name}" ran longer than ${options.timeoutMs} ms and was stopped. ${message}`);
    else if (reason !== undefined) state.result = failure('aborted', `Aborted: the call to "${state.call.name}" was cancelled before it finished. ${message}`);
    else state.result = failure('error', message);
    return;
  }
  const value = settled.value;
  if (!ResultCheck.Check(value)) {
    state.result = failure(
      'error',
      `The tool "${state.call.name}" returned a malformed result (${describeMalformed(value)}); this is a bug in the tool, not in your call. Tell the user.`,
    );
    return;
  }
  const result = value as AgentToolResult;
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

function abortedThenGrace(signal: AbortSignal, running: Promise<unknown>, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const onAbort = (): void => void withGrace(running, graceMs).then(resolve);
    signal.addEventListener('abort', onAbort, { once: true });
    void running.finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function withGrace(running: Promise<unknown>, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, graceMs);
    void running.finally(() => {
      clearTimeout(timer);
      resolve();
    });
  });
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
