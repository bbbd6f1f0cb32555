import { resolveApiKey, resolveBaseURL, type ResolvedKey } from './keys.js';
import { retryPolicy, type RetryOptions } from './retry.js';

/** The options every SDK-backed provider takes for reaching its API. */
export interface ConnectionOptions {
  /** The key; default: the environment variable `apiKeyEnv`. */
  apiKey?: string;
  /** Where `apiKey` came from, named when the server refuses it (e.g. "settings providers.openai.apiKey"). */
  apiKeySource?: string;
  /** The variable to read the key from (default: the vendor's own). */
  apiKeyEnv?: string;
  /**
   * Where requests go; default: the vendor's `*_BASE_URL` variable, else the vendor. With a base
   * URL the key is optional. Spelled as settings spell it (`providers.openai.baseUrl`).
   */
  baseUrl?: string;
  /** The environment to read variables from. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  retry?: RetryOptions;
  /** How long to wait for the response to start, per attempt. Default 10 minutes (the SDKs'). */
  timeoutMs?: number;
  /** Extra request headers (OpenRouter's `HTTP-Referer`, a proxy's tenant header). */
  headers?: Record<string, string>;
  /** The provider id in messages and the registry (default: the vendor's). */
  id?: string;
}

/** Every option of ConnectionOptions: a provider refuses any other name (see refuseUnknownOptions). */
export const CONNECTION_OPTIONS = ['apiKey', 'apiKeySource', 'apiKeyEnv', 'baseUrl', 'env', 'retry', 'timeoutMs', 'headers', 'id'] as const satisfies readonly (keyof ConnectionOptions)[];

/** What differs between vendors in reaching them. */
export interface Vendor {
  id: string;
  /** "OpenAI", "Anthropic": for messages. */
  label: string;
  keyEnv: string;
  baseEnv: string;
  defaultBaseURL: string;
  /** The headers that carry the key, removed for a keyless server. */
  keyHeaders: readonly string[];
}

export interface Connection {
  id: string;
  /** The base URL given, or undefined for the vendor's own endpoint. */
  given: string | undefined;
  /** Where requests go. */
  baseURL: string;
  /** "OpenAI" or "OpenAI-compatible server": who answers, for messages. */
  label: string;
  key: ResolvedKey;
  retry: Required<RetryOptions>;
  /** The SDK client's options: always an explicit key and URL (so no SDK searches for credentials of its own), no SDK retries (ours apply). */
  client: { apiKey: string; baseURL: string; maxRetries: 0; timeout?: number; defaultHeaders: Record<string, string | null> };
}

/**
 * Resolve how a provider reaches its API. Throws ProviderSetupError when no key is available for
 * the vendor's own endpoint (naming the variable) or the base URL is not a URL.
 *
 * @example
 * const c = resolveConnection({ baseUrl: 'http://127.0.0.1:11434/v1' }, OPENAI); // keyless: no Authorization header
 */
export function resolveConnection(options: ConnectionOptions, vendor: Vendor): Connection {
  const env = options.env ?? process.env;
  const given = resolveBaseURL(options.baseUrl, vendor.baseEnv, env);
  const key = resolveApiKey({ label: vendor.label, envVar: options.apiKeyEnv ?? vendor.keyEnv, apiKey: options.apiKey, apiKeySource: options.apiKeySource, baseURL: given, env });
  const baseURL = given ?? vendor.defaultBaseURL;
  const dropKey = key.key === undefined ? Object.fromEntries(vendor.keyHeaders.map((h) => [h, null])) : {};
  return {
    id: options.id ?? vendor.id,
    given,
    baseURL,
    label: given === undefined ? vendor.label : `${vendor.label}-compatible server`,
    key,
    retry: retryPolicy(options.retry),
    client: {
      // The SDK needs some key; for a keyless server the headers that carry it are removed.
      apiKey: key.key ?? 'no-key',
      baseURL,
      maxRetries: 0,
      ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
      defaultHeaders: { ...options.headers, ...dropKey },
    },
  };
}
