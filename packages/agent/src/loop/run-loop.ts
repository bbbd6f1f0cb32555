import { randomUUID } from 'node:crypto';
import type { AgentActivity, AnyAgentTool, KernelEvent, ToolCall, ToolResultMessage } from '@airlock/contract';
import type { BatchResult, CallRefusal } from '@airlock/kernel';
import { toolCallsOf, type AssistantMessage, type AssistantToolCall, type Message, type UserMessage } from '../messages.js';
import type { ModelProvider } from '../provider.js';
import { buildSystemPrompt } from '../system-prompt.js';
import { safeEmitter, type AgentEvent, type AgentListener } from './events.js';
import type { MessageQueue } from './queue.js';
import type { AgentRunResult, RunStatus } from './result.js';
import type { RunnerBatchOptions, ToolRunner } from './runner.js';
import { streamReply, watchAbort } from './stream-reply.js';
import { asCall, kernelCall, malformedText, unfinishedReason, unrunResult } from './unrun-calls.js';
import { addUsage, emptyTotals } from './usage.js';

/** The turn limit when none is given. */
export const DEFAULT_MAX_TURNS = 50;

export interface AgentLoopOptions {
  provider: ModelProvider;
  /** The provider's model name. */
  model: string;
  /** Runs each turn's tool calls; its `tools` are what the model is offered. */
  runner: ToolRunner;
  /**
   * Default: `buildSystemPrompt({ tools, toolName: provider.toolName })`. A function is called
   * with the tools of a request whenever they differ from the last request's (an MCP server behind
   * the host added one), so the prompt keeps listing exactly what the model is offered; a string
   * is used as it is.
   */
  systemPrompt?: string | ((tools: readonly AnyAgentTool[]) => string);
  /** The conversation so far (a resumed session); the run appends to a copy. */
  history?: readonly Message[];
  /** Model requests at most (default 50). */
  maxTurns?: number;
  maxTokens?: number;
  temperature?: number;
  signal?: AbortSignal;
  /** Called with every event, synchronously, never awaited (see AgentListener). */
  onEvent?: AgentListener | readonly AgentListener[];
  /** A listener threw or rejected; default: ignored. */
  onListenerError?: (error: unknown) => void;
  /** Read after every turn's whole batch. */
  steering?: Pick<MessageQueue, 'drain' | 'size'>;
  /** Read when the model would stop. */
  followUp?: Pick<MessageQueue, 'drain' | 'size'>;
}

const NO_QUEUE = { drain: (): UserMessage[] => [], size: 0 };

/**
 * Run the agent: the prompts → the provider's answer → its tool calls as one batch through the
 * runner → the results → the next request, until a turn asks for no tools. Never throws for a
 * model, tool or listener failure: the result says how the run ended (`status`, `reason`), and
 * every tool call in it has exactly one result.
 *
 * @example
 * const result = await runAgentLoop([userMessage('What is in a.txt?')], { provider, model: 'gpt-5-mini', runner: kernelRunner(kernel) });
 * if (result.status === 'done') console.log(textOf(result.finalMessage!));
 */
