import { providerToolNames, toProviderTools } from '@airlock/kernel';
import type { ClientOptions } from '@anthropic-ai/sdk';
import type { MessageCreateParamsStreaming, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ModelProvider, ModelRequest, ModelStreamEvent } from '../provider.js';
import { toAnthropicMessages } from './anthropic-messages.js';
import { EventReader } from './anthropic-stream.js';
import { AssistantBuilder } from './assistant-builder.js';
import { resolveApiKey, resolveBaseURL } from './keys.js';
import { retryPolicy, type RetryOptions } from './retry.js';
import { failedStream, runModelStream } from './run-stream.js';

/** Anthropic messages (streaming), through the official `@anthropic-ai/sdk`. */

export interface AnthropicProviderOptions {
  /** The key; default `ANTHROPIC_API_KEY` (or `apiKeyEnv`). */
  apiKey?: string;
  /** Where `apiKey` came from, named when the server refuses it. */
  apiKeySource?: string;
  /** The variable to read the key from. Default `ANTHROPIC_API_KEY`. */
  apiKeyEnv?: string;
  /** Where requests go; default `ANTHROPIC_BASE_URL`, else Anthropic. With a base URL the key is optional. */
  baseURL?: string;
  /** The environment to read variables from. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  retry?: RetryOptions;
  /** How long to wait for the response to start, per attempt. Default 10 minutes (the SDK's). */
  timeoutMs?: number;
  /** How long a started response may send nothing before the attempt is given up. Default 5 minutes; 0 = forever. */
  idleTimeoutMs?: number;
  /** `max_tokens` when the request gives none (the API requires one). Default 8192. */
  defaultMaxTokens?: number;
  /**
   * Extended thinking with this token budget. `max_tokens` is raised above the budget when it is not.
   */
  thinkingBudget?: number;
  /** Mark the system prompt and the newest user turn for prompt caching. Default true. */
  promptCaching?: boolean;
  /** Extra request headers (a proxy's tenant header, an `anthropic-beta` flag). */
  headers?: Record<string, string>;
  /** The provider id in messages and the registry. Default `anthropic`. */
  id?: string;
}

export const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192;
const DEFAULT_BASE_URL = 'https://api.anthropic.com';

/**
 * Create the Anthropic provider. Throws ProviderSetupError when no key is available for
 * Anthropic's own endpoint (naming ANTHROPIC_API_KEY) or the base URL is not a URL.
 *
 * @example
 * const claude = createAnthropicProvider(); // reads ANTHROPIC_API_KEY
 * for await (const e of claude.stream({ model: 'claude-sonnet-4-5', systemPrompt, messages, tools })) …
 */
export function createAnthropicProvider(options: AnthropicProviderOptions = {}): ModelProvider {
  const env = options.env ?? process.env;
  const id = options.id ?? 'anthropic';
  const baseURL = resolveBaseURL(options.baseURL, 'ANTHROPIC_BASE_URL', env);
  const envVar = options.apiKeyEnv ?? 'ANTHROPIC_API_KEY';
  const key = resolveApiKey({ label: 'Anthropic', envVar, apiKey: options.apiKey, apiKeySource: options.apiKeySource, baseURL, env });
  const retry = retryPolicy(options.retry);
  const clientOptions: ClientOptions = {
    // Always explicit, so the SDK never falls back to a credential chain of its own.
    apiKey: key.key ?? 'no-key',
    baseURL: baseURL ?? DEFAULT_BASE_URL,
    maxRetries: 0, // retries are ours (retry.ts): one policy for both providers
    ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
    defaultHeaders: { ...options.headers, ...(key.key === undefined ? { Authorization: null, 'X-Api-Key': null } : {}) },
  };
  // The SDK is loaded on the first request, so a CLI run that uses another provider never pays for it.
  let client: Promise<import('@anthropic-ai/sdk').Anthropic> | undefined;
  const getClient = (): Promise<import('@anthropic-ai/sdk').Anthropic> => (client ??= import('@anthropic-ai/sdk').then(({ Anthropic }) => new Anthropic(clientOptions)));
  const caching = options.promptCaching ?? true;

  return {
    id,
    stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelStreamEvent> {
      const label = baseURL === undefined ? 'Anthropic' : 'Anthropic-compatible server';
      let names: ReadonlyMap<string, string>;
      let body: MessageCreateParamsStreaming;
      try {
        names = providerToolNames(request.tools, 'anthropic');
        body = requestBody(request);
      } catch (error) {
        return failedStream(new AssistantBuilder(id, request.model, new Map()), label, error);
      }
      const builder = new AssistantBuilder(id, request.model, names);
      const reader = new EventReader(builder);
      return runModelStream<RawMessageStreamEvent>(
        {
          builder,
          open: async (s) => (await getClient()).messages.create(body, { signal: s }),
          read: (event) => reader.read(event),
          end: () => builder.endOpenToolCalls(),
          retry,
          ...(options.idleTimeoutMs !== undefined ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
          errorContext: { label, keySource: key.source, model: request.model, baseURL: baseURL ?? DEFAULT_BASE_URL },
        },
        signal,
      );
    },
  };

  function requestBody(request: ModelRequest): MessageCreateParamsStreaming {
    let maxTokens = request.maxTokens ?? options.defaultMaxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS;
    const body: MessageCreateParamsStreaming = {
      model: request.model,
      messages: toAnthropicMessages(request.messages, { cacheLastTurn: caching, provider: id, model: request.model }),
      max_tokens: maxTokens,
      stream: true,
    };
    if (request.systemPrompt !== '') {
      body.system = [{ type: 'text', text: request.systemPrompt, ...(caching ? { cache_control: { type: 'ephemeral' as const } } : {}) }];
    }
    if (request.tools.length > 0) body.tools = toProviderTools(request.tools, 'anthropic') as unknown as NonNullable<typeof body.tools>;
    if (options.thinkingBudget !== undefined) {
      if (maxTokens <= options.thinkingBudget) maxTokens = options.thinkingBudget + maxTokens;
      body.max_tokens = maxTokens;
      body.thinking = { type: 'enabled', budget_tokens: options.thinkingBudget };
    }
    // `request.temperature` is not sent: the Messages API version this SDK speaks has no such parameter.
    return body;
  }
}
