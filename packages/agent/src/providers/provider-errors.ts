import { displayText } from '@airlock/toolkit/display';

/**
 * What a failed model request means for the person running the agent. Both SDKs throw errors of
 * the same shape (`status`, `headers`, `error` body; connection errors without a status), read
 * here by shape so one function serves both. Every message names the status, what the server
 * said, and what to do next.
 */

export interface ErrorContext {
  /** `OpenAI`, `Anthropic`. */
  label: string;
  /** Where the key came from (`resolveApiKey(...).source`). */
  keySource: string;
  model: string;
  /** The URL requests go to. */
  baseURL: string;
  /** How many retries were made before giving up. */
  retries: number;
}

const MAX_SERVER_TEXT = 400;
/** Error types a server reports inside a stream that say "try again", not "your request is wrong". */
const TRANSIENT_TYPES = new Set(['overloaded_error', 'api_error', 'rate_limit_error', 'server_error', 'timeout_error']);

/** The HTTP status of an SDK error, or undefined (connection failures, errors inside a stream). */
export function httpStatusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

/** The response headers of an SDK error, when there was a response. */
export function headersOf(error: unknown): Headers | undefined {
  const headers = (error as { headers?: unknown } | null)?.headers;
  return headers instanceof Headers ? headers : undefined;
}

/** Socket-level failures: the connection was refused, reset or cut, with or without a response started. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** No complete response: refused, reset, cut mid-body, DNS, TLS, timeout. */
export function isConnectionError(error: unknown): boolean {
  if (httpStatusOf(error) !== undefined) return false;
  const name = (error as { constructor?: { name?: string } } | null)?.constructor?.name ?? '';
  if (/Connection/.test(name)) return true;
  return causes(error).some((e) => (typeof e.code === 'string' && SOCKET_CODES.has(e.code)) || e.message === 'terminated');
}

function causes(error: unknown): { code?: unknown; message?: unknown }[] {
  const chain: { code?: unknown; message?: unknown }[] = [];
  for (let current = error, depth = 0; current !== null && typeof current === 'object' && depth < 5; depth++) {
    chain.push(current as { code?: unknown; message?: unknown });
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

/** The error type a server put in an error body (`overloaded_error`, `invalid_request_error`, …). */
export function errorTypeOf(error: unknown): string | undefined {
  const body = (error as { error?: unknown } | null)?.error as { type?: unknown; error?: { type?: unknown } } | undefined;
  const type = body?.error?.type ?? body?.type ?? (error as { type?: unknown } | null)?.type;
  return typeof type === 'string' ? type : undefined;
}

/**
 * Worth another attempt: a retryable status (429, 5xx, 408), no response at all, or a transient
 * error reported inside the stream before anything was streamed.
 */
export function isTransient(error: unknown, isRetryableStatus: (status: number) => boolean): boolean {
  const status = httpStatusOf(error);
  if (status !== undefined) return isRetryableStatus(status);
  if (isConnectionError(error)) return true;
  const type = errorTypeOf(error);
  return type !== undefined && TRANSIENT_TYPES.has(type);
}

/**
 * A message for the turn's `errorMessage`.
 *
 * @example
 * describeProviderError(err401, ctx);
 * // 'OpenAI refused the API key (401: Incorrect API key provided). Check the OPENAI_API_KEY environment variable.'
 */
export function describeProviderError(error: unknown, ctx: ErrorContext): string {
  const status = httpStatusOf(error);
  const said = serverText(error);
  const detail = status !== undefined ? `${status}${said !== '' ? `: ${said}` : ''}` : said;
  const after = ctx.retries > 0 ? ` after ${ctx.retries} ${ctx.retries === 1 ? 'retry' : 'retries'}` : '';
  switch (true) {
    case status === 401:
      return `${ctx.label} refused the API key (${detail}). Check ${ctx.keySource}.`;
    case status === 403:
      return `${ctx.label} denied access (${detail}). The key from ${ctx.keySource} may not have access to model "${ctx.model}"; check the key's permissions and the model name.`;
    case status === 404:
      return `${ctx.label} found no such model or endpoint (${detail}). Check the model name "${ctx.model}" and the base URL ${ctx.baseURL}.`;
    case status === 413:
      return `${ctx.label} said the request is too large (${detail}). The conversation no longer fits; start a new session or send less (large tool outputs, images).`;
    case status === 429:
      return `${ctx.label} is rate-limiting requests (${detail})${after}. Wait and try again, or raise retry.maxRetries.`;
    case status !== undefined && status >= 500:
      return `${ctx.label} had a server error (${detail})${after}. The service may be down or overloaded; try again later.`;
    case status !== undefined && status >= 400:
      return `${ctx.label} rejected the request (${detail}). Check the model name "${ctx.model}" and the request options (max tokens, temperature) for this model.`;
    case status !== undefined:
      return `${ctx.label} answered with HTTP ${detail}.`;
    case isConnectionError(error):
      return `The connection to ${ctx.label} at ${ctx.baseURL} failed (${connectionCause(error)})${after}. Check that the server is running and the base URL is right.`;
    case errorTypeOf(error) !== undefined:
      return `${ctx.label} reported an error mid-stream (${detail})${after}. Try again; if it repeats, the service may be degraded.`;
    default:
      return `${ctx.label} request failed: ${detail !== '' ? detail : displayText(String(error))}.`;
  }
}

function serverText(error: unknown): string {
  const body = (error as { error?: unknown } | null)?.error as { message?: unknown; error?: { message?: unknown; type?: unknown }; type?: unknown } | undefined;
  const message = body?.error?.message ?? body?.message;
  const type = body?.error?.type ?? body?.type;
  let text: string;
  if (typeof message === 'string') text = typeof type === 'string' ? `${type}: ${message}` : message;
  else text = (error as Error | null)?.message?.replace(/^\d{3}\s*/, '') ?? '';
  // A server's words reach a terminal: controls and invisible characters are shown escaped, never interpreted.
  return displayText(text.replace(/\s+/g, ' ').trim(), { maxChars: MAX_SERVER_TEXT });
}

function connectionCause(error: unknown): string {
  const chain = causes(error);
  const code = chain.find((e) => typeof e.code === 'string')?.code as string | undefined;
  if (code !== undefined) return code;
  const said = chain.map((e) => e.message).filter((m): m is string => typeof m === 'string' && m !== '').at(-1);
  return displayText(said ?? 'no response', { maxChars: MAX_SERVER_TEXT });
}
