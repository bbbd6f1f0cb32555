import { createHash } from 'node:crypto';
import { providerToolName, type ToolResultMessage } from '@airlock/kernel';
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

/**
 * A tool call id the API accepts, the same for the call and its answer. Ids made by another
 * provider (a session that switched models, a script) can break an API's rules: Anthropic wants
 * `[a-zA-Z0-9_-]{1,64}`, OpenAI at most 40 characters. Those are replaced by a digest, which is
 * stable and practically unique.
 *
 * @example
 * wireToolCallId('call|abc', 'anthropic'); // 'id_…' (24 hex digits)
 * wireToolCallId('toolu_01', 'anthropic'); // 'toolu_01'
 */
export function wireToolCallId(id: string, provider: 'openai' | 'anthropic'): string {
  const ok = provider === 'anthropic' ? /^[a-zA-Z0-9_-]{1,64}$/.test(id) : id.length > 0 && id.length <= 40;
  return ok ? id : `id_${createHash('sha256').update(id).digest('hex').slice(0, 24)}`;
}

/**
 * A tool name the API accepts when a past call is sent back. A call keeps the name the model
 * wrote, which may be one no tool has (the loop answered it `not_found`), longer than the API's
 * 64 characters or empty; sent back unchanged it would make every later request fail. Known
 * names come out as `toProviderTools` spells them.
 *
 * @example
 * wireToolName('github:create_issue', 'openai'); // 'github_create_issue'
 * wireToolName('', 'anthropic');                 // 'unnamed_tool'
 */
export function wireToolName(name: string, provider: 'openai' | 'anthropic'): string {
  const spelled = providerToolName(name, provider);
  if (spelled === '') return 'unnamed_tool';
  if (spelled.length <= 64) return spelled;
  return `${spelled.slice(0, 50)}_${createHash('sha256').update(name).digest('hex').slice(0, 13)}`;
}

/** Image types both APIs accept inline. */
const SENDABLE_IMAGES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** Can this image go to the model as is? */
export function isSendableImage(mimeType: string): boolean {
  return SENDABLE_IMAGES.has(mimeType.toLowerCase());
}

/** What the model sees instead of an image it cannot be sent. */
export function unsendableImageNote(mimeType: string): string {
  return `[An image of type ${mimeType} was left out: the model accepts PNG, JPEG, GIF and WebP images.]`;
}
