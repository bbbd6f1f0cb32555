import type { AssistantMessage, AssistantText, AssistantThinking, AssistantToolCall, ModelUsage, StopReason } from '../messages.js';
import type { ModelStreamEvent } from '../provider.js';
import { StreamedToolCalls } from './tool-call-json.js';

/**
 * Builds one assistant message from a provider's stream and makes the matching events. Both
 * providers feed it; they only translate their wire chunks into these calls. Events carry the
 * live message (the same object, growing); the `done`/`error` event carries it complete.
 *
 * Blocks are keyed: Anthropic passes its content block index, so each block is its own; OpenAI
 * passes no key, and a delta then continues the last block when that block has the same type.
 */
export class AssistantBuilder {
  message!: AssistantMessage;
  /** Set by the provider when the model said why it stopped; undefined means it never did. */
  stopReason: StopReason | undefined;
  /** A provider's note when its stop reason is `error` (a refusal, a content filter). */
  stopError: string | undefined;
  #calls!: StreamedToolCalls;
  #blocks = new Map<string | number, AssistantText | AssistantThinking>();

  constructor(
    private readonly provider: string,
    private readonly model: string,
    private readonly toolNames: ReadonlyMap<string, string>,
  ) {
    this.reset();
  }

  /** Forget everything streamed so far (a retried attempt starts over). */
  reset(): void {
    // The same object stays live: consumers may hold the one the `start` event carried.
    const fresh: AssistantMessage = { role: 'assistant', content: [], stopReason: 'stop', provider: this.provider, model: this.model, timestamp: Date.now() };
    if (this.message === undefined) this.message = fresh;
    else {
      for (const key of Object.keys(this.message)) delete (this.message as unknown as Record<string, unknown>)[key];
      Object.assign(this.message, fresh);
    }
    this.stopReason = undefined;
    this.stopError = undefined;
    this.#calls = new StreamedToolCalls(this.toolNames);
    this.#blocks = new Map();
  }

  /** Has anything the consumer can see been streamed? */
  get hasContent(): boolean {
    return this.message.content.length > 0;
  }

  start(): ModelStreamEvent {
    return { type: 'start', message: this.message };
  }

  text(delta: string, key?: string | number): ModelStreamEvent | undefined {
    if (delta === '') return undefined;
    const block = this.#block('text', key) as AssistantText;
    block.text += delta;
    return { type: 'text_delta', delta, message: this.message };
  }

  thinking(delta: string, key?: string | number): ModelStreamEvent | undefined {
    if (delta === '') return undefined;
    const block = this.#block('thinking', key) as AssistantThinking;
    block.thinking += delta;
    return { type: 'thinking_delta', delta, message: this.message };
  }

  /** Anthropic's signature for a thinking block (or the opaque data of a redacted one). */
  signature(piece: string, key: string | number, redacted = false): void {
    const block = this.#block('thinking', key) as AssistantThinking;
    block.signature = (block.signature ?? '') + piece;
    if (redacted) block.redacted = true;
  }

  toolCallStart(key: string | number, id: string | undefined, providerName: string | undefined): ModelStreamEvent {
    const begun = this.#calls.begin(key, id, providerName);
    // A placeholder keeps the block's place in the message; finish() replaces it with the parsed call.
    this.message.content.push({ type: 'toolCall', id: begun.id, name: begun.name, arguments: undefined });
    return { type: 'toolcall_start', index: begun.index, id: begun.id, name: begun.name, message: this.message };
  }

  hasToolCall(key: string | number): boolean {
    return this.#calls.has(key);
  }

  toolCallIdOf(key: string | number): string | undefined {
    return this.#calls.idOf(key);
  }

  toolCallName(key: string | number, piece: string): void {
    this.#calls.appendName(key, piece);
  }

  toolCallDelta(key: string | number, delta: string): ModelStreamEvent | undefined {
    if (delta === '') return undefined;
    const index = this.#calls.append(key, delta);
    return index === undefined ? undefined : { type: 'toolcall_delta', index, delta, message: this.message };
  }

  toolCallEnd(key: string | number, complete?: unknown): ModelStreamEvent | undefined {
    const id = this.#calls.idOf(key);
    const done = this.#calls.finish(key, complete);
    if (done === undefined) return undefined;
    const at = this.message.content.findIndex((b) => b.type === 'toolCall' && b.id === id);
    if (at >= 0) this.message.content[at] = done.call;
    return { type: 'toolcall_end', index: done.index, call: done.call, message: this.message };
  }

  /** Finish every call still open, in the order they began. */
  endOpenToolCalls(): ModelStreamEvent[] {
    const out: ModelStreamEvent[] = [];
    for (const key of this.#calls.openKeys()) {
      const event = this.toolCallEnd(key);
      if (event !== undefined) out.push(event);
    }
    return out;
  }

  setUsage(usage: ModelUsage): void {
    this.message.usage = usage;
  }

  /** Seal the message with its stop reason (and why, for `error`/`aborted`). */
  finish(stopReason: StopReason, errorMessage?: string): AssistantMessage {
    // Blocks left empty by the stream (a text block opened with no text) are not content.
    this.message.content = this.message.content.filter(
      (b) => !(b.type === 'text' && b.text === '') && !(b.type === 'thinking' && b.thinking === '' && b.signature === undefined),
    );
    // Some OpenAI-compatible servers report `stop` for a message that made tool calls.
    const hasCalls = this.message.content.some((b): b is AssistantToolCall => b.type === 'toolCall');
    this.message.stopReason = stopReason === 'stop' && hasCalls ? 'toolUse' : stopReason;
    if (errorMessage !== undefined) this.message.errorMessage = errorMessage;
    else delete this.message.errorMessage;
    return this.message;
  }

  #block(type: 'text' | 'thinking', key: string | number | undefined): AssistantText | AssistantThinking {
    if (key !== undefined) {
      const known = this.#blocks.get(key);
      if (known !== undefined && known.type === type) return known;
    } else {
      const last = this.message.content.at(-1);
      if (last !== undefined && last.type === type) return last;
    }
    const block: AssistantText | AssistantThinking = type === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '' };
    this.message.content.push(block);
    if (key !== undefined) this.#blocks.set(key, block);
    return block;
  }
}
