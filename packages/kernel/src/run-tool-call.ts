import type { ToolContext } from '@airlock/contract';
import type { Outcome, ToolCall, ToolResultMessage } from '@airlock/contract';
import type { HookBus } from './bus/hooks.js';
import type { ToolSelection } from './registry.js';
import { findTool } from './call/1-find-tool.js';
import { prepareArguments } from './call/2-prepare-arguments.js';
import { validateArguments } from './call/3-validate-arguments.js';
import { runToolCallHook } from './call/4-tool-call-hook.js';
import { execute, failure } from './call/5-execute.js';
import { needsNormalizing, normalizeResult, type NormalizeOptions } from './call/6-normalize-result.js';
import { runToolResultHook } from './call/7-tool-result-hook.js';
import { toResultMessage } from './call/8-result-message.js';
import type { EventChannel } from './state/event-channel.js';
import type { RunAbort } from './state/run-abort.js';
import { type CallState, createCallState, isStopped, stop } from './state/call-state.js';
import { abortedBeforeStart, argumentsTooDeep, internalError as internalErrorText, invalidArguments, refusedAll } from './wording.js';
import { errorMessage } from '@airlock/toolkit/util';
import { MAX_VALUE_DEPTH, nestsDeeperThan, previewJson } from '@airlock/toolkit/util';

/**
 * One tool call, stage by stage. Start reading here.
 *
 *   1 find the tool → 2 prepare arguments → 3 validate → 4 tool_call hook (transform, re-validate,
 *   authorize, approve, observe) → 5 execute → 6 normalize → 7 tool_result hook → 8 result message
 *
 * The invariant: whatever happens — an unknown tool, bad arguments, a deny, an abort, a throw, a
 * timeout, even a bug in the kernel — the call ends as one ToolResultMessage that went through the
 * tool_result hook. Stages 1–4 are the preflight a batch runs in source order; 5–6 may run
 * concurrently; 7–8 finish every call, ran or not.
 */

/** What the kernel gives every call (one per kernel instance). */
export interface KernelRuntime {
  readonly bus: HookBus;
  readonly normalize: NormalizeOptions;
  readonly updateThrottleMs: number;
  /** After an abort or time-out, how long a tool gets to settle before the call ends anyway. */
  readonly graceMs: number;
  /** Calls the kernel stopped waiting for whose tool is still running (see Kernel.stuckCalls). */
  readonly stuck: { count: number };
  /** Set once by Kernel.refuseAll: every call from then on is denied before its tool is looked up. */
  refusal: Refusal | undefined;
  contextFor(state: CallState): ToolContext;
}

/** Why a kernel refuses every call, worded for the model (see Kernel.refuseAll). */
export interface Refusal {
  /** What is wrong, as a clause: `the policy extension "guard" failed to load (…)`. */
  readonly reason: string;
  /** What the user can do about it. */
  readonly fix: string;
}

/** What one run (a batch or a single call) shares among its calls. */
export interface RunContext {
  readonly selection: ToolSelection;
  readonly events: EventChannel;
  /** 0 = no time limit for execute. */
  readonly timeoutMs: number;
  readonly abort: RunAbort;
  /** A dry run (Kernel.preflight): approvers and observers are skipped, an ask stays an ask. */
  readonly dryRun?: true;
}

export async function runToolCall(kernel: KernelRuntime, call: ToolCall, run: RunContext): Promise<ToolResultMessage> {
  const state = await preflight(kernel, call, run);
  if (!isStopped(state)) await runPrepared(kernel, state, run);
  return finish(kernel, state);
}

/**
 * Stages 7–8 alone, for a call that must not run at all (Kernel.refuseBatch): no tool is looked
 * up and no argument read; the result says why, and passes the tool_result hook like any other.
 */
export async function refuseToolCall(kernel: KernelRuntime, call: ToolCall, refusal: CallRefusal, run: RunContext): Promise<ToolResultMessage> {
  const { state } = startCall(call, run);
  stop(state, refusal.outcome, refusal.text);
  return finish(kernel, state);
}

