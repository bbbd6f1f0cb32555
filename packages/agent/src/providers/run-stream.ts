import type { ModelStreamEvent } from '../provider.js';
import type { AssistantBuilder } from './assistant-builder.js';
import { describeProviderError, headersOf, isConnectionError, isTransient, type ErrorContext } from './provider-errors.js';
import { isRetryableStatus, retryDelay, sleep, type RetryOptions } from './retry.js';

/**
 * The part of a streamed model request every provider shares: the attempt loop with retries,
 * abort, and the guarantee that the stream ends with exactly one `done` or `error` event and
 * never throws. A provider supplies how to open its stream and how to read one chunk.
 */
export interface StreamDriver<Chunk> {
  builder: AssistantBuilder;
  /** Send the request; resolves once the response headers arrived (the SDK's `create`). */
  open(signal: AbortSignal): Promise<AsyncIterable<Chunk>>;
  /** Feed one chunk to the builder; returns the events it made. */
  read(chunk: Chunk): Iterable<ModelStreamEvent | undefined>;
  /** Called when the stream ended: finish open tool calls and the like. */
  end?(): Iterable<ModelStreamEvent | undefined>;
  retry: Required<RetryOptions>;
  errorContext: Omit<ErrorContext, 'retries'>;
  /**
   * Give up on an attempt when the response started but no chunk arrived for this long (a stalled
   * server); a stall before any output is retried like a dropped connection. 0 = wait forever.
   * Default DEFAULT_IDLE_TIMEOUT_MS. Time the consumer spends on an event does not count.
   */
  idleTimeoutMs?: number;
}

/** Five minutes: reasoning models can think silently for minutes before their first token. */
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

/**
 * Run one model request as a stream of events. Retries a transient failure (429, 5xx, no
 * connection, a transient error inside the stream) only while nothing has been streamed to the
 * consumer, so a consumer never sees text twice. The last event is `done` (`stop`, `toolUse`,
 * `length`) or `error` (`error`, `aborted`).
 *
 * When the consumer stops reading early, or `signal` fires, the HTTP request is cancelled.
 */
export async function* runModelStream<Chunk>(driver: StreamDriver<Chunk>, signal?: AbortSignal): AsyncGenerator<ModelStreamEvent> {
  const { builder } = driver;
  const idleMs = driver.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const own = new AbortController();
  const forward = (): void => own.abort(signal?.reason);
  if (signal?.aborted) forward();
  else signal?.addEventListener('abort', forward, { once: true });
  try {
    yield builder.start();
    let retries = 0;
    for (;;) {
      if (own.signal.aborted) return yield ended(builder, 'aborted');
      let failure: unknown;
      // One controller per attempt, so a stalled attempt can be cut without ending the whole stream.
      const attempt = new AbortController();
      const cut = (): void => attempt.abort(own.signal.reason);
      own.signal.addEventListener('abort', cut, { once: true });
      const idle = new IdleTimer(idleMs, () => attempt.abort());
      try {
        const stream = await driver.open(attempt.signal);
        idle.arm();
        for await (const chunk of stream) {
          idle.pause();
          for (const event of driver.read(chunk)) if (event !== undefined) yield event;
          if (own.signal.aborted) break;
          idle.arm();
        }
      } catch (error) {
        failure = error;
      } finally {
        idle.pause();
        own.signal.removeEventListener('abort', cut);
      }
      if (idle.fired && !own.signal.aborted) failure = new StalledStream(driver.errorContext.label, idleMs);
      if (own.signal.aborted) {
        for (const event of driver.end?.() ?? []) if (event !== undefined) yield event;
        return yield ended(builder, 'aborted');
      }
      // The model said why it stopped before the connection broke: only trailing bookkeeping was lost.
      if (failure !== undefined && builder.stopReason !== undefined && isConnectionError(failure)) failure = undefined;
      if (failure === undefined) {
        for (const event of driver.end?.() ?? []) if (event !== undefined) yield event;
        if (builder.stopReason === undefined) {
          return yield ended(builder, 'error', `${driver.errorContext.label} ended the stream before the model finished (no stop reason); the connection may have dropped. Try again.`);
        }
        const reason = builder.stopReason;
        const message = builder.finish(reason, reason === 'error' ? builder.stopError : undefined);
        return yield { type: reason === 'error' ? 'error' : 'done', message };
      }
      const context = { ...driver.errorContext, retries };
      const transient = failure instanceof StalledStream || isTransient(failure, isRetryableStatus);
      if (builder.hasContent || retries >= driver.retry.maxRetries || !transient) {
        for (const event of driver.end?.() ?? []) if (event !== undefined) yield event;
        const after = retries > 0 ? ` after ${retries} ${retries === 1 ? 'retry' : 'retries'}` : '';
        return yield ended(builder, 'error', failure instanceof StalledStream ? `${failure.message}${after}. ${STALL_ADVICE}` : describeProviderError(failure, context));
      }
      const wait = retryDelay(retries, driver.retry, headersOf(failure));
      if (wait.giveUp !== undefined) return yield ended(builder, 'error', `${describeProviderError(failure, context)} ${wait.giveUp}`);
      try {
        await sleep(wait.delayMs, own.signal);
      } catch {
        return yield ended(builder, 'aborted');
      }
      retries++;
      builder.reset();
    }
  } finally {
    signal?.removeEventListener('abort', forward);
    // Cancels the HTTP request when the consumer stopped early (a no-op after a normal end).
    own.abort();
  }
}

function ended(builder: AssistantBuilder, reason: 'error' | 'aborted', errorMessage?: string): ModelStreamEvent {
  const message = builder.finish(reason, errorMessage ?? (reason === 'aborted' ? 'The request was aborted.' : undefined));
  return { type: 'error', message };
}

/**
 * The stream of a request that could not even be built (tool names that collide for this
 * provider, a malformed transcript): `start`, then `error` saying why. Keeps `stream()` from throwing.
 */
export async function* failedStream(builder: AssistantBuilder, label: string, error: unknown): AsyncGenerator<ModelStreamEvent> {
  yield builder.start();
  const why = error instanceof Error ? error.message : String(error);
  yield ended(builder, 'error', `Could not build the ${label} request: ${why}`);
}

const STALL_ADVICE = 'The server may be overloaded or stuck; try again, or raise idleTimeoutMs for a model that thinks silently for long.';

/** An attempt whose response stopped arriving. */
class StalledStream extends Error {
  constructor(label: string, ms: number) {
    super(`${label} sent nothing for ${Math.round(ms / 100) / 10} s mid-response (idleTimeoutMs)`);
  }
}

/** Fires once when armed for `ms` without a pause; `ms` 0 never fires. */
class IdleTimer {
  fired = false;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly ms: number,
    private readonly onIdle: () => void,
  ) {}

  arm(): void {
    this.pause();
    if (this.ms <= 0) return;
    this.#timer = setTimeout(() => {
      this.fired = true;
      this.onIdle();
    }, this.ms);
  }

  pause(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
