import type { AnyAgentTool } from '@airlock/contract';
import type { AssistantMessage, AssistantToolCall, Message } from './messages.js';

/**
 * One streaming interface for every model provider. A provider is usable without the loop: give
 * it a request, read its events, and the last event is always `done` or `error` carrying the
 * complete assistant message. A provider never throws for a model or network failure; it ends the
 * stream with `error` (`stopReason: 'error'`, a message saying what to do) or, when the signal
 * fires, with `stopReason: 'aborted'` (also on an `error` event: `done` means the model finished).
 *
 * @example
 * for await (const event of provider.stream({ model: 'gpt-5-mini', systemPrompt, messages, tools }, signal)) {
 *   if (event.type === 'text_delta') process.stdout.write(event.delta);
 *   if (event.type === 'done') transcript.push(event.message);
 * }
 */
export interface ModelProvider {
  /** `openai`, `anthropic`, `scripted`, … (the part before `:` in `--model provider:name`). */
  readonly id: string;
  /**
   * The name the model sees for an Airlock tool, when the provider spells names its own way
   * (`github:create_issue` → `github_create_issue` for OpenAI). The system prompt lists tools
   * under these names, so they agree with the schemas. Default: the Airlock name.
   */
  toolName?(name: string): string;
  stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelStreamEvent>;
}

export interface ModelRequest {
  /** The provider's model name (`gpt-5-mini`, `claude-sonnet-4-5`, a script file for `scripted`). */
  model: string;
  systemPrompt: string;
  messages: readonly Message[];
  /**
   * The enabled tools. The provider serializes them with the kernel's provider serializers
   * (`toProviderTools`) and maps the names the model uses back with `providerToolNames`, so the
   * system prompt and the schemas come from this one list.
   */
  tools: readonly AnyAgentTool[];
  /** Output token limit for this request. */
  maxTokens?: number;
  temperature?: number;
}

/**
 * What a provider streams. Deltas are for the UI; the final message is the truth. `index` is the
 * tool call's position among this message's tool calls.
 */
export type ModelStreamEvent =
  | { type: 'start'; message: AssistantMessage }
  | { type: 'text_delta'; delta: string; message: AssistantMessage }
  | { type: 'thinking_delta'; delta: string; message: AssistantMessage }
  | { type: 'toolcall_start'; index: number; id: string; name: string; message: AssistantMessage }
  | { type: 'toolcall_delta'; index: number; delta: string; message: AssistantMessage }
  | { type: 'toolcall_end'; index: number; call: AssistantToolCall; message: AssistantMessage }
  | { type: 'done'; message: AssistantMessage }
  | { type: 'error'; message: AssistantMessage };
