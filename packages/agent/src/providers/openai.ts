import { providerToolNames, toProviderTools, type ImageContent, type TextContent, type ToolResultMessage } from '@airlock/kernel';
import type { ClientOptions } from 'openai';
import type { ChatCompletionChunk, ChatCompletionContentPart, ChatCompletionContentPartText, ChatCompletionMessageParam, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { AssistantMessage, Message, ModelUsage, StopReason, UserMessage } from '../messages.js';
import type { ModelProvider, ModelRequest, ModelStreamEvent } from '../provider.js';
import { AssistantBuilder } from './assistant-builder.js';
import { resolveApiKey, resolveBaseURL } from './keys.js';
import { isSendableImage, repairTranscript, unsendableImageNote, wireToolCallId, wireToolName } from './repair-transcript.js';
import { retryPolicy, type RetryOptions } from './retry.js';
import { failedStream, runModelStream } from './run-stream.js';

/**
 * OpenAI-compatible chat completions (streaming), through the official `openai` SDK. The base URL
 * makes it cover OpenAI itself, Ollama, vLLM, llama.cpp's server, LM Studio and OpenRouter.
 */

export interface OpenAIProviderOptions {
  /** The key; default: the environment variable `apiKeyEnv`. */
  apiKey?: string;
  /** Where `apiKey` came from, named when the server refuses it (e.g. "settings providers.openai.apiKey"). */
  apiKeySource?: string;
  /** The variable to read the key from. Default `OPENAI_API_KEY` (OpenRouter users may prefer `OPENROUTER_API_KEY`). */
  apiKeyEnv?: string;
  /**
   * Where requests go; default `OPENAI_BASE_URL`, else OpenAI. With a base URL the key is
   * optional: a keyless local server gets requests without an Authorization header.
   */
  baseURL?: string;
  /** The environment to read variables from. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  retry?: RetryOptions;
  /** How long to wait for the response to start, per attempt. Default 10 minutes (the SDK's). */
  timeoutMs?: number;
  /** How long a started response may send nothing before the attempt is given up. Default 5 minutes; 0 = forever. */
  idleTimeoutMs?: number;
  /**
   * The field that carries `maxTokens`. OpenAI's current models want `max_completion_tokens`;
   * many compatible servers only know `max_tokens`. Default: `max_completion_tokens` for OpenAI's
   * own endpoint, `max_tokens` when a base URL is given.
   */
  maxTokensField?: 'max_completion_tokens' | 'max_tokens';
  /** Sent as `reasoning_effort` (reasoning models). */
  reasoningEffort?: 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';
  /** Ask for strict tool schemas where a tool qualifies (see the kernel's `OpenAIToolOptions`). */
  strictTools?: boolean;
  /** Extra request headers (OpenRouter's `HTTP-Referer`, a proxy's tenant header). */
  headers?: Record<string, string>;
  /** The provider id in messages and the registry. Default `openai`. */
  id?: string;
}

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/**
 * Create the OpenAI-compatible provider. Throws ProviderSetupError when no key is available for
 * OpenAI's own endpoint (naming the variable) or the base URL is not a URL.
 *
 * @example
 * const openai = createOpenAIProvider({ baseURL: 'http://127.0.0.1:11434/v1' }); // Ollama, no key
 * for await (const e of openai.stream({ model: 'qwen3', systemPrompt, messages, tools })) …
 */
export function createOpenAIProvider(options: OpenAIProviderOptions = {}): ModelProvider {
  const env = options.env ?? process.env;
  const id = options.id ?? 'openai';
  const baseURL = resolveBaseURL(options.baseURL, 'OPENAI_BASE_URL', env);
  const envVar = options.apiKeyEnv ?? 'OPENAI_API_KEY';
  const key = resolveApiKey({ label: 'OpenAI', envVar, apiKey: options.apiKey, apiKeySource: options.apiKeySource, baseURL, env });
  const retry = retryPolicy(options.retry);
  const clientOptions: ClientOptions = {
    // The SDK needs some key; for a keyless server the Authorization header is removed below.
    apiKey: key.key ?? 'no-key',
    baseURL: baseURL ?? DEFAULT_BASE_URL,
    maxRetries: 0, // retries are ours (retry.ts): one policy for both providers
    ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
    defaultHeaders: { ...options.headers, ...(key.key === undefined ? { Authorization: null } : {}) },
  };
  // The SDK is loaded on the first request, so a CLI run that uses another provider never pays for it.
  let client: Promise<import('openai').OpenAI> | undefined;
  const getClient = (): Promise<import('openai').OpenAI> => (client ??= import('openai').then(({ OpenAI }) => new OpenAI(clientOptions)));
  const maxTokensField = options.maxTokensField ?? (baseURL === undefined ? 'max_completion_tokens' : 'max_tokens');

  return {
    id,
    stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelStreamEvent> {
      const label = baseURL === undefined ? 'OpenAI' : 'OpenAI-compatible server';
      let names: ReadonlyMap<string, string>;
      let body: ChatCompletionCreateParamsStreaming;
      try {
        names = providerToolNames(request.tools, 'openai');
        body = requestBody(request);
      } catch (error) {
        return failedStream(new AssistantBuilder(id, request.model, new Map()), label, error);
      }
      const builder = new AssistantBuilder(id, request.model, names);
      const state = new ChunkReader(builder);
      return runModelStream<ChatCompletionChunk>(
        {
          builder,
          open: async (s) => (await getClient()).chat.completions.create(body, { signal: s }),
          read: (chunk) => state.read(chunk),
          end: () => builder.endOpenToolCalls(),
          retry,
          ...(options.idleTimeoutMs !== undefined ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
          errorContext: { label, keySource: key.source, model: request.model, baseURL: baseURL ?? DEFAULT_BASE_URL },
        },
        signal,
      );
    },
  };

  function requestBody(request: ModelRequest): ChatCompletionCreateParamsStreaming {
    const body: ChatCompletionCreateParamsStreaming = {
      model: request.model,
      messages: toOpenAIMessages(request.systemPrompt, request.messages),
      stream: true,
      stream_options: { include_usage: true },
    };
    if (request.tools.length > 0) {
      body.tools = toProviderTools(request.tools, 'openai', { strict: options.strictTools ?? false }) as unknown as NonNullable<typeof body.tools>;
    }
    if (request.maxTokens !== undefined) body[maxTokensField] = request.maxTokens;
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (options.reasoningEffort !== undefined) body.reasoning_effort = options.reasoningEffort as NonNullable<typeof body.reasoning_effort>;
    return body;
  }
}

/**
 * Airlock messages → chat completions messages. The transcript is repaired first (see
 * repairTranscript). Thinking is not sent back: chat completions has no field for it.
 *
 * Images: a `tool` message takes text only, so images a tool returned go in one `user` message
 * right after the batch's tool messages (tool messages must directly follow the assistant message
 * that made the calls), as `image_url` data URLs, each introduced by the call it came from.
 *
 * @example
 * toOpenAIMessages('Be brief.', [userMessage('hi')]);
 * // [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }]
 */
export function toOpenAIMessages(systemPrompt: string, messages: readonly Message[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (systemPrompt !== '') out.push({ role: 'system', content: systemPrompt });
  let images: ChatCompletionContentPart[] = [];
  const flushImages = (): void => {
    if (images.length > 0) out.push({ role: 'user', content: images });
    images = [];
  };
  for (const message of repairTranscript(messages)) {
    if (message.role !== 'toolResult') flushImages();
    if (message.role === 'user') {
      const user = userToOpenAI(message);
      if (user !== undefined) out.push(user);
    } else if (message.role === 'assistant') {
      const assistant = assistantToOpenAI(message);
      if (assistant !== undefined) out.push(assistant);
    } else {
      out.push({ role: 'tool', tool_call_id: wireToolCallId(message.toolCallId, 'openai'), content: toolResultText(message) });
      const sendable = message.content.filter((c): c is ImageContent => c.type === 'image' && isSendableImage(c.mimeType));
      if (sendable.length > 0) {
        images.push({ type: 'text', text: `Image${sendable.length > 1 ? 's' : ''} returned by the ${message.toolName} call ${message.toolCallId}:` });
        for (const image of sendable) images.push(imagePart(image));
      }
    }
  }
  flushImages();
  return out;
}

function userToOpenAI(message: UserMessage): ChatCompletionMessageParam | undefined {
  if (typeof message.content === 'string') return message.content === '' ? undefined : { role: 'user', content: message.content };
  const parts: ChatCompletionContentPart[] = [];
  for (const block of message.content) {
    if (block.type === 'text') {
      if (block.text !== '') parts.push({ type: 'text', text: block.text });
    } else if (isSendableImage(block.mimeType)) parts.push(imagePart(block));
    else parts.push({ type: 'text', text: unsendableImageNote(block.mimeType) });
  }
  if (parts.length === 0) return undefined;
  // Text-only content goes as a plain string: some compatible servers accept nothing else.
  if (parts.every((p): p is ChatCompletionContentPartText => p.type === 'text')) return { role: 'user', content: parts.map((p) => p.text).join('\n') };
  return { role: 'user', content: parts };
}

function assistantToOpenAI(message: AssistantMessage): ChatCompletionMessageParam | undefined {
  const text = message.content.flatMap((b) => (b.type === 'text' && b.text !== '' ? [b.text] : [])).join('\n');
  const calls = message.content.flatMap((b) =>
    b.type === 'toolCall'
      ? [{
          id: wireToolCallId(b.id, 'openai'),
          type: 'function' as const,
          // A call whose JSON did not parse goes back as `{}`: its answer already told the model why.
          function: { name: wireToolName(b.name, 'openai'), arguments: JSON.stringify(b.arguments ?? {}) },
        }]
      : [],
  );
  if (text === '' && calls.length === 0) return undefined;
  return calls.length > 0 ? { role: 'assistant', content: text === '' ? null : text, tool_calls: calls } : { role: 'assistant', content: text };
}

function toolResultText(message: ToolResultMessage): string {
  const parts = message.content.map((c: TextContent | ImageContent) =>
    c.type === 'text' ? c.text : isSendableImage(c.mimeType) ? `[image ${c.mimeType}: sent in the next message]` : unsendableImageNote(c.mimeType),
  );
  const text = parts.join('\n');
  return text === '' ? '(no output)' : text;
}

function imagePart(image: ImageContent): ChatCompletionContentPart {
  return { type: 'image_url', image_url: { url: `data:${image.mimeType};base64,${image.data}` } };
}

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
class ChunkReader {
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
