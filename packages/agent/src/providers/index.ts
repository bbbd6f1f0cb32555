import type { ModelProvider } from '../provider.js';
import { createAnthropicProvider, type AnthropicProviderOptions } from './anthropic.js';
import { createOpenAIProvider, type OpenAIProviderOptions } from './openai.js';

/**
 * Provider id (the part before `:` in `--model provider:name`) → factory. Options are the
 * provider's own (keys, base URL, retry); each factory ignores what it does not know.
 *
 * @example
 * const provider = PROVIDERS['openai']!({ baseURL: 'http://127.0.0.1:11434/v1' });
 */
export const PROVIDERS: Record<string, (options: ProviderFactoryOptions) => ModelProvider> = {
  openai: (options) => createOpenAIProvider(options),
  anthropic: (options) => createAnthropicProvider(options),
};

/** What the CLI may pass any provider factory (settings plus flags such as `--base-url`). */
export type ProviderFactoryOptions = OpenAIProviderOptions & AnthropicProviderOptions;
