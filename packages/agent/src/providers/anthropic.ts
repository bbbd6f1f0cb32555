import { toProviderTools } from '@airlock/toolkit';
import type { ClientOptions } from '@anthropic-ai/sdk';
import type { MessageCreateParamsStreaming, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ModelProvider, ModelRequest, ModelStreamEvent } from '../provider.js';
import { toAnthropicMessages } from './anthropic-messages.js';
import { EventReader } from './anthropic-stream.js';
import { refuseUnknownOptions } from '@airlock/toolkit/util';
import { CONNECTION_OPTIONS, resolveConnection, type ConnectionOptions, type Vendor } from './connection.js';
import { sdkStream } from './sdk-stream.js';

/** Anthropic messages (streaming), through the official `@anthropic-ai/sdk`. */

export interface AnthropicProviderOptions extends ConnectionOptions {
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
}

export const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192;
const ANTHROPIC: Vendor = { id: 'anthropic', label: 'Anthropic', keyEnv: 'ANTHROPIC_API_KEY', baseEnv: 'ANTHROPIC_BASE_URL', defaultBaseURL: 'https://api.anthropic.com', keyHeaders: ['Authorization', 'X-Api-Key'] };

const OPTIONS = [...CONNECTION_OPTIONS, 'idleTimeoutMs', 'defaultMaxTokens', 'thinkingBudget', 'promptCaching'] as const satisfies readonly (keyof AnthropicProviderOptions)[];

/**
 * Create the Anthropic provider. Throws ProviderSetupError when no key is available for
 * Anthropic's own endpoint (naming ANTHROPIC_API_KEY) or the base URL is not a URL.
 *
 * @example
 * const claude = createAnthropicProvider(); // reads ANTHROPIC_API_KEY
 * for await (const e of claude.stream({ model: 'claude-sonnet-4-5', systemPrompt, messages, tools })) …
 */
export function createAnthropicProvider(options: AnthropicProviderOptions = {}): ModelProvider {
  // A misspelt option (`baseURL`) would be ignored and the run would fail later for another reason.
  refuseUnknownOptions('createAnthropicProvider()', options, OPTIONS);
  const c = resolveConnection(options, ANTHROPIC);
  const clientOptions: ClientOptions = c.client;
  // The SDK is loaded on the first request, so a CLI run that uses another provider never pays for it.
  let client: Promise<import('@anthropic-ai/sdk').Anthropic> | undefined;
  const getClient = (): Promise<import('@anthropic-ai/sdk').Anthropic> => (client ??= import('@anthropic-ai/sdk').then(({ Anthropic }) => new Anthropic(clientOptions)));
  const caching = options.promptCaching ?? true;

  return {
    id: c.id,
    stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelStreamEvent> {
      return sdkStream<MessageCreateParamsStreaming, RawMessageStreamEvent>(
        {
          connection: c,
          wire: 'anthropic',
          idleTimeoutMs: options.idleTimeoutMs,
          body: requestBody,
          open: async (body, s) => (await getClient()).messages.create(body, { signal: s }),
          reader: (builder) => new EventReader(builder),
        },
        request,
        signal,
      );
    },
  };

  function requestBody(request: ModelRequest): MessageCreateParamsStreaming {
    let maxTokens = request.maxTokens ?? options.defaultMaxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS;
    const body: MessageCreateParamsStreaming = {
      model: request.model,
      messages: toAnthropicMessages(request.messages, { cacheLastTurn: caching, provider: c.id, model: request.model }),
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
