/**
 * When and how long to wait before asking a model again. Both providers use this one policy and
 * turn their SDK's own retries off (`maxRetries: 0`): the behaviour is then the same for OpenAI and
 * Anthropic, configurable in one place, and a server's `retry-after` that is longer than we are
 * willing to wait ends the turn with a message saying so instead of being silently replaced by a
 * shorter guess (which the SDKs do past 60 s).
 */

export interface RetryOptions {
  /** Retries after the first attempt (0 = never retry). Default 3. */
  maxRetries?: number;
  /** First backoff when the server gives no `retry-after`; doubles each retry. Default 500 ms. */
  baseDelayMs?: number;
  /** Cap for the computed backoff. Default 8000 ms. */
  maxDelayMs?: number;
  /** The longest `retry-after` honoured; a longer one ends the turn. Default 60000 ms. */
  maxRetryAfterMs?: number;
}

export const DEFAULT_RETRY: Required<RetryOptions> = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };

/** A retry policy with every field set and checked. */
export function retryPolicy(options: RetryOptions = {}): Required<RetryOptions> {
  const policy = { ...DEFAULT_RETRY, ...definedOnly(options) };
  for (const [field, value] of Object.entries(policy)) {
    if (!Number.isFinite(value) || value < 0) {
      throw new TypeError(`retry.${field} must be a number >= 0, got ${String(value)}`);
    }
  }
  return policy;
}

/**
 * Is this HTTP status worth asking again? 408 (request timeout), 429 (rate limit) and every 5xx
 * (529 is Anthropic's "overloaded"). Everything else is the request's fault and would fail again.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * How long the server asked us to wait, in milliseconds, or undefined when it did not say (or
 * said something unreadable). `retry-after-ms` wins over `retry-after`; `retry-after` is either
 * seconds or an HTTP date.
 *
 * @example
 * retryAfterMs(new Headers({ 'retry-after': '2' }));                          // 2000
 * retryAfterMs(new Headers({ 'retry-after-ms': '150' }));                     // 150
 * retryAfterMs(new Headers({ 'retry-after': 'Wed, 02 Dec 2026 01:00:05 GMT' }), Date.parse('Wed, 02 Dec 2026 01:00:00 GMT')); // 5000
 */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  if (headers === undefined) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = headers.get('retry-after');
  if (after === null || after.trim() === '') return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(after);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/**
 * The wait before retry number `retry` (0-based): the server's `retry-after` when it gave one,
 * else exponential backoff with up to 25 % jitter (so many clients do not return at once).
 * `giveUp` is set when the server asked for longer than `maxRetryAfterMs`.
 */
export function retryDelay(
  retry: number,
  policy: Required<RetryOptions>,
  headers?: Headers,
  random: () => number = Math.random,
): { delayMs: number; fromServer: boolean; giveUp?: string } {
  const asked = retryAfterMs(headers);
  if (asked !== undefined) {
    if (asked > policy.maxRetryAfterMs) {
      return {
        delayMs: asked,
        fromServer: true,
        giveUp: `The server asked to wait ${formatSeconds(asked)} before retrying, longer than retry.maxRetryAfterMs (${formatSeconds(policy.maxRetryAfterMs)}); try again later.`,
      };
    }
    return { delayMs: asked, fromServer: true };
  }
  const backoff = Math.min(policy.baseDelayMs * 2 ** retry, policy.maxDelayMs);
  return { delayMs: Math.round(backoff * (1 - random() * 0.25)), fromServer: false };
}

/** Wait `ms`, or reject as soon as `signal` fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function formatSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

function definedOnly(options: RetryOptions): RetryOptions {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
}
