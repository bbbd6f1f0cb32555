import type { ImageContent, TextContent, ToolResultMessage, Usage } from '@airlock/contract';

/**
 * The transcript's vocabulary. A provider turns these into its own wire format and back; the loop,
 * sessions and replay only ever see these. Tool results are the kernel's own `ToolResultMessage`,
 * so what the kernel decided reaches the model (and the transcript) unchanged.
 */

/** What a person (or a follow-up queue) said. */
export interface UserMessage {
  role: 'user';
  content: string | (TextContent | ImageContent)[];
  /** Milliseconds since the epoch. */
  timestamp: number;
}

/** Visible assistant text. */
export interface AssistantText {
  type: 'text';
  text: string;
}

/** Reasoning a provider streams separately from the answer; kept for the transcript, never re-sent as text. */
export interface AssistantThinking {
  type: 'thinking';
  thinking: string;
  /** Provider-specific data that must travel back unchanged (Anthropic's thinking signature). */
  signature?: string;
  /**
   * The provider sent this reasoning encrypted (Anthropic's `redacted_thinking`): `thinking` is
   * empty and `signature` holds the opaque data, which goes back to the same provider unchanged.
   */
  redacted?: boolean;
}

/**
 * A tool call as the model emitted it. `arguments` is the parsed JSON object when the model's
 * JSON parsed; otherwise it is `undefined` and `parseError` says why, and the loop answers the
 * call with an `invalid` result instead of running it.
 */
export interface AssistantToolCall {
  type: 'toolCall';
  /** The provider's call id (answers must carry it back). */
  id: string;
  /** The Airlock tool name, already mapped back from the provider's spelling. */
  name: string;
  arguments: unknown;
  /** The raw argument text as streamed, kept when it did not parse. */
  argumentsText?: string;
  parseError?: string;
}

export type AssistantBlock = AssistantText | AssistantThinking | AssistantToolCall;

/**
 * Why a model response ended.
 * - `stop`    the model finished its answer
 * - `toolUse` the model asked for tool calls
 * - `length`  the output limit cut it off (its tool calls are never executed)
 * - `error`   the provider failed; `errorMessage` says how
 * - `aborted` the run's signal fired mid-stream
 */
export type StopReason = 'stop' | 'toolUse' | 'length' | 'error' | 'aborted';

/** Token usage of one model request, as the provider reported it. */
export type ModelUsage = Usage;

export interface AssistantMessage {
  role: 'assistant';
  content: AssistantBlock[];
  stopReason: StopReason;
  /** Present when `stopReason` is `error` or `aborted`. */
  errorMessage?: string;
  /** Which provider and model answered, e.g. `openai` / `gpt-5-mini`. */
  provider: string;
  model: string;
  usage?: ModelUsage;
  timestamp: number;
}

/** Every message in a transcript. */
export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/**
 * The tool calls of an assistant message, in the order the model emitted them.
 *
 * @example
 * toolCallsOf(message).map((c) => c.name); // ['read', 'bash']
 */
export function toolCallsOf(message: AssistantMessage): AssistantToolCall[] {
  return message.content.filter((b): b is AssistantToolCall => b.type === 'toolCall');
}

/**
 * The assistant message's visible text, blocks joined by newlines.
 *
 * @example
 * textOf({ role: 'assistant', content: [{ type: 'text', text: 'Done.' }], … }); // 'Done.'
 */
export function textOf(message: AssistantMessage): string {
  return message.content
    .filter((b): b is AssistantText => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
}

/**
 * A user message made now.
 *
 * @example
 * userMessage('List the files'); // { role: 'user', content: 'List the files', timestamp: … }
 */
export function userMessage(content: UserMessage['content'], timestamp = Date.now()): UserMessage {
  return { role: 'user', content, timestamp };
}
