import { isAbsolute, resolve } from 'node:path';
import type { ModelProvider } from '../provider.js';
import { createAnthropicProvider } from './anthropic.js';
import { createOpenAIProvider } from './openai.js';
import { scriptedProviderFromFile } from './scripted.js';

/** What a provider factory gets besides the model name. */
export interface ProviderSetup {
  /** `--base-url`: where the provider's API is (OpenAI-compatible servers, proxies). */
  baseUrl?: string;
  /** The folder relative paths (a script file) resolve in. */
  cwd: string;
  /** Where keys come from (`OPENAI_API_KEY`, …). */
  env: Readonly<Record<string, string | undefined>>;
  /** A key from settings; wins over the environment. */
  apiKey?: string;
  /** Where `apiKey` came from, for messages ("providers.openai.apiKey in ~/.config/airlock/settings.json"). */
  apiKeySource?: string;
  /** Another variable to read the key from (`OPENROUTER_API_KEY`). */
  apiKeyEnv?: string;
}

/** The key options a vendor provider takes from a setup, only those given. */
function keyOptions(setup: ProviderSetup): { env: ProviderSetup['env']; baseUrl?: string; apiKey?: string; apiKeySource?: string; apiKeyEnv?: string } {
  return {
    env: setup.env,
    ...(setup.baseUrl !== undefined ? { baseUrl: setup.baseUrl } : {}),
    ...(setup.apiKey !== undefined ? { apiKey: setup.apiKey } : {}),
    ...(setup.apiKeySource !== undefined ? { apiKeySource: setup.apiKeySource } : {}),
    ...(setup.apiKeyEnv !== undefined ? { apiKeyEnv: setup.apiKeyEnv } : {}),
  };
}

/** Makes a provider for one model name; throws a clear error (missing key, bad script) before any request. */
export type ProviderFactory = (model: string, setup: ProviderSetup) => ModelProvider | Promise<ModelProvider>;

/**
 * Every provider `--model provider:name` can name. A provider plugs in with one line here.
 */
export const PROVIDER_FACTORIES: Readonly<Record<string, ProviderFactory>> = Object.freeze({
  openai: (_model: string, setup: ProviderSetup) => createOpenAIProvider(keyOptions(setup)),
  anthropic: (_model: string, setup: ProviderSetup) => createAnthropicProvider(keyOptions(setup)),
  scripted: (model: string, setup: ProviderSetup) => {
    if (setup.baseUrl !== undefined) throw new ModelSpecError('The scripted provider plays a file; it takes no --base-url.');
    return scriptedProviderFromFile(isAbsolute(model) ? model : resolve(setup.cwd, model));
  },
});

/** `--model` names no provider there is, or names it badly. */
export class ModelSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelSpecError';
  }
}

/**
 * `provider:name` split at the first colon (a name may hold more: `scripted:C:\\s.jsonl`).
 *
 * @example
 * parseModelSpec('openai:gpt-5-mini'); // { provider: 'openai', model: 'gpt-5-mini' }
 */
export function parseModelSpec(spec: string, known: readonly string[] = Object.keys(PROVIDER_FACTORIES)): { provider: string; model: string } {
  const colon = spec.indexOf(':');
  const provider = colon < 0 ? '' : spec.slice(0, colon);
  const model = colon < 0 ? '' : spec.slice(colon + 1);
  if (provider === '' || model === '') {
    throw new ModelSpecError(`--model "${spec}" must be provider:name, e.g. ${known.map((p) => `${p}:${p === 'scripted' ? 'FILE' : 'MODEL'}`).join(', ')}.`);
  }
  if (!Object.hasOwn(PROVIDER_FACTORIES, provider)) {
    throw new ModelSpecError(`Unknown model provider "${provider}" in --model "${spec}". Available: ${known.join(', ')}.`);
  }
  return { provider, model };
}

/**
 * The provider and model name `--model provider:name` asks for.
 *
 * @example
 * const { provider, model } = await resolveModel('scripted:demo.jsonl', { cwd, env: process.env });
 */
export async function resolveModel(spec: string, setup: ProviderSetup): Promise<{ provider: ModelProvider; model: string }> {
  const { provider, model } = parseModelSpec(spec);
  return { provider: await PROVIDER_FACTORIES[provider]!(model, setup), model };
}
