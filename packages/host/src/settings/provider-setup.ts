import type { LoadedSettings } from './layers.js';
import type { ProviderSettings } from './schema.js';

/** What settings add to a model provider's setup (the agent's `ProviderSetup` without cwd and env). */
export interface ProviderSetupFromSettings {
  baseUrl?: string;
  apiKey?: string;
  apiKeySource?: string;
  apiKeyEnv?: string;
}

/**
 * What the settings' `providers.<name>` section adds to a provider's setup: a key, the variable
 * to read it from, a base URL. Only the user's file can have set them (the host ignores a
 * project's, trusted or not), so a key given here is named by that file in messages.
 * A base URL given by the caller (`--base-url`, the SDK's `baseUrl`) wins over `baseUrl`. The
 * CLI and the SDK both use this, so a model is set up the same way through either door.
 *
 * @example
 * resolveModel('openai:gpt-5-mini', { cwd, env, ...providerSettings('openai', host.settings, flags.baseUrl) });
 */
export function providerSettings(provider: string, loaded: Pick<LoadedSettings, 'settings' | 'userFile'>, baseUrlFlag: string | undefined): ProviderSetupFromSettings {
  const all = loaded.settings.providers as Record<string, ProviderSettings | undefined> | undefined;
  const section = all !== undefined && Object.hasOwn(all, provider) ? all[provider] : undefined;
  const baseUrl = baseUrlFlag ?? section?.baseUrl;
  return {
    ...(baseUrl === undefined ? {} : { baseUrl }),
    ...(section?.apiKey === undefined ? {} : { apiKey: section.apiKey, apiKeySource: `providers.${provider}.apiKey in ${loaded.userFile}` }),
    ...(section?.apiKeyEnv === undefined ? {} : { apiKeyEnv: section.apiKeyEnv }),
  };
}