/** Why a call was answered without running (see Kernel.refuseBatch). */
export interface CallRefusal {
  readonly outcome: Exclude<Outcome, 'ok'>;
  /** What the model is told, worded for it: what happened and what to do. */
  readonly text: string;
}

/** The call's state, announced with its start event. */
function startCall(call: ToolCall, run: RunContext): { state: CallState; tooDeep: boolean } {
  // Before anyone sees them (observers serialise the start event): arguments nested deeper than
  // any walk behind this point may go are replaced by a note, and the call ends invalid.
  const tooDeep = nestsDeeperThan(call.arguments, MAX_VALUE_DEPTH);
  const state = createCallState(tooDeep ? { id: call.id, name: call.name, arguments: previewJson(call.arguments) } : call, run.abort, run.events, run.dryRun === true);
  state.events.emit({ type: 'tool_execution_start', toolCallId: call.id, toolName: call.name, args: state.call.arguments });
  return { state, tooDeep };
}

/** Stages 1–4: decide whether the call may run, and with which arguments. */
export async function preflight(kernel: KernelRuntime, call: ToolCall, run: RunContext): Promise<CallState> {
  const { state, tooDeep } = startCall(call, run);
  try {
    // Checked here, where every call of every entry point passes, so no caller can forget it.
    if (kernel.refusal !== undefined) stop(state, 'denied', refusedAll(call.name, kernel.refusal), { kind: 'kernel', reason: 'refused' });
    if (state.abort.current()) stop(state, 'aborted', abortedBeforeStart(call.name));
    if (!isStopped(state)) findTool(state, run.selection);
    if (tooDeep) stop(state, 'invalid', argumentsTooDeep(call.name, MAX_VALUE_DEPTH));
    if (isStopped(state)) return state;
    const prepared = prepareArguments(state);
    if (isStopped(state)) return state;
    const checked = validateArguments(state.tool!.tool.parameters, prepared);
    if (!checked.ok) {
      const text = checked.tooDeep ? argumentsTooDeep(call.name, MAX_VALUE_DEPTH) : invalidArguments(call.name, checked.problems, call.arguments);
      stop(state, 'invalid', text);
      return state;
    }
    state.args = state.proposedArgs = checked.value;
    state.ctx = kernel.contextFor(state);
    await runToolCallHook(state, kernel);
  } catch (error) {
    stop(state, 'error', internalError('preparing', call, error));
  }
  return state;
}

/** Stages 5–6: run the tool and make its result safe for the model. */
export async function runPrepared(kernel: KernelRuntime, state: CallState, run: RunContext): Promise<void> {
  try {
    // Aborted while it was being decided (a handler, an approval): the tool never starts.
    if (state.abort.current()) {
      state.result = failure('aborted', abortedBeforeStart(state.call.name));
      return;
    }
    await execute(state, { bus: kernel.bus, updateThrottleMs: kernel.updateThrottleMs, timeoutMs: run.timeoutMs, graceMs: kernel.graceMs, stuck: kernel.stuck });
    if (needsNormalizing(state, kernel.normalize.limits)) await normalizeResult(state, kernel.normalize);
  } catch (error) {
    state.result = failure('error', internalError('running', state.call, error));
  }
}

/** Stages 7–8: every call, ran or not, becomes a result message through the tool_result hook. */
export async function finish(kernel: KernelRuntime, state: CallState): Promise<ToolResultMessage> {
  state.result ??= failure(state.decision?.outcome ?? 'error', state.stopText ?? 'The call ended without a result.');
  try {
    await runToolResultHook(state, kernel.bus);
  } catch (error) {
    state.result = failure('error', internalError('finishing', state.call, error));
  }
  const message = toResultMessage(state);
  state.events.emit({ type: 'tool_execution_end', toolCallId: message.toolCallId, toolName: message.toolName, result: message });
  return message;
}

function internalError(doing: string, call: ToolCall, error: unknown): string {
  return internalErrorText(doing, call.name, errorMessage(error));
}
