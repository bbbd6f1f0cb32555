import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local model server for tests: node:http on 127.0.0.1, no mocking library. It answers each
 * request with the next scripted reply, speaking OpenAI's or Anthropic's SSE streaming format
 * (build the pieces with the helpers below), and records what it received, so a test can assert
 * on the bytes a provider sent and on what the server saw (how many requests, when, a closed
 * socket). Point a provider's `baseUrl` at `server.baseURL` (OpenAI: add `/v1`).
 *
 * @example
 * const server = await startModelServer([{ sse: openaiSSE(openaiTextChunks('Hello')) }]);
 * const provider = createOpenAIProvider({ baseUrl: `${server.baseURL}/v1`, apiKey: 'test' });
 * …
 * await server.close();
 */

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The request body, parsed as JSON (or the raw text when it was not JSON). */
  body: any;
  /** `Date.now()` when the request arrived. */
  at: number;
  /** Resolves when the connection of this request closed (the client hung up, or the reply ended). */
  closed: Promise<void>;
  /** True when the client closed the connection before the reply was complete. */
  clientHungUp: boolean;
}

export type Reply =
  /** A plain JSON answer (an error, say). */
  | { status: number; headers?: Record<string, string>; json?: unknown }
  /**
   * A 200 SSE stream: each piece is written separately (with `gapMs` between them, default 5), so
   * the client receives them in separate reads. `hold` keeps the connection open after the last
   * piece, until the client hangs up (for abort tests); `cut` destroys the socket after the last
   * piece, as a dropped connection does.
   */
  | { sse: (string | Buffer)[]; headers?: Record<string, string>; gapMs?: number; hold?: boolean; cut?: boolean };

export interface ModelServer {
  /** `http://127.0.0.1:PORT` */
  baseURL: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Start a server that answers requests with `replies` in order (or computes each reply). */
export async function startModelServer(replies: Reply[] | ((request: RecordedRequest, n: number) => Reply)): Promise<ModelServer> {
  const requests: RecordedRequest[] = [];
  const responses = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    responses.add(res);
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (piece: string) => (text += piece));
    req.on('end', () => {
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // keep the raw text
      }
      let done = false;
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        at: Date.now(),
        closed: new Promise<void>((resolve) => res.once('close', () => resolve())),
        clientHungUp: false,
      };
      res.once('close', () => {
        responses.delete(res);
        if (!done) recorded.clientHungUp = true;
      });
      requests.push(recorded);
      const reply = typeof replies === 'function' ? replies(recorded, requests.length - 1) : replies[requests.length - 1];
      void answer(res, reply).then((complete) => (done = complete));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      for (const res of responses) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Write one reply; resolves true when it was written completely. */
async function answer(res: ServerResponse, reply: Reply | undefined): Promise<boolean> {
  if (reply === undefined) {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { type: 'test_error', message: 'the test server has no reply scripted for this request' } }));
    return true;
  }
  if ('status' in reply) {
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
    res.end(JSON.stringify(reply.json ?? { error: { type: 'error', message: `status ${reply.status}` } }));
    return true;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
  res.flushHeaders();
  for (const piece of reply.sse) {
    if (res.destroyed) return false;
    res.write(piece);
    await new Promise((resolve) => setTimeout(resolve, reply.gapMs ?? 5));
  }
  if (reply.hold) return false;
  if (reply.cut) {
    res.socket?.destroy();
    return true;
  }
  res.end();
  return true;
}

// ---------------------------------------------------------------------------------------------
// OpenAI chat completions streaming format

/** SSE pieces for chat completion chunks, ending with `[DONE]`. */
export function openaiSSE(chunks: object[], { done = true } = {}): string[] {
  return [...chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`), ...(done ? ['data: [DONE]\n\n'] : [])];
}

/** One chat completion chunk with this delta (and finish reason). */
export function openaiChunk(delta: object, finishReason: string | null = null, extra: object = {}): object {
  return { id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1, model: 'test-model', choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra };
}

/** The final usage chunk (`stream_options.include_usage`). */
export function openaiUsageChunk(usage: { prompt: number; completion: number; cached?: number }): object {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'test-model',
    choices: [],
    usage: {
      prompt_tokens: usage.prompt,
      completion_tokens: usage.completion,
      total_tokens: usage.prompt + usage.completion,
      prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
    },
  };
}

/** Chunks for a text answer streamed in `pieces`. */
export function openaiTextChunks(pieces: string[], finishReason = 'stop'): object[] {
  return [openaiChunk({ role: 'assistant', content: '' }), ...pieces.map((p) => openaiChunk({ content: p })), openaiChunk({}, finishReason)];
}

// ---------------------------------------------------------------------------------------------
// Anthropic messages streaming format

/** SSE pieces for Anthropic stream events (each `event: <type>`). */
export function anthropicSSE(events: object[]): string[] {
  return events.map((e) => `event: ${(e as { type: string }).type}\ndata: ${JSON.stringify(e)}\n\n`);
}

export type AnthropicBlockScript =
  | { type: 'text'; pieces: string[] }
  | { type: 'thinking'; pieces: string[]; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; json: string[] };

/** The events of a whole message: `message_start`, each block, `message_delta`, `message_stop`. */
export function anthropicMessageEvents(
  blocks: AnthropicBlockScript[],
  stopReason: string | null,
  usage: { input: number; output: number; cacheRead?: number; cacheWrite?: number } = { input: 10, output: 5 },
): object[] {
  const events: object[] = [
    {
      type: 'message_start',
      message: {
        id: 'msg_test',
        type: 'message',
        role: 'assistant',
        model: 'claude-test',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: usage.input, output_tokens: 1, cache_read_input_tokens: usage.cacheRead ?? 0, cache_creation_input_tokens: usage.cacheWrite ?? 0 },
      },
    },
  ];
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const text of block.pieces) events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
    } else if (block.type === 'thinking') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      for (const thinking of block.pieces) events.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking } });
      events.push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } });
    } else if (block.type === 'redacted_thinking') {
      events.push({ type: 'content_block_start', index, content_block: { type: 'redacted_thinking', data: block.data } });
    } else {
      events.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      for (const partial_json of block.json) events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } });
    }
    events.push({ type: 'content_block_stop', index });
  });
  if (stopReason !== null) {
    events.push({ type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output } });
    events.push({ type: 'message_stop' });
  }
  return events;
}
