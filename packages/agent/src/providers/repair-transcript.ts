import type { ToolResultMessage } from '@airlock/contract';
import type { AssistantMessage, Message } from '../messages.js';
import { toolCallsOf } from '../messages.js';

/**
 * A transcript in the shape both APIs accept, before it is translated. APIs reject a request whose
 * tool calls and answers do not pair up exactly: every call answered right after the message that
 * made it, no answer without its call. A transcript can break that (an aborted turn, a run that
 * stopped mid-batch, a resumed session), so before each request:
 *
 * - an assistant message that ended in `error` or `aborted` is left out, and so are the answers to
 *   its calls: it is an unfinished attempt the model never completed (its partial text and calls
 *   are kept in the transcript for people, not re-sent to the model);
 * - every other assistant message's calls are followed by their answers in call order, moved up
 *   past anything that came between (a steering message);
 * - a call without an answer gets a synthetic error answer saying the run stopped before it ran;
 * - an answer whose call is not in the assistant message before it, or a second answer to the same
 *   call, is left out.
 *
 * The input is not changed.
 *
 * @example
 * repairTranscript([user, assistantWithTwoCalls, resultForFirstCall]);
 * // [user, assistantWithTwoCalls, resultForFirstCall, syntheticErrorForSecondCall]
 */
export function repairTranscript(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === 'toolResult') continue; // placed with its call below, or dropped
    if (message.role === 'user') {
      out.push(message);
      continue;
    }
    if (message.stopReason === 'error' || message.stopReason === 'aborted') continue;
    out.push(message);
    const calls = toolCallsOf(message);
    if (calls.length === 0) continue;
    const answers = answersFor(messages, i, new Set(calls.map((c) => c.id)));
    for (const call of calls) out.push(answers.get(call.id) ?? missingResult(call.id, call.name, message));
  }
  return out;
}

/** The first answer to each of these ids between message `from` and the next assistant message. */
function answersFor(messages: readonly Message[], from: number, ids: ReadonlySet<string>): Map<string, ToolResultMessage> {
  const found = new Map<string, ToolResultMessage>();
  for (let j = from + 1; j < messages.length; j++) {
    const next = messages[j]!;
    if (next.role === 'assistant') break;
    if (next.role === 'toolResult' && ids.has(next.toolCallId) && !found.has(next.toolCallId)) found.set(next.toolCallId, next);
  }
  return found;
}

/** The text a model sees for a call that never got an answer. */
export const MISSING_RESULT_TEXT = 'No result was recorded for this tool call: the run stopped before it ran. Call the tool again if you still need it.';

function missingResult(toolCallId: string, toolName: string, after: AssistantMessage): ToolResultMessage {
  return {
    role: 'toolResult',
    toolCallId,
    toolName,
    content: [{ type: 'text', text: MISSING_RESULT_TEXT }],
    isError: true,
    outcome: 'aborted',
    timestamp: after.timestamp,
  };
}
