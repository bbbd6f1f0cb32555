import type { AssistantBlock, AssistantMessage, AssistantToolCall } from '../messages.js';
import type { ModelProvider, ModelRequest, ModelStreamEvent } from '../provider.js';
import { checkScript, loadScript, type ScriptBlock, type ScriptEntry } from './scripted-script.js';

export { loadScript, parseScript, checkScript, ScriptError, type ScriptEntry, type ScriptBlock } from './scripted-script.js';

export interface ScriptedProviderOptions {
  /** Split text, thinking and tool-call JSON into deltas of at most this many characters (default: one delta per block). */
  chunkChars?: number;
}

/**
 * A provider that plays a script: the n-th request gets the n-th message, streamed block by
 * block like a real provider (`start`, deltas, `toolcall_start/delta/end`, then `done` or `error`).
 * Tool-call JSON is parsed the way a provider must: text that does not parse becomes a call with
 * `parseError`. When the script has no message left, the reply is an `error` saying so. For tests,
 * demos and offline runs (`airlock run --model scripted:FILE`).
 *
 * @example
 * const provider = createScriptedProvider(checkScript([{ content: [{ type: 'toolCall', name: 'ls', arguments: {} }] }, 'Done.'], 'inline'));
 * const result = await runAgentLoop([userMessage('list')], { provider, model: 'inline', runner });
 */
export function createScriptedProvider(script: readonly ScriptEntry[], options: ScriptedProviderOptions = {}): ModelProvider & { readonly played: number } {
  let played = 0;
  const chunk = options.chunkChars !== undefined && options.chunkChars > 0 ? Math.floor(options.chunkChars) : Number.POSITIVE_INFINITY;
  return {
    id: 'scripted',
    get played() {
      return played;
    },
    stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelStreamEvent> {
      const entry = script[played];
      const number = ++played;
      return play(entry, number, script.length, request, chunk, signal);
    },
  };
}

/** A scripted provider for a script file, checked before the first request. */
export async function scriptedProviderFromFile(file: string, options?: ScriptedProviderOptions): Promise<ModelProvider> {
  return createScriptedProvider(await loadScript(file), options);
}

/** A scripted provider for messages given as values (checked now). */
export function scriptedProvider(messages: readonly unknown[], options?: ScriptedProviderOptions): ModelProvider {
  return createScriptedProvider(checkScript(messages, 'script'), options);
}

async function* play(
  entry: ScriptEntry | undefined,
  number: number,
  total: number,
  request: ModelRequest,
  chunk: number,
  signal: AbortSignal | undefined,
): AsyncGenerator<ModelStreamEvent> {
  const message: AssistantMessage = { role: 'assistant', content: [], stopReason: 'stop', provider: 'scripted', model: request.model, timestamp: Date.now() };
  if (entry === undefined) {
    message.stopReason = 'error';
    message.errorMessage = `The script ${request.model} has no reply for model request ${number}: it holds ${total} ${total === 1 ? 'message' : 'messages'}. Add a reply for each turn the conversation takes.`;
    yield { type: 'error', message };
    return;
  }
  yield { type: 'start', message };
  let calls = 0;
  for (const block of entry.content) {
    if (signal?.aborted) return yield aborted(message);
    if (block.type === 'text' || block.type === 'thinking') {
      const live: AssistantBlock = block.type === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '', ...(block.signature === undefined ? {} : { signature: block.signature }) };
      message.content.push(live);
      const whole = block.type === 'text' ? block.text : block.thinking;
      for (const delta of pieces(whole, chunk)) {
        if (signal?.aborted) return yield aborted(message);
        if (live.type === 'text') live.text += delta;
        else if (live.type === 'thinking') live.thinking += delta;
        yield { type: block.type === 'text' ? 'text_delta' : 'thinking_delta', delta, message };
      }
      continue;
    }
    const index = calls++;
    const id = block.id ?? `call_${number}_${index + 1}`;
    const json = block.argumentsText ?? JSON.stringify(block.arguments ?? {});
    const live: AssistantToolCall = { type: 'toolCall', id, name: block.name, arguments: undefined, argumentsText: '' };
    message.content.push(live);
    yield { type: 'toolcall_start', index, id, name: block.name, message };
    for (const delta of pieces(json, chunk)) {
      if (signal?.aborted) return yield aborted(message);
      live.argumentsText += delta;
      yield { type: 'toolcall_delta', index, delta, message };
    }
    const call = parsedCall(id, block, json);
    message.content[message.content.length - 1] = call;
    yield { type: 'toolcall_end', index, call, message };
  }
  message.stopReason = entry.stopReason ?? (calls > 0 ? 'toolUse' : 'stop');
  if (entry.usage !== undefined) message.usage = { ...entry.usage };
  if (message.stopReason === 'error') {
    message.errorMessage = entry.errorMessage ?? 'The scripted reply is an error.';
    yield { type: 'error', message };
  } else yield { type: 'done', message };
}

/** The call as a provider hands it over: parsed arguments, or the raw text and why it did not parse. */
function parsedCall(id: string, block: Extract<ScriptBlock, { type: 'toolCall' }>, json: string): AssistantToolCall {
  // Parsed from the text just streamed, as a provider does: a fresh object every time.
  if (block.argumentsText === undefined) return { type: 'toolCall', id, name: block.name, arguments: JSON.parse(json) as unknown };
  try {
    return { type: 'toolCall', id, name: block.name, arguments: JSON.parse(json) };
  } catch (error) {
    return { type: 'toolCall', id, name: block.name, arguments: undefined, argumentsText: json, parseError: (error as Error).message };
  }
}

function aborted(message: AssistantMessage): ModelStreamEvent {
  message.stopReason = 'aborted';
  message.errorMessage = 'The request was aborted.';
  return { type: 'error', message };
}

function pieces(text: string, size: number): string[] {
  if (text.length <= size) return [text];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