export async function runAgentLoop(prompts: readonly UserMessage[], options: AgentLoopOptions): Promise<AgentRunResult> {
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  if (!Number.isInteger(maxTurns) || maxTurns < 1) throw new RangeError(`maxTurns must be a whole number ≥ 1 (got ${String(maxTurns)}).`);
  const { provider, runner, signal } = options;
  const listeners = options.onEvent === undefined ? [] : Array.isArray(options.onEvent) ? options.onEvent : [options.onEvent as AgentListener];
  const emit = safeEmitter(listeners, options.onListenerError ?? (() => {}));
  const report = activityReporter(runner, options.onListenerError);
  const steering = options.steering ?? NO_QUEUE;
  const followUp = options.followUp ?? NO_QUEUE;
  const promptFor =
    typeof options.systemPrompt === 'string'
      ? () => options.systemPrompt as string
      : (options.systemPrompt ?? ((tools: readonly AnyAgentTool[]) => buildSystemPrompt({ tools, ...(provider.toolName === undefined ? {} : { toolName: provider.toolName }) })));
  let offered: readonly AnyAgentTool[] | undefined;
  let systemPrompt = '';

  const runId = randomUUID();
  const context: Message[] = options.history === undefined ? [] : [...options.history];
  const added: Message[] = [];
  const usage = emptyTotals();
  let pending: UserMessage[] = [...prompts, ...steering.drain()];
  let final: AssistantMessage | undefined;
  let turn = 0;
  let status: RunStatus = 'done';
  let reason: string | undefined;
  emit({ type: 'agent_start', runId, prompts: pending });
  report?.({ type: 'agent_start', runId, provider: provider.id, model: options.model });
  // One per run: the kernel's events get the ids of the turn in progress.
  let currentTurn = '';
  const onKernelEvent = (e: KernelEvent): void => emit(withIds(e, runId, currentTurn));
  const batchOptions = signal === undefined ? { onEvent: onKernelEvent } : { signal, onEvent: onKernelEvent };
  const watch = watchAbort(signal);

  for (;;) {
    if (signal?.aborted) {
      status = 'aborted';
      reason = 'The run was aborted before the next model request.';
      break;
    }
    turn++;
    const turnId = `${runId}:${turn}`;
    let nth = 0;
    const messageId = (): string => `${turnId}:${++nth}`;
    const append = (message: Message): void => {
      context.push(message);
      added.push(message);
      const id = messageId();
      emit({ type: 'message_start', runId, turnId, messageId: id, message });
      emit({ type: 'message_end', runId, turnId, messageId: id, message });
    };
    emit({ type: 'turn_start', runId, turnId, turn });
    report?.({ type: 'turn_start', runId, turnId, turn });
    for (const message of pending) append(message);
    pending = [];

    // The runner's tools are read each turn: the host's enabled set can change between requests.
    const tools = runner.tools;
    if (tools !== offered) {
      offered = tools;
      systemPrompt = promptFor(tools);
    }
    const replyId = messageId();
    report?.({ type: 'model_request_start', runId, turnId, provider: provider.id, model: options.model });
    const message = await streamReply(
      provider,
      {
        model: options.model,
        systemPrompt,
        messages: context,
        tools,
        ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
        ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
      },
      watch,
      {
        start: (m) => emit({ type: 'message_start', runId, turnId, messageId: replyId, message: m }),
        update: (m, delta) => emit({ type: 'message_update', runId, turnId, messageId: replyId, message: m, delta }),
      },
    );
    usage.requests++;
    addUsage(usage.model, message.usage);
    final = message;
    context.push(message);
    added.push(message);
    emit({ type: 'message_end', runId, turnId, messageId: replyId, message });

    const calls = toolCallsOf(message);
    // Before the batch: an observer links the kernel's events for these calls to this request.
    report?.({
      type: 'model_request_end',
      runId,
      turnId,
      provider: message.provider,
      model: message.model,
      stopReason: message.stopReason,
      ...(message.usage === undefined ? {} : { usage: message.usage }),
      toolCallIds: calls.map((call) => call.id),
    });
    currentTurn = turnId;
    const batch: { results: ToolResultMessage[]; terminate: boolean; failed?: string } = calls.length === 0 ? { results: [], terminate: false } : await runCalls(calls, message, runner, batchOptions);
    for (const result of batch.results) {
      addUsage(usage.tools, result.usage);
      append(result);
    }
    emit({ type: 'turn_end', runId, turnId, turn, message, toolResults: batch.results });
    report?.({ type: 'turn_end', runId, turnId, turn, toolCalls: calls.length });

    const stop = stopAfterTurn({ message, calls: calls.length, batch, aborted: signal?.aborted === true, queued: steering.size + followUp.size > 0, turn, maxTurns, provider: provider.id });
    if (stop !== undefined) {
      status = stop.status;
      reason = stop.reason;
      break;
    }
    const wantsMore = calls.length > 0 && !batch.terminate;
    pending = steering.drain();
    if (!wantsMore && pending.length === 0) pending = followUp.drain();
  }

  watch.dispose();
  const result: AgentRunResult = {
    runId,
    status,
    ...(reason === undefined ? {} : { reason }),
    messages: added,
    finalMessage: final,
    turns: turn,
    usage,
  };
  emit({ type: 'agent_end', runId, result });
  report?.({ type: 'agent_end', runId, status, turns: turn, requests: usage.requests, usage: { ...usage.model } });
  return result;
}

