import { providerToolNames, toProviderTools, type ImageContent, type TextContent, type ToolResultMessage } from '@airlock/kernel';
import type { ClientOptions } from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  ImageBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  RawMessageStreamEvent,
  TextBlockParam,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type { AssistantMessage, Message, ModelUsage, StopReason, UserMessage } from '../messages.js';
import type { ModelProvider, ModelRequest, ModelStreamEvent } from '../provider.js';
import { AssistantBuilder } from './assistant-builder.js';
import { resolveApiKey, resolveBaseURL } from './keys.js';
import { isSendableImage, repairTranscript, unsendableImageNote, wireToolCallId, wireToolName } from './repair-transcript.js';
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

export interface AnthropicMessageOptions {
  /** Mark the newest user turn as a prompt-cache breakpoint. */
  cacheLastTurn?: boolean;
  /** Thinking goes back only in messages from this provider id and model (default `anthropic`, any model). */
  provider?: string;
  model?: string;
}

/**
 * Airlock messages → Anthropic messages. The transcript is repaired first (see repairTranscript).
 * Tool results become `tool_result` blocks (with `is_error`, and images inline, which the API
 * accepts there) at the start of the next user turn, as the API requires. Thinking goes back only
 * with its signature and only to the provider and model that wrote it (a signature is not valid
 * elsewhere); other reasoning is left out.
 *
 * @example
 * toAnthropicMessages([userMessage('hi')]); // [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]
 */
export function toAnthropicMessages(messages: readonly Message[], options: AnthropicMessageOptions = {}): MessageParam[] {
  const out: MessageParam[] = [];
  for (const message of repairTranscript(messages)) {
    if (message.role === 'assistant') {
      const content = assistantBlocks(message, message.provider === (options.provider ?? 'anthropic') && (options.model === undefined || message.model === options.model));
      if (content.length > 0) out.push({ role: 'assistant', content });
      continue;
    }
    const blocks: ContentBlockParam[] = message.role === 'user' ? userBlocks(message) : [toolResultBlock(message)];
    if (blocks.length === 0) continue;
    const last = out.at(-1);
    // One user turn holds a batch's tool results and anything said after them, results first.
    if (last !== undefined && last.role === 'user' && Array.isArray(last.content)) last.content.push(...blocks);
    else out.push({ role: 'user', content: blocks });
  }
  if (options.cacheLastTurn) markLastUserTurn(out);
  return out;
}

function userBlocks(message: UserMessage): ContentBlockParam[] {
  if (typeof message.content === 'string') return message.content === '' ? [] : [{ type: 'text', text: message.content }];
  return message.content.flatMap((block): ContentBlockParam[] => {
    if (block.type === 'text') return block.text === '' ? [] : [{ type: 'text', text: block.text }];
    return [imageBlock(block)];
  });
}

/** `withThinking`: the message came from this provider and model, so its signatures are valid here. */
function assistantBlocks(message: AssistantMessage, withThinking: boolean): ContentBlockParam[] {
  return message.content.flatMap((block): ContentBlockParam[] => {
    switch (block.type) {
      case 'text':
        return block.text === '' ? [] : [{ type: 'text', text: block.text }];
      case 'thinking':
        if (!withThinking || block.signature === undefined) return [];
        return block.redacted ? [{ type: 'redacted_thinking', data: block.signature }] : [{ type: 'thinking', thinking: block.thinking, signature: block.signature }];
      case 'toolCall':
        // A call whose JSON did not parse goes back as `{}`: the API wants an object, and the
        // call's answer already told the model what was wrong.
        return [{ type: 'tool_use', id: wireToolCallId(block.id, 'anthropic'), name: wireToolName(block.name, 'anthropic'), input: isObject(block.arguments) ? block.arguments : {} }];
    }
  });
}

function toolResultBlock(message: ToolResultMessage): ToolResultBlockParam {
  const content = message.content.map((c: TextContent | ImageContent): TextBlockParam | ImageBlockParam =>
    c.type === 'text' ? { type: 'text', text: c.text } : imageBlock(c) as TextBlockParam | ImageBlockParam,
  ).filter((c) => c.type !== 'text' || c.text !== '');
  return {
    type: 'tool_result',
    tool_use_id: wireToolCallId(message.toolCallId, 'anthropic'),
    content: content.length > 0 ? content : [{ type: 'text', text: '(no output)' }],
    ...(message.isError ? { is_error: true } : {}),
  };
}

function imageBlock(image: ImageContent): ImageBlockParam | TextBlockParam {
  if (!isSendableImage(image.mimeType)) return { type: 'text', text: unsendableImageNote(image.mimeType) };
  return { type: 'image', source: { type: 'base64', media_type: image.mimeType.toLowerCase() as 'image/png', data: image.data } };
}

function markLastUserTurn(messages: MessageParam[]): void {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== 'user' || !Array.isArray(message.content)) continue;
    const block = message.content.at(-1) as { cache_control?: unknown; type: string } | undefined;
    if (block !== undefined && block.type !== 'thinking' && block.type !== 'redacted_thinking') block.cache_control = { type: 'ephemeral' };
    return;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

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
class EventReader {
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
