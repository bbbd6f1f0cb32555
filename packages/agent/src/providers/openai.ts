import { toProviderTools } from '@airlock/toolkit';
import type { ClientOptions } from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { ModelProvider, ModelRequest, ModelStreamEvent } from '../provider.js';
import { refuseUnknownOptions } from '@airlock/toolkit/util';
import { CONNECTION_OPTIONS, resolveConnection, type ConnectionOptions, type Vendor } from './connection.js';
import { toOpenAIMessages } from './openai-messages.js';
import { ChunkReader } from './openai-stream.js';
import { sdkStream } from './sdk-stream.js';

/**
 * OpenAI-compatible chat completions (streaming), through the official `openai` SDK. The base URL
 * makes it cover OpenAI itself, Ollama, vLLM, llama.cpp's server, LM Studio and OpenRouter.
 */

export interface OpenAIProviderOptions extends ConnectionOptions {
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
}

const OPENAI: Vendor = { id: 'openai', label: 'OpenAI', keyEnv: 'OPENAI_API_KEY', baseEnv: 'OPENAI_BASE_URL', defaultBaseURL: 'https://api.openai.com/v1', keyHeaders: ['Authorization'] };

const OPTIONS = [...CONNECTION_OPTIONS, 'idleTimeoutMs', 'maxTokensField', 'reasoningEffort', 'strictTools'] as const satisfies readonly (keyof OpenAIProviderOptions)[];

/**
 * Create the OpenAI-compatible provider. Throws ProviderSetupError when no key is available for
 * OpenAI's own endpoint (naming the variable) or the base URL is not a URL.
 *
 * @example
 * const openai = createOpenAIProvider({ baseUrl: 'http://127.0.0.1:11434/v1' }); // Ollama, no key
 * for await (const e of openai.stream({ model: 'qwen3', systemPrompt, messages, tools })) …
 */
export function createOpenAIProvider(options: OpenAIProviderOptions = {}): ModelProvider {
  // A misspelt option (`baseURL`) would be ignored and the run would fail later for another reason.
  refuseUnknownOptions('createOpenAIProvider()', options, OPTIONS);
  const c = resolveConnection(options, OPENAI);
  const clientOptions: ClientOptions = c.client;
  // The SDK is loaded on the first request, so a CLI run that uses another provider never pays for it.
  let client: Promise<import('openai').OpenAI> | undefined;
  const getClient = (): Promise<import('openai').OpenAI> => (client ??= import('openai').then(({ OpenAI }) => new OpenAI(clientOptions)));
  const maxTokensField = options.maxTokensField ?? (c.given === undefined ? 'max_completion_tokens' : 'max_tokens');

  return {
    id: c.id,
    stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelStreamEvent> {
      return sdkStream<ChatCompletionCreateParamsStreaming, ChatCompletionChunk>(
        {
          connection: c,
          wire: 'openai',
          idleTimeoutMs: options.idleTimeoutMs,
          body: requestBody,
          open: async (body, s) => (await getClient()).chat.completions.create(body, { signal: s }),
          reader: (builder) => new ChunkReader(builder),
        },
        request,
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