/**
 * The runner's activity sink, made safe like a listener: an observer's failure goes to
 * `onListenerError` and never breaks the run. Undefined when the runner takes no activity.
 */
function activityReporter(runner: ToolRunner, onError: ((error: unknown) => void) | undefined): ((activity: AgentActivity) => void) | undefined {
  const sink = runner.activity?.bind(runner);
  if (sink === undefined) return undefined;
  return (activity) => {
    try {
      sink(activity);
    } catch (error) {
      try {
        onError?.(error);
      } catch {
        // The error reporter itself failed: nothing left to tell.
      }
    }
  };
}

/**
 * One message's calls: those that may run go to the runner as one batch (so the kernel's
 * ordering, policy and approval apply across them); the rest are refused through the runner,
 * or answered here for a runner that cannot (unrun-calls.ts).
 * Results come back in the model's order, one per call.
 */
async function runCalls(
  calls: readonly AssistantToolCall[],
  message: AssistantMessage,
  runner: ToolRunner,
  options: RunnerBatchOptions & { onEvent: (event: KernelEvent) => void },
): Promise<{ results: ToolResultMessage[]; terminate: boolean; failed?: string }> {
  const onEvent = options.onEvent;
  const results: ToolResultMessage[] = new Array(calls.length);
  const answer = (index: number, call: AssistantToolCall, outcome: ToolResultMessage['outcome'], text: string): void => {
    const result = unrunResult(call, outcome, text);
    onEvent({ type: 'tool_execution_start', toolCallId: call.id, toolName: call.name, args: call.parseError === undefined ? call.arguments : (call.argumentsText ?? call.arguments) });
    onEvent({ type: 'tool_execution_end', toolCallId: call.id, toolName: call.name, result });
    results[index] = result;
  };
  // Calls that must not run still go through the kernel when the runner can take them there
  // (refuseBatch: the tool_result hook sees them, so the audit log does); else answered here.
  const refuse = async (at: readonly number[], outcome: CallRefusal['outcome'], text: string): Promise<void> => {
    if (runner.refuse !== undefined) {
      try {
        const answered = await runner.refuse(
          at.map((i) => asCall(calls[i]!)),
          { outcome, text },
          options,
        );
        at.forEach((i, k) => {
          if (answered[k] !== undefined) results[i] = answered[k]!;
        });
      } catch {
        // A runner that cannot refuse must not leave a hole: answered below.
      }
    }
    for (const i of at) if (results[i] === undefined) answer(i, calls[i]!, outcome, text);
  };
  const unfinished = unfinishedReason(message);
  if (unfinished !== undefined) {
    await refuse(
      calls.map((_, i) => i),
      unfinished.outcome,
      unfinished.text,
    );
    return { results, terminate: false };
  }
  let toKernel: readonly ToolCall[] = calls;
  let slots: number[] | undefined;
  if (calls.some((call) => call.parseError !== undefined)) {
    const some: ToolCall[] = [];
    slots = [];
    for (let i = 0; i < calls.length; i++) {
      const forKernel = kernelCall(calls[i]!);
      if (forKernel === undefined) await refuse([i], 'invalid', malformedText(calls[i]!));
      else {
        some.push(forKernel);
        slots.push(i);
      }
    }
    if (some.length === 0) return { results, terminate: false };
    toKernel = some;
  }
  // The common case: the blocks themselves are well-formed calls ({id, name, arguments}); the
  // kernel reads them as they are and never changes them.
  let batch: BatchResult;
  try {
    batch = await runner.batch(toKernel, options);
  } catch (error) {
    // A runner bug, not something the model can fix: every call gets a result, then the run ends.
    const why = `The tool runner failed: ${error instanceof Error ? error.message : String(error)}`;
    for (let i = 0; i < calls.length; i++) if (results[i] === undefined) answer(i, calls[i]!, 'error', `${why}. This call may or may not have run.`);
    return { results, terminate: false, failed: why };
  }
  if (slots === undefined && batch.messages.length === calls.length) return { results: batch.messages, terminate: batch.terminate };
  const at = slots ?? calls.map((_, i) => i);
  for (let k = 0; k < at.length; k++) if (batch.messages[k] !== undefined) results[at[k]!] = batch.messages[k]!;
  // A runner that lost a result must not leave a hole either.
  for (let i = 0; i < calls.length; i++) {
    if (results[i] === undefined) answer(i, calls[i]!, 'error', 'Not run: the tool runner returned no result for this call.');
  }
  return { results, terminate: batch.terminate && at.length === calls.length };
}

