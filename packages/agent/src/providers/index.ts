import type { ModelProvider } from '../provider.js';
import { createAnthropicProvider } from './anthropic.js';
import { createOpenAIProvider } from './openai.js';

// The loop branch defines this registry too (with `scripted`, parseModelSpec and resolveModel);
// this file has the same shape so the two merge by adding the `openai` and `anthropic` lines.

/** What a provider factory gets besides the model name. */
export interface ProviderSetup {
  /** `--base-url`: where the provider's API is (OpenAI-compatible servers, proxies). */
  baseUrl?: string;
  /** The folder relative paths (a script file) resolve in. */
  cwd: string;
  /** Where keys come from (`OPENAI_API_KEY`, …). */
  env: Readonly<Record<string, string | undefined>>;
}

/** Makes a provider for one model name; throws a clear error (missing key, bad script) before any request. */
export type ProviderFactory = (model: string, setup: ProviderSetup) => ModelProvider | Promise<ModelProvider>;

/**
 * Every provider `--model provider:name` can name. A provider plugs in with one line here.
 *
 * @example
 * const provider = await PROVIDER_FACTORIES['openai']!('qwen3', { baseUrl: 'http://127.0.0.1:11434/v1', cwd, env: process.env });
 */
export const PROVIDER_FACTORIES: Readonly<Record<string, ProviderFactory>> = Object.freeze({
  openai: (_model: string, setup: ProviderSetup) => createOpenAIProvider({ env: setup.env, ...(setup.baseUrl !== undefined ? { baseURL: setup.baseUrl } : {}) }),
  anthropic: (_model: string, setup: ProviderSetup) => createAnthropicProvider({ env: setup.env, ...(setup.baseUrl !== undefined ? { baseURL: setup.baseUrl } : {}) }),
});
