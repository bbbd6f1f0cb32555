import { providerToolNames, toProviderTools } from '@airlock/kernel';
import type { ClientOptions } from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { ModelProvider, ModelRequest, ModelStreamEvent } from '../provider.js';
import { AssistantBuilder } from './assistant-builder.js';
import { resolveApiKey, resolveBaseURL } from './keys.js';
import { toOpenAIMessages } from './openai-messages.js';
import { ChunkReader } from './openai-stream.js';
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