/**
 * The kernel's event with the run's and the turn's ids. Spelled out per type: a spread of an
 * event of any shape was the loop's most expensive line per call.
 */
function withIds(e: KernelEvent, runId: string, turnId: string): AgentEvent {
  switch (e.type) {
    case 'tool_execution_start':
      return { type: e.type, toolCallId: e.toolCallId, toolName: e.toolName, args: e.args, runId, turnId };
    case 'tool_execution_update':
      return { type: e.type, toolCallId: e.toolCallId, toolName: e.toolName, partial: e.partial, runId, turnId };
    case 'tool_execution_end':
      return { type: e.type, toolCallId: e.toolCallId, toolName: e.toolName, result: e.result, runId, turnId };
    case 'tool_decision':
      return { type: e.type, toolCallId: e.toolCallId, toolName: e.toolName, decision: e.decision, provenance: e.provenance, resources: e.resources, runId, turnId };
    default:
      return { ...e, runId, turnId };
  }
}

export type { AgentEvent };

/** What one turn came to, for deciding whether the run goes on. */
interface TurnOutcome {
  message: AssistantMessage;
  /** How many tool calls the reply asked for. */
  calls: number;
  batch: { terminate: boolean; failed?: string };
  aborted: boolean;
  /** Steering or follow-up messages wait to be sent. */
  queued: boolean;
  turn: number;
  maxTurns: number;
  provider: string;
}

/** Why the run ends after this turn (a status, and words for anything but a plain end), or undefined to go on. */
function stopAfterTurn(t: TurnOutcome): { status: RunStatus; reason: string | undefined } | undefined {
  if (t.batch.failed !== undefined) return { status: 'failed', reason: t.batch.failed };
  if (t.message.stopReason === 'error') return { status: 'failed', reason: t.message.errorMessage ?? `The model provider "${t.provider}" failed without saying why.` };
  // An answer that arrived complete before the signal fired stands.
  if (t.message.stopReason === 'aborted' || (t.aborted && t.calls > 0)) {
    return { status: 'aborted', reason: t.calls > 0 ? 'The run was aborted; every tool call got a result.' : 'The run was aborted while the model was answering.' };
  }
  if (t.calls === 0 && t.message.stopReason === 'length') {
    return { status: 'failed', reason: "The model's answer was cut off at its output limit (stop reason \"length\"). Raise the output limit or ask for a shorter answer." };
  }
  const wantsMore = t.calls > 0 && !t.batch.terminate;
  if (!wantsMore && !t.queued) return { status: t.batch.terminate ? 'terminated' : 'done', reason: undefined };
  if (t.turn >= t.maxTurns) {
    const left = wantsMore ? "the model's last tool results were still to be sent to it" : 'messages were still queued';
    return { status: 'turn_limit', reason: `Stopped after ${t.turn} ${t.turn === 1 ? 'turn' : 'turns'}: the turn limit (${t.maxTurns}) was reached while ${left}. Raise the limit (airlock run --max-turns N) or continue the conversation.` };
  }
  return undefined;
}
