import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ModelUsage, StopReason } from '../messages.js';
import type { ModelStreamEvent } from '../provider.js';
import type { AssistantBuilder } from './assistant-builder.js';

/** Anthropic stream events → the assistant message being built: text, thinking and its signature, tool calls, stop reason, usage. */

/** Anthropic `stop_reason` → StopReason. */
export function anthropicStopReason(reason: string): { stopReason: StopReason; error?: string } {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
    case 'pause_turn':
      return { stopReason: 'stop' };
    case 'tool_use':
      return { stopReason: 'toolUse' };
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return { stopReason: 'length' };
    case 'refusal':
      return { stopReason: 'error', error: 'The model declined to continue (stop_reason "refusal"). Rephrase the request.' };
    default:
      return { stopReason: 'stop' };
  }
}

interface AnthropicUsageLike {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/** Reads Anthropic stream events into the builder. */
export class EventReader {
  #usage: ModelUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 };

  constructor(private readonly builder: AssistantBuilder) {}

  *read(event: RawMessageStreamEvent): Iterable<ModelStreamEvent | undefined> {
    switch (event.type) {
      case 'message_start':
        this.#usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 };
        this.#addUsage(event.message.usage);
        return;
      case 'content_block_start': {
        const block = event.content_block;
        if (block.type === 'text') yield this.builder.text(block.text, event.index);
        else if (block.type === 'thinking') {
          yield this.builder.thinking(block.thinking, event.index);
          if (block.signature) this.builder.signature(block.signature, event.index);
        } else if (block.type === 'redacted_thinking') this.builder.signature(block.data, event.index, true);
        else if (block.type === 'tool_use') {
          yield this.builder.toolCallStart(event.index, block.id, block.name);
          this.#inputs.set(event.index, block.input);
        }
        return;
      }
      case 'content_block_delta': {
        const delta = event.delta;
        if (delta.type === 'text_delta') yield this.builder.text(delta.text, event.index);
        else if (delta.type === 'thinking_delta') yield this.builder.thinking(delta.thinking, event.index);
        else if (delta.type === 'signature_delta') this.builder.signature(delta.signature, event.index);
        else if (delta.type === 'input_json_delta') yield this.builder.toolCallDelta(event.index, delta.partial_json);
        return;
      }
      case 'content_block_stop':
        if (this.builder.hasToolCall(event.index)) yield this.builder.toolCallEnd(event.index, this.#inputs.get(event.index));
        return;
      case 'message_delta': {
        this.#addUsage(event.usage);
        if (event.delta.stop_reason) {
          const mapped = anthropicStopReason(event.delta.stop_reason);
          this.builder.stopReason = mapped.stopReason;
          this.builder.stopError = mapped.error;
        }
        return;
      }
      default:
        return;
    }
  }

  readonly #inputs = new Map<number, unknown>();

  /** Anthropic reports usage at the start and cumulatively in `message_delta`; a later non-null value replaces an earlier one. */
  #addUsage(usage: AnthropicUsageLike | null | undefined): void {
    if (!usage) return;
    const u = this.#usage;
    if (typeof usage.input_tokens === 'number') u.input = usage.input_tokens;
    if (typeof usage.output_tokens === 'number') u.output = usage.output_tokens;
    if (typeof usage.cache_read_input_tokens === 'number') u.cacheRead = usage.cache_read_input_tokens;
    if (typeof usage.cache_creation_input_tokens === 'number') u.cacheWrite = usage.cache_creation_input_tokens;
    u.totalTokens = u.input + u.output + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0);
    this.builder.setUsage({ ...u });
  }
}
