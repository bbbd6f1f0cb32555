import type { ProviderSetup } from '@airlock/agent';
import type { LoadedSettings, ProviderSettings } from '@airlock/host';

/**
 * What the settings' `providers.<name>` section adds to a provider's setup: a key, the variable
 * to read it from, a base URL. Only the user's file can have set them (the host ignores a
 * project's, trusted or not), so a key given here is named by that file in messages.
 * `--base-url` wins over `baseUrl`.
 *
 * @example
 * resolveModel('openai:gpt-5-mini', { cwd, env, ...providerSettings('openai', host.settings, flags.baseUrl) });
 */
export function providerSettings(provider: string, loaded: Pick<LoadedSettings, 'settings' | 'userFile'>, baseUrlFlag: string | undefined): Omit<ProviderSetup, 'cwd' | 'env'> {
  const all = loaded.settings.providers as Record<string, ProviderSettings | undefined> | undefined;
  const section = all !== undefined && Object.hasOwn(all, provider) ? all[provider] : undefined;
  const baseUrl = baseUrlFlag ?? section?.baseUrl;
  return {
    ...(baseUrl === undefined ? {} : { baseUrl }),
    ...(section?.apiKey === undefined ? {} : { apiKey: section.apiKey, apiKeySource: `providers.${provider}.apiKey in ${loaded.userFile}` }),
    ...(section?.apiKeyEnv === undefined ? {} : { apiKeyEnv: section.apiKeyEnv }),
  };
}
