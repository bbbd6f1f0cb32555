import { providerToolNames, type ProviderId } from '@airlock/toolkit';
import type { ModelRequest, ModelStreamEvent } from '../provider.js';
import { AssistantBuilder } from './assistant-builder.js';
import type { Connection } from './connection.js';
import { failedStream, runModelStream } from './run-stream.js';

/**
 * The request-to-stream path both SDK-backed providers share: map the tool names, build the body
 * (a failure there becomes an `error` event, never a throw), open the SDK's stream and feed each
 * chunk to the provider's reader. Each provider keeps only what is its own: the body and the reader.
 */
export interface SdkStreamSpec<Body, Chunk> {
  /** How the provider reaches its API: its id, label, key, URL and retry policy. */
  connection: Connection;
  /** The wire format whose tool-name rules apply. */
  wire: Extract<ProviderId, 'openai' | 'anthropic'>;
  idleTimeoutMs: number | undefined;
  body(request: ModelRequest): Body;
  open(body: Body, signal: AbortSignal): Promise<AsyncIterable<Chunk>>;
  reader(builder: AssistantBuilder): { read(chunk: Chunk): Iterable<ModelStreamEvent | undefined> };
}

/**
 * One request through an SDK, as provider events.
 *
 * @example
 * stream: (request, signal) => sdkStream({ connection, wire: 'openai', idleTimeoutMs, body, open, reader: (b) => new ChunkReader(b) }, request, signal)
 */
export function sdkStream<Body, Chunk>(spec: SdkStreamSpec<Body, Chunk>, request: ModelRequest, signal?: AbortSignal): AsyncIterable<ModelStreamEvent> {
  const c = spec.connection;
  let names: ReadonlyMap<string, string>;
  let body: Body;
  try {
    names = providerToolNames(request.tools, spec.wire);
    body = spec.body(request);
  } catch (error) {
    return failedStream(new AssistantBuilder(c.id, request.model, new Map()), c.label, error);
  }
  const builder = new AssistantBuilder(c.id, request.model, names);
  const reader = spec.reader(builder);
  return runModelStream<Chunk>(
    {
      builder,
      open: (s) => spec.open(body, s),
      read: (chunk) => reader.read(chunk),
      end: () => builder.endOpenToolCalls(),
      retry: c.retry,
      ...(spec.idleTimeoutMs !== undefined ? { idleTimeoutMs: spec.idleTimeoutMs } : {}),
      errorContext: { label: c.label, keySource: c.key.source, model: request.model, baseURL: c.baseURL },
    },
    signal,
  );
}
