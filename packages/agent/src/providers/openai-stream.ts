import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { ModelUsage, StopReason } from '../messages.js';
import type { ModelStreamEvent } from '../provider.js';
import type { AssistantBuilder } from './assistant-builder.js';

/** Chat completion chunks → the assistant message being built: text, reasoning, tool calls, finish reason, usage. */

/** Chat completions `finish_reason` → StopReason. */
export function openAIStopReason(reason: string): { stopReason: StopReason; error?: string } {
  switch (reason) {
    case 'stop':
      return { stopReason: 'stop' };
    case 'length':
      return { stopReason: 'length' };
    case 'tool_calls':
    case 'function_call':
      return { stopReason: 'toolUse' };
    case 'content_filter':
      return { stopReason: 'error', error: 'The answer was stopped by the provider\'s content filter (finish_reason "content_filter"). Rephrase the request.' };
    default:
      // Compatible servers invent their own ("eos", "end_turn"); all mean the model finished.
      return { stopReason: 'stop' };
  }
}

/** Chat completions usage → ModelUsage. `input` excludes cached prompt tokens, which are `cacheRead`. */
export function openAIUsage(usage: NonNullable<ChatCompletionChunk['usage']>): ModelUsage {
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  const input = Math.max(0, (usage.prompt_tokens ?? 0) - cached);
  const output = usage.completion_tokens ?? 0;
  return { input, output, cacheRead: cached, cacheWrite: 0, totalTokens: usage.total_tokens ?? input + output + cached };
}

type ToolCallDelta = NonNullable<ChatCompletionChunk.Choice.Delta['tool_calls']>[number];

/** Reads chat completion chunks into the builder. */
export class ChunkReader {
  /** `tool_calls[].index` → the builder key of the call now streaming under it. */
  readonly #byIndex = new Map<number, string>();
  /** A call's id → its builder key, for servers that send no index. */
  readonly #byId = new Map<string, string>();
  /** Builder key → the id the server gave that call. */
  readonly #ids = new Map<string, string>();
  readonly #named = new Set<string>();
  #last: string | undefined;
  #keys = 0;

  constructor(private readonly builder: AssistantBuilder) {}

  *read(chunk: ChatCompletionChunk): Iterable<ModelStreamEvent | undefined> {
    if (chunk.usage) this.builder.setUsage(openAIUsage(chunk.usage));
    const choice = chunk.choices?.[0];
    if (choice === undefined) return;
    const delta = (choice.delta ?? {}) as ChatCompletionChunk.Choice.Delta & { reasoning_content?: unknown; reasoning?: unknown };
    // Reasoning text, as vLLM, Ollama, DeepSeek and OpenRouter stream it.
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === 'string') yield this.builder.thinking(reasoning);
    if (typeof delta.content === 'string') yield this.builder.text(delta.content);
    // A refusal is the model's answer to the person, so it is shown as text.
    if (typeof delta.refusal === 'string') yield this.builder.text(delta.refusal);
    for (const call of delta.tool_calls ?? []) yield* this.#toolCall(call);
    if (typeof choice.finish_reason === 'string' && (choice.finish_reason as string) !== '') {
      const mapped = openAIStopReason(choice.finish_reason);
      this.builder.stopReason = mapped.stopReason;
      this.builder.stopError = mapped.error;
      yield* this.builder.endOpenToolCalls();
    }
  }

  *#toolCall(call: ToolCallDelta): Iterable<ModelStreamEvent | undefined> {
    const id = typeof call.id === 'string' && call.id !== '' ? call.id : undefined;
    const name = typeof call.function?.name === 'string' && call.function.name !== '' ? call.function.name : undefined;
    const rawArgs: unknown = call.function?.arguments;
    // Some servers send the arguments as an object instead of JSON text.
    const args = typeof rawArgs === 'string' ? rawArgs : rawArgs !== undefined && rawArgs !== null ? JSON.stringify(rawArgs) : '';
    let key = this.#keyOf(call, id, name);
    // A new id under a known index is a new call (some servers send index 0 for every call).
    if (key !== undefined && id !== undefined && this.#ids.has(key) && this.#ids.get(key) !== id) {
      yield this.builder.toolCallEnd(key);
      key = undefined;
    }
    if (key === undefined || !this.builder.hasToolCall(key)) {
      key = `k${this.#keys++}`;
      if (typeof call.index === 'number') this.#byIndex.set(call.index, key);
      if (id !== undefined) {
        this.#byId.set(id, key);
        this.#ids.set(key, id);
      }
      if (name !== undefined) this.#named.add(key);
      yield this.builder.toolCallStart(key, id, name);
    } else if (name !== undefined && !this.#named.has(key)) {
      this.#named.add(key);
      this.builder.toolCallName(key, name);
    }
    this.#last = key;
    yield this.builder.toolCallDelta(key, args);
  }

  /**
   * Which call a delta continues: by `index`; without one, by id; with neither, a delta that
   * names no tool continues the latest call (servers that send the id and name only once).
   */
  #keyOf(call: ToolCallDelta, id: string | undefined, name: string | undefined): string | undefined {
    if (typeof call.index === 'number') return this.#byIndex.get(call.index);
    if (id !== undefined) return this.#byId.get(id);
    return name === undefined ? this.#last : undefined;
  }
}
