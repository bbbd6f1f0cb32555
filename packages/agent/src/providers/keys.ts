/**
 * Where a provider's API key and base URL come from. An explicit option (the CLI passes settings)
 * wins over the environment. A key is required for the vendor's own endpoint; when a base URL is
 * given (Ollama, vLLM, llama.cpp, LM Studio, a proxy) the key is optional, because local servers
 * take none, and the request then carries no credentials at all. Whatever key is used is sent to
 * the base URL's host: pointing a provider at a server you do not trust hands it your key.
 */

/** A provider's setup is unusable (no key, a bad base URL). Thrown when the provider is created. */
export class ProviderSetupError extends Error {
  override readonly name = 'ProviderSetupError';
}

export interface KeySpec {
  /** `OpenAI`, `Anthropic`: used in messages. */
  label: string;
  /** The environment variable read when no key is passed. */
  envVar: string;
  /** A key passed in options (settings). */
  apiKey?: string | undefined;
  /** Where a passed key came from, for messages ("settings providers.openai.apiKey"). */
  apiKeySource?: string | undefined;
  /** A base URL given in options or the environment; makes the key optional. */
  baseURL?: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
}

export interface ResolvedKey {
  /** The key, or undefined for a keyless local server. */
  key: string | undefined;
  /** Where to look when the key is refused: "the OPENAI_API_KEY environment variable", … */
  source: string;
}

/**
 * The key for a provider, or a ProviderSetupError naming the variable to set.
 *
 * @example
 * resolveApiKey({ label: 'OpenAI', envVar: 'OPENAI_API_KEY', env: process.env });
 * // { key: 'sk-…', source: 'the OPENAI_API_KEY environment variable' }
 */
export function resolveApiKey(spec: KeySpec): ResolvedKey {
  const passed = spec.apiKey?.trim();
  if (passed !== undefined && passed !== '') {
    return { key: passed, source: spec.apiKeySource ?? 'the apiKey passed in the provider options' };
  }
  const fromEnv = spec.env[spec.envVar]?.trim();
  const envSource = `the ${spec.envVar} environment variable`;
  if (fromEnv !== undefined && fromEnv !== '') return { key: fromEnv, source: envSource };
  if (spec.baseURL !== undefined) return { key: undefined, source: `${envSource} (none is set, so no key was sent to ${spec.baseURL})` };
  throw new ProviderSetupError(
    `No ${spec.label} API key: set ${spec.envVar}, or pass apiKey in the provider options. ` +
      `(A local server that needs no key is used by giving its base URL instead: baseUrl, or --base-url.)`,
  );
}

/**
 * The base URL from options or the environment, checked; undefined means the vendor's default.
 *
 * @example
 * resolveBaseURL('http://127.0.0.1:11434/v1', 'OPENAI_BASE_URL', {}); // 'http://127.0.0.1:11434/v1'
 */
export function resolveBaseURL(given: string | undefined, envVar: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const raw = (given ?? env[envVar])?.trim();
  if (raw === undefined || raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ProviderSetupError(`The base URL ${JSON.stringify(raw)} is not a URL; give a full http(s) URL such as http://127.0.0.1:11434/v1 (from ${given !== undefined ? 'the options' : envVar}).`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ProviderSetupError(`The base URL ${JSON.stringify(raw)} must start with http:// or https:// (from ${given !== undefined ? 'the options' : envVar}).`);
  }
  return raw.replace(/\/+$/, '');
}
