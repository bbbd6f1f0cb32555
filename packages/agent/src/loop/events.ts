import type { KernelEvent, ToolResultMessage } from '@airlock/contract';
import type { AssistantMessage, Message } from '../messages.js';
import type { ModelStreamEvent } from '../provider.js';
import type { AgentRunResult } from './result.js';

/** Every event of a run carries the run's id; turn and message events carry theirs too. */
interface RunIds {
  runId: string;
}
interface TurnIds extends RunIds {
  /** `<runId>:<turn>`; unique across runs. */
  turnId: string;
}
interface MessageIds extends TurnIds {
  /** `<turnId>:<n>`: the message's place in its turn. */
  messageId: string;
}

/**
 * What a run reports, in order:
 *
 * ```
 * agent_start
 *   turn_start
 *     message_start/end          each user message delivered in this turn (prompt, steering, follow-up)
 *     message_start              the assistant message
 *     message_update …           one per provider delta (text, thinking, tool-call JSON)
 *     message_end
 *     tool_execution_start …     the kernel's events for the batch, plus the loop's own for calls
 *     tool_execution_update …    that never reach the kernel (cut off, malformed); ends in
 *     tool_execution_end …       completion order
 *     message_start/end          each tool result, in the order of the calls
 *   turn_end
 *   …
 * agent_end                      the result: status, why, messages, usage
 * ```
 *
 * Tool events are the kernel's own (`tool_decision` and `hook_failure` included) with `runId`
 * and `turnId` added. Updates are for UIs only; they never become model messages.
 */
export type AgentEvent =
  | ({ type: 'agent_start'; prompts: readonly Message[] } & RunIds)
  | ({ type: 'agent_end'; result: AgentRunResult } & RunIds)
  | ({ type: 'turn_start'; turn: number } & TurnIds)
  | ({ type: 'turn_end'; turn: number; message: AssistantMessage; toolResults: readonly ToolResultMessage[] } & TurnIds)
  | ({ type: 'message_start'; message: Message } & MessageIds)
  | ({ type: 'message_update'; message: AssistantMessage; delta: ModelStreamEvent } & MessageIds)
  | ({ type: 'message_end'; message: Message } & MessageIds)
  | (KernelEvent & TurnIds);

/**
 * A listener. It is called synchronously and **not awaited**: a slow listener (a UI, a transcript
 * writer) never holds up the model stream or a running tool, the same rule the kernel applies to
 * its own events. A listener that must apply back-pressure queues the event itself. A throw, or a
 * returned promise that rejects, is reported to `onListenerError` and the run goes on.
 */
export type AgentListener = (event: AgentEvent) => void | Promise<void>;

/** Call every listener; none of them can break the run. */
export function safeEmitter(listeners: readonly AgentListener[], onError: (error: unknown) => void): (event: AgentEvent) => void {
  const report = (error: unknown): void => {
    try {
      onError(error);
    } catch {
      // The error reporter itself failed: nothing left to tell.
    }
  };
  const call = (listener: AgentListener, event: AgentEvent): void => {
    try {
      const out = listener(event);
      if (out !== undefined && typeof (out as Promise<void>).then === 'function') (out as Promise<void>).then(undefined, report);
    } catch (error) {
      report(error);
    }
  };
  if (listeners.length === 0) return () => {};
  if (listeners.length === 1) {
    const only = listeners[0]!;
    return (event) => call(only, event);
  }
  return (event) => {
    for (const listener of listeners) call(listener, event);
  };
}
