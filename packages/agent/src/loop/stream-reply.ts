import type { AssistantMessage } from '../messages.js';
import type { ModelProvider, ModelRequest, ModelStreamEvent } from '../provider.js';

export interface ReplyHooks {
  start(message: AssistantMessage): void;
  update(message: AssistantMessage, delta: ModelStreamEvent): void;
}

const ABORTED = Symbol('aborted');

/** The run's signal, listened to once per run (not once per model request). */
export interface AbortWatch {
  readonly signal: AbortSignal | undefined;
  /** Resolves the step in flight; set by streamReply while it waits. */
  wake: ((value: typeof ABORTED) => void) | undefined;
  dispose(): void;
}

export function watchAbort(signal: AbortSignal | undefined): AbortWatch {
  const watch: AbortWatch = { signal, wake: undefined, dispose: () => {} };
  if (signal === undefined) return watch;
  const onAbort = (): void => watch.wake?.(ABORTED);
  signal.addEventListener('abort', onAbort, { once: true });
  watch.dispose = () => signal.removeEventListener('abort', onAbort);
  return watch;
}

/**
 * Read one provider stream into the assistant message. Never throws: a provider that throws, or
 * ends without its final event, yields an `error` message saying so; when the signal fires the
 * stream is left at once (a provider that ignores its signal cannot hold the run) and the message
 * so far ends with `stopReason: 'aborted'`.
 */
export async function streamReply(provider: ModelProvider, request: ModelRequest, watch: AbortWatch, hooks: ReplyHooks): Promise<AssistantMessage> {
  const signal = watch.signal;
  let partial: AssistantMessage | undefined;
  let final: AssistantMessage | undefined;
  let started = false;
  let iterator: AsyncIterator<ModelStreamEvent> | undefined;
  // The step in flight resolves with ABORTED when the signal fires, whatever the provider does
  // (cheaper than a Promise.race per event: one promise, no array).
  const next = (it: AsyncIterator<ModelStreamEvent>): Promise<IteratorResult<ModelStreamEvent> | typeof ABORTED> | IteratorResult<ModelStreamEvent> | typeof ABORTED => {
    if (signal === undefined) return it.next();
    if (signal.aborted) return ABORTED;
    return new Promise((resolve, reject) => {
      watch.wake = resolve;
      it.next().then(resolve, reject);
    });
  };
  try {
    iterator = provider.stream(request, signal)[Symbol.asyncIterator]();
    for (;;) {
      const step = await next(iterator);
      if (step === ABORTED) {
        final = abortedReply(provider, request, partial);
        break;
      }
      if (step.done === true) break;
      const event = step.value;
      if (!started) {
        started = true;
        hooks.start(event.message);
      }
      if (event.type === 'done' || event.type === 'error') {
        final = event.message;
        break;
      }
      partial = event.message;
      if (event.type !== 'start') hooks.update(event.message, event);
    }
  } catch (error) {
    final = failedReply(provider, request, partial, `The model provider "${provider.id}" failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    watch.wake = undefined;
  }
  // Let the provider close its request; what it does then cannot change this reply.
  if (iterator?.return !== undefined) iterator.return().then(undefined, () => {});
  if (final === undefined) {
    final = signal?.aborted
      ? abortedReply(provider, request, partial)
      : failedReply(provider, request, partial, `The model provider "${provider.id}" ended its stream without a final message.`);
  }
  if (!started) hooks.start(final);
  return final;
}

function base(provider: ModelProvider, request: ModelRequest, partial: AssistantMessage | undefined): AssistantMessage {
  return {
    role: 'assistant',
    content: partial === undefined ? [] : [...partial.content],
    stopReason: 'stop',
    provider: partial?.provider ?? provider.id,
    model: partial?.model ?? request.model,
    ...(partial?.usage === undefined ? {} : { usage: partial.usage }),
    timestamp: partial?.timestamp ?? Date.now(),
  };
}

function abortedReply(provider: ModelProvider, request: ModelRequest, partial: AssistantMessage | undefined): AssistantMessage {
  return { ...base(provider, request, partial), stopReason: 'aborted', errorMessage: 'The run was aborted while the model was answering.' };
}

function failedReply(provider: ModelProvider, request: ModelRequest, partial: AssistantMessage | undefined, errorMessage: string): AssistantMessage {
  return { ...base(provider, request, partial), stopReason: 'error', errorMessage };
}
