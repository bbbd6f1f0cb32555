import type { ToolResultMessage } from '@airlock/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicProvider, createOpenAIProvider, ProviderSetupError, toolCallsOf, userMessage, type AssistantMessage, type Message } from '../../src/index.js';
import { openaiChunk, openaiSSE, openaiTextChunks, openaiUsageChunk, startModelServer, type ModelServer, type Reply } from '../support/model-server.js';
import { PNG_1x1, runProvider, testTools } from '../support/provider-run.js';
import { scaledMs } from '@airlock/kernel/testing';

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(replies: Reply[] | ((req: any, n: number) => Reply)): Promise<ModelServer> {
  server = await startModelServer(replies);
  return server;
}

function provider(s: ModelServer, extra: Parameters<typeof createOpenAIProvider>[0] = {}) {
  return createOpenAIProvider({ baseUrl: `${s.baseURL}/v1`, apiKey: 'sk-test', env: {}, retry: { baseDelayMs: 5 }, ...extra });
}

const call = (index: number, fields: { id?: string; name?: string; args?: string }) =>
  openaiChunk({
    tool_calls: [{ index, ...(fields.id ? { id: fields.id, type: 'function' } : {}), function: { ...(fields.name ? { name: fields.name } : {}), ...(fields.args !== undefined ? { arguments: fields.args } : {}) } }],
  });

describe('OpenAI provider: streaming', () => {
  it('streams text into one assistant message, with usage, and sends what the API expects', async () => {
    const s = await serve([{ sse: openaiSSE([...openaiTextChunks(['Hel', 'lo ', 'wörld']), openaiUsageChunk({ prompt: 100, completion: 7, cached: 40 })]) }]);
    const { events, final, last } = await runProvider(provider(s), { messages: [userMessage('hi')], tools: testTools, maxTokens: 300, temperature: 0.2 });

    expect(last.type).toBe('done');
    expect(final).toMatchObject({ role: 'assistant', provider: 'openai', model: 'test-model', stopReason: 'stop', content: [{ type: 'text', text: 'Hello wörld' }] });
    expect(final.usage).toEqual({ input: 60, output: 7, cacheRead: 40, cacheWrite: 0, totalTokens: 107 });
    expect(events.filter((e) => e.type === 'text_delta').map((e) => (e as { delta: string }).delta)).toEqual(['Hel', 'lo ', 'wörld']);
    expect(events[0]!.type).toBe('start');

    const [request] = s.requests;
    expect(request!.url).toBe('/v1/chat/completions');
    expect(request!.headers.authorization).toBe('Bearer sk-test');
    expect(request!.body).toMatchObject({
      model: 'test-model',
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 300, // a custom base URL defaults to the field compatible servers know
      temperature: 0.2,
      messages: [{ role: 'system', content: 'You are a test.' }, { role: 'user', content: 'hi' }],
    });
    expect(request!.body.tools.map((t: any) => t.function.name)).toEqual(['read', 'github_create_issue']);
  });

  it('sends maxTokens in the field asked for, reasoning effort and extra headers', async () => {
    const s = await serve([{ sse: openaiSSE(openaiTextChunks(['ok'])) }]);
    await runProvider(provider(s, { maxTokensField: 'max_completion_tokens', reasoningEffort: 'low', headers: { 'X-Title': 'airlock' } }), { messages: [userMessage('go')], maxTokens: 64 });
    const request = s.requests[0]!;
    expect(request.body).toMatchObject({ max_completion_tokens: 64, reasoning_effort: 'low' });
    expect(request.body).not.toHaveProperty('max_tokens');
    expect(request.body).not.toHaveProperty('tools');
    expect(request.headers['x-title']).toBe('airlock');
  });

  it('joins tool calls split across chunks (mid-string, mid-\\u escape, mid-UTF-8 byte) and maps names back', async () => {
    // The second call's arguments hold "é" as a \u00e9 escape cut in half, and "ü" raw, cut between its two UTF-8 bytes.
    const tail = Buffer.from(`data: ${JSON.stringify(call(1, { args: 'ü"}' }))}\n\n`);
    const cut = tail.indexOf(Buffer.from('ü')) + 1;
    const s = await serve([
      {
        sse: [
          ...openaiSSE([
            openaiChunk({ role: 'assistant', content: 'Reading.' }),
            call(0, { id: 'call_a', name: 'read', args: '' }),
            call(0, { args: '{"pa' }),
            call(0, { args: 'th": "src/ma' }),
            call(0, { args: 'in.ts"}' }),
            call(1, { id: 'call_b', name: 'github_create_issue', args: '{"title": "caf\\u00' }),
            call(1, { args: 'e9 ' }),
          ], { done: false }),
          tail.subarray(0, cut),
          tail.subarray(cut),
          ...openaiSSE([openaiChunk({}, 'tool_calls')]),
        ],
      },
    ]);
    const { events, final } = await runProvider(provider(s), { messages: [userMessage('go')], tools: testTools });

    expect(final.stopReason).toBe('toolUse');
    expect(toolCallsOf(final)).toEqual([
      { type: 'toolCall', id: 'call_a', name: 'read', arguments: { path: 'src/main.ts' } },
      { type: 'toolCall', id: 'call_b', name: 'github:create_issue', arguments: { title: 'café ü' } },
    ]);
    expect(final.content[0]).toEqual({ type: 'text', text: 'Reading.' });
    expect(events.filter((e) => e.type === 'toolcall_start').map((e) => [(e as any).index, (e as any).id, (e as any).name])).toEqual([
      [0, 'call_a', 'read'],
      [1, 'call_b', 'github:create_issue'],
    ]);
    expect(events.filter((e) => e.type === 'toolcall_end').map((e) => (e as any).call.id)).toEqual(['call_a', 'call_b']);
  });

  it('keeps calls apart when a server reuses index 0 for every call, and gives an id to calls that came without one', async () => {
    const s = await serve([
      {
        sse: openaiSSE([
          call(0, { id: 'c1', name: 'read', args: '{"path":"a"}' }),
          call(0, { id: 'c2', name: 'read', args: '{"path":"b"}' }),
          openaiChunk({ tool_calls: [{ function: { name: 'read', arguments: { path: 'c' } } }] }),
          openaiChunk({}, 'stop'), // some servers say stop even when they made calls
        ]),
      },
    ]);
    const { final } = await runProvider(provider(s), { messages: [userMessage('go')], tools: testTools });
    const calls = toolCallsOf(final);
    expect(calls.map((c) => c.arguments)).toEqual([{ path: 'a' }, { path: 'b' }, { path: 'c' }]);
    expect(calls[0]!.id).toBe('c1');
    expect(calls[1]!.id).toBe('c2');
    expect(calls[2]!.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(final.stopReason).toBe('toolUse');
  });

  it('joins the pieces of a call when the server sends no index, and the id and name only once', async () => {
    const s = await serve([
      {
        sse: openaiSSE([
          openaiChunk({ tool_calls: [{ id: 'n1', type: 'function', function: { name: 'read', arguments: '{"pa' } }] }),
          openaiChunk({ tool_calls: [{ function: { arguments: 'th":"x"}' } }] }),
          openaiChunk({ tool_calls: [{ id: 'n2', type: 'function', function: { name: 'read', arguments: '' } }] }),
          openaiChunk({ tool_calls: [{ function: { arguments: '{"path":"y"}' } }] }),
          openaiChunk({}, 'tool_calls'),
        ]),
      },
    ]);
    const { final } = await runProvider(provider(s), { messages: [userMessage('go')], tools: testTools });
    expect(toolCallsOf(final).map((c) => [c.id, c.arguments])).toEqual([
      ['n1', { path: 'x' }],
      ['n2', { path: 'y' }],
    ]);
  });

  it('turns malformed arguments into a call with parseError and the raw text, not a crash', async () => {
    const s = await serve([
      {
        sse: openaiSSE([
          call(0, { id: 'bad', name: 'read', args: '{"path": "a.txt", ' }),
          call(0, { args: 'oops}' }),
          call(1, { id: 'arr', name: 'read', args: '["a.txt"]' }),
          call(2, { id: 'ok', name: 'read', args: '{"path":"b"}' }),
          openaiChunk({}, 'tool_calls'),
        ]),
      },
    ]);
    const { final, last } = await runProvider(provider(s), { messages: [userMessage('go')], tools: testTools });
    expect(last.type).toBe('done');
    const [bad, arr, ok] = toolCallsOf(final);
    expect(bad).toMatchObject({ id: 'bad', name: 'read', arguments: undefined, argumentsText: '{"path": "a.txt", oops}' });
    expect(bad!.parseError).toMatch(/not valid JSON/);
    expect(arr).toMatchObject({ arguments: undefined, argumentsText: '["a.txt"]', parseError: 'the arguments must be a JSON object, got an array' });
    expect(ok).toEqual({ type: 'toolCall', id: 'ok', name: 'read', arguments: { path: 'b' } });
  });

  it('maps a length finish to stopReason length, keeping the cut call with its parse error', async () => {
    const s = await serve([{ sse: openaiSSE([openaiChunk({ content: 'Writing' }), call(0, { id: 'w', name: 'read', args: '{"path": "very/lo' }), openaiChunk({}, 'length')]) }]);
    const { final, last } = await runProvider(provider(s), { messages: [userMessage('go')], tools: testTools });
    expect(last.type).toBe('done');
    expect(final.stopReason).toBe('length');
    expect(toolCallsOf(final)[0]).toMatchObject({ id: 'w', arguments: undefined, argumentsText: '{"path": "very/lo' });
  });

  it('reports a stream that ended without a finish reason as an error (a dropped connection), never as a finished answer', async () => {
    const s = await serve([{ sse: openaiSSE([openaiChunk({ content: 'half' }), call(0, { id: 'x', name: 'read', args: '{"path":"a"}' })], { done: false }) }]);
    const { final, last } = await runProvider(provider(s), { messages: [userMessage('go')], tools: testTools });
    expect(last.type).toBe('error');
    expect(final.stopReason).toBe('error');
    expect(final.errorMessage).toMatch(/ended the stream before the model finished/);
  });

  it('shows a streamed refusal as text', async () => {
    const s = await serve([{ sse: openaiSSE([openaiChunk({ refusal: "I can't " }), openaiChunk({ refusal: 'help with that.' }), openaiChunk({}, 'stop')]) }]);
    const { final } = await runProvider(provider(s), { messages: [userMessage('go')] });
    expect(final).toMatchObject({ stopReason: 'stop', content: [{ type: 'text', text: "I can't help with that." }] });
  });

  it('reads reasoning text that compatible servers stream as reasoning_content', async () => {
    const s = await serve([{ sse: openaiSSE([openaiChunk({ reasoning_content: 'Think' }), openaiChunk({ reasoning_content: 'ing.' }), openaiChunk({ content: 'Answer' }), openaiChunk({}, 'stop')]) }]);
    const { final } = await runProvider(provider(s), { messages: [userMessage('go')] });
    expect(final.content).toEqual([{ type: 'thinking', thinking: 'Thinking.' }, { type: 'text', text: 'Answer' }]);
  });
});

describe('OpenAI provider: errors and retries', () => {
  it('ends the turn on a 400 with the status and the server message, without retrying', async () => {
    const s = await serve([{ status: 400, json: { error: { message: "Unsupported parameter: 'max_tokens'", type: 'invalid_request_error' } } }]);
    const { final, last } = await runProvider(provider(s), { messages: [userMessage('go')] });
    expect(last.type).toBe('error');
    expect(final.stopReason).toBe('error');
    expect(final.errorMessage).toContain('400');
    expect(final.errorMessage).toContain("Unsupported parameter: 'max_tokens'");
    expect(s.requests).toHaveLength(1);
  });

  it('names the key variable on a 401', async () => {
    const s = await serve([{ status: 401, json: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } } }]);
    const fromEnv = createOpenAIProvider({ baseUrl: `${s.baseURL}/v1`, env: { OPENAI_API_KEY: 'sk-wrong' } });
    const { final } = await runProvider(fromEnv, { messages: [userMessage('go')] });
    expect(final.errorMessage).toMatch(/refused the API key \(401: .*Incorrect API key provided\)\. Check the OPENAI_API_KEY environment variable\./);
    expect(s.requests[0]!.headers.authorization).toBe('Bearer sk-wrong');
    expect(s.requests).toHaveLength(1);
  });

  it('retries a 429 after the retry-after-ms the server asked for, then streams the answer', async () => {
    const s = await serve([{ status: 429, headers: { 'retry-after-ms': '150' }, json: { error: { message: 'slow down' } } }, { sse: openaiSSE(openaiTextChunks(['ok'])) }]);
    const { final } = await runProvider(provider(s), { messages: [userMessage('go')] });
    expect(final.stopReason).toBe('stop');
    expect(final.content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(s.requests).toHaveLength(2);
    expect(s.requests[1]!.at - s.requests[0]!.at).toBeGreaterThanOrEqual(140);
  });

  it('honours retry-after in seconds', async () => {
    const s = await serve([{ status: 429, headers: { 'retry-after': '0.2' }, json: {} }, { sse: openaiSSE(openaiTextChunks(['ok'])) }]);
    const { final } = await runProvider(provider(s), { messages: [userMessage('go')] });
    expect(final.stopReason).toBe('stop');
    expect(s.requests[1]!.at - s.requests[0]!.at).toBeGreaterThanOrEqual(190);
  });

  it('retries a 500 and succeeds; gives up after maxRetries saying how many retries it made', async () => {
    const ok = await serve([{ status: 500, json: { error: { message: 'boom' } } }, { sse: openaiSSE(openaiTextChunks(['fine'])) }]);
    expect((await runProvider(provider(ok), { messages: [userMessage('go')] })).final.stopReason).toBe('stop');
    expect(ok.requests).toHaveLength(2);
    await ok.close();

    const down = await serve(() => ({ status: 503, json: { error: { message: 'unavailable' } } }));
    const { final } = await runProvider(provider(down, { retry: { maxRetries: 2, baseDelayMs: 5 } }), { messages: [userMessage('go')] });
    expect(down.requests).toHaveLength(3);
    expect(final.stopReason).toBe('error');
    expect(final.errorMessage).toMatch(/server error \(503: unavailable\) after 2 retries/);
  });

  it('does not wait when the server asks for longer than maxRetryAfterMs, and says so', async () => {
    const s = await serve([{ status: 429, headers: { 'retry-after': '120' }, json: { error: { message: 'quota' } } }]);
    const started = Date.now();
    const { final } = await runProvider(provider(s), { messages: [userMessage('go')] });
    expect(Date.now() - started).toBeLessThan(scaledMs(5_000, { below: 120_000 }));
    expect(s.requests).toHaveLength(1);
    expect(final.errorMessage).toMatch(/429: quota.*asked to wait 120 s before retrying, longer than retry.maxRetryAfterMs \(60 s\)/);
  });

  it('says where it could not connect', async () => {
    const s = await serve([]);
    const url = `${s.baseURL}/v1`;
    await s.close();
    server = undefined;
    const { final } = await runProvider(createOpenAIProvider({ baseUrl: url, env: {}, retry: { maxRetries: 1, baseDelayMs: 5 } }), { messages: [userMessage('go')] });
    expect(final.stopReason).toBe('error');
    expect(final.errorMessage).toContain(`The connection to OpenAI-compatible server at ${url} failed (ECONNREFUSED) after 1 retry`);
  });
});

describe('OpenAI provider: broken connections and bad input', () => {
  it('retries a connection cut before anything was streamed', async () => {
    const s = await serve([{ sse: [], cut: true }, { sse: openaiSSE(openaiTextChunks(['second'])) }]);
    const { final } = await runProvider(provider(s), { messages: [userMessage('go')] });
    expect(final.content).toEqual([{ type: 'text', text: 'second' }]);
    expect(s.requests).toHaveLength(2);
  });

  it('does not retry a connection cut after text was streamed: the turn ends in error with the text kept', async () => {
    const s = await serve([{ sse: openaiSSE([openaiChunk({ content: 'partial' })], { done: false }), cut: true }]);
    const { final } = await runProvider(provider(s), { messages: [userMessage('go')] });
    expect(final.stopReason).toBe('error');
    expect(final.content).toEqual([{ type: 'text', text: 'partial' }]);
    expect(final.errorMessage).toMatch(/The connection to .* failed \((UND_ERR_SOCKET|ECONNRESET|terminated)\)/);
    expect(s.requests).toHaveLength(1);
  });

  it('shows control characters in a server message escaped, never raw', async () => {
    const s = await serve([{ status: 400, json: { error: { message: 'bad \u001b]52;c;ZXZpbA==\u0007 request\u202e' } } }]);
    const { final } = await runProvider(provider(s), { messages: [userMessage('go')] });
    expect(final.errorMessage).not.toMatch(/[\u0000-\u001f\u007f\u202e]/);
    expect(final.errorMessage).toContain('\\u001B]52;c;ZXZpbA==');
  });

  it('ends with an error event, sending nothing, when two tools would reach the API under one name', async () => {
    const s = await serve([]);
    const clash = [testTools[1]!, { ...testTools[1]!, name: 'github/create_issue' }];
    const { final, last } = await runProvider(provider(s), { messages: [userMessage('go')], tools: clash });
    expect(last.type).toBe('error');
    expect(final.errorMessage).toMatch(/^Could not build the OpenAI-compatible server request: /);
    expect(s.requests).toHaveLength(0);
  });
});

describe('OpenAI provider: a stalled server', () => {
  it('gives up on an attempt that sends nothing, retries it, and hangs up on the stalled one', async () => {
    const s = await serve([{ sse: [], hold: true }, { sse: openaiSSE(openaiTextChunks(['awake'])) }]);
    const { final } = await runProvider(provider(s, { idleTimeoutMs: 100 }), { messages: [userMessage('go')] });
    expect(final.content).toEqual([{ type: 'text', text: 'awake' }]);
    expect(s.requests).toHaveLength(2);
    await s.requests[0]!.closed;
    expect(s.requests[0]!.clientHungUp).toBe(true);
  });

  it('ends the turn when a response stops mid-way, keeping what came', async () => {
    const s = await serve([{ sse: openaiSSE([openaiChunk({ content: 'so far' })], { done: false }), hold: true }]);
    const { final } = await runProvider(provider(s, { idleTimeoutMs: 100 }), { messages: [userMessage('go')] });
    expect(final.stopReason).toBe('error');
    expect(final.content).toEqual([{ type: 'text', text: 'so far' }]);
    expect(final.errorMessage).toMatch(/^OpenAI-compatible server sent nothing for 0.1 s mid-response \(idleTimeoutMs\)\. /);
    expect(s.requests).toHaveLength(1);
  });

  it('does not count the time a slow consumer spends on an event', async () => {
    const s = await serve([{ sse: openaiSSE(openaiTextChunks(['a', 'b', 'c'])), gapMs: 1 }]);
    const slow = provider(s, { idleTimeoutMs: 60 });
    const events: string[] = [];
    for await (const event of slow.stream({ model: 'm', systemPrompt: '', messages: [userMessage('go')], tools: [] })) {
      events.push(event.type);
      if (event.type === 'text_delta') await new Promise((resolve) => setTimeout(resolve, 150));
    }
    expect(events.at(-1)).toBe('done');
  });
});

describe('OpenAI provider: abort', () => {
  it('ends with aborted promptly when the signal fires mid-stream, and the server sees the socket close', async () => {
    const s = await serve([{ sse: openaiSSE([openaiChunk({ content: 'first ' })], { done: false }), hold: true }]);
    const controller = new AbortController();
    const started = Date.now();
    const { final, last } = await runProvider(provider(s), { messages: [userMessage('go')] }, {
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'text_delta') controller.abort();
      },
    });
    expect(last.type).toBe('error');
    expect(final.stopReason).toBe('aborted');
    expect(final.content).toEqual([{ type: 'text', text: 'first ' }]);
    expect(Date.now() - started).toBeLessThan(scaledMs(3_000));
    await s.requests[0]!.closed;
    expect(s.requests[0]!.clientHungUp).toBe(true);
  });

  it('cancels the request when the consumer stops reading', async () => {
    const s = await serve([{ sse: openaiSSE([openaiChunk({ content: 'first ' })], { done: false }), hold: true }]);
    for await (const event of provider(s).stream({ model: 'm', systemPrompt: '', messages: [userMessage('go')], tools: [] })) {
      if (event.type === 'text_delta') break;
    }
    await s.requests[0]!.closed;
    expect(s.requests[0]!.clientHungUp).toBe(true);
  });

  it('sends nothing when the signal already fired', async () => {
    const s = await serve([]);
    const { final } = await runProvider(provider(s), { messages: [userMessage('go')] }, { signal: AbortSignal.abort() });
    expect(final.stopReason).toBe('aborted');
    expect(s.requests).toHaveLength(0);
  });
});

describe('OpenAI provider: keys', () => {
  it('refuses to start without a key for OpenAI itself, naming the variable', () => {
    expect(() => createOpenAIProvider({ env: {} })).toThrow(ProviderSetupError);
    expect(() => createOpenAIProvider({ env: {} })).toThrow(/set OPENAI_API_KEY/);
    expect(() => createOpenAIProvider({ env: {}, apiKeyEnv: 'OPENROUTER_API_KEY' })).toThrow(/set OPENROUTER_API_KEY/);
    expect(() => createOpenAIProvider({ env: { OPENAI_API_KEY: '  ' } })).toThrow(/set OPENAI_API_KEY/);
  });

  it('sends no Authorization header to a keyless local server given by base URL', async () => {
    const s = await serve([{ sse: openaiSSE(openaiTextChunks(['hi'])) }]);
    await runProvider(createOpenAIProvider({ env: { OPENAI_BASE_URL: `${s.baseURL}/v1` } }), { messages: [userMessage('go')] });
    expect(s.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('rejects a base URL that is not http(s)', () => {
    expect(() => createOpenAIProvider({ baseUrl: 'localhost:11434', env: {} })).toThrow(/must start with http/);
    expect(() => createOpenAIProvider({ baseUrl: 'not a url', env: {} })).toThrow(/is not a URL/);
  });

  // issue 28: `baseURL` (the OpenAI SDK's spelling) was ignored, and the run then failed for want of a key.
  it('refuses an option it does not know, naming the closest one, before anything else', () => {
    expect(() => createOpenAIProvider({ baseURL: 'http://127.0.0.1:1/v1', env: {} } as never)).toThrow('createOpenAIProvider() has no option "baseURL". Did you mean "baseUrl"?');
    expect(() => createAnthropicProvider({ baseURL: 'http://127.0.0.1:1', env: {} } as never)).toThrow(/no option "baseURL"\. Did you mean "baseUrl"\?/);
    expect(() => createOpenAIProvider({ reasoningEfort: 'low', env: {} } as never)).toThrow(/Did you mean "reasoningEffort"\?/);
  });
});

describe('OpenAI provider: the request transcript', () => {
  const assistant = (content: AssistantMessage['content'], stopReason: AssistantMessage['stopReason']): AssistantMessage => ({ role: 'assistant', content, stopReason, provider: 'openai', model: 'm', timestamp: 1 });
  const result = (toolCallId: string, content: ToolResultMessage['content'], isError = false): ToolResultMessage => ({ role: 'toolResult', toolCallId, toolName: 'read', content, isError, outcome: isError ? 'error' : 'ok', timestamp: 2 });

  it('sends tool results as tool messages and their images in a user message after the batch', async () => {
    const s = await serve([{ sse: openaiSSE(openaiTextChunks(['seen'])) }]);
    const messages: Message[] = [
      userMessage('look'),
      assistant([{ type: 'toolCall', id: 'c1', name: 'read', arguments: { path: 'a.png' } }, { type: 'toolCall', id: 'c2', name: 'read', arguments: { path: 'b.txt' } }], 'toolUse'),
      result('c1', [{ type: 'text', text: 'Read image a.png' }, { type: 'image', data: PNG_1x1, mimeType: 'image/png' }]),
      result('c2', [{ type: 'text', text: 'no such file' }], true),
    ];
    await runProvider(provider(s), { messages, tools: testTools });
    const sent = s.requests[0]!.body.messages;
    expect(sent.map((m: any) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'user']);
    expect(sent[2].tool_calls.map((c: any) => [c.id, c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ['c1', 'read', { path: 'a.png' }],
      ['c2', 'read', { path: 'b.txt' }],
    ]);
    expect(sent[3]).toEqual({ role: 'tool', tool_call_id: 'c1', content: 'Read image a.png\n[image image/png: sent in the next message]' });
    expect(sent[4]).toEqual({ role: 'tool', tool_call_id: 'c2', content: 'no such file' });
    expect(sent[5].content[1]).toEqual({ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_1x1}` } });
    expect(sent[5].content[0].text).toContain('c1');
  });

  it('sends back a call to a tool name the API would refuse (too long, empty) in a shape it takes', async () => {
    const s = await serve([{ sse: openaiSSE(openaiTextChunks(['ok'])) }]);
    const messages: Message[] = [
      userMessage('go'),
      assistant([{ type: 'toolCall', id: 'n1', name: 'made up/'.repeat(20), arguments: {} }, { type: 'toolCall', id: 'n2', name: '', arguments: {} }], 'toolUse'),
      result('n1', [{ type: 'text', text: 'Tool not found' }], true),
      result('n2', [{ type: 'text', text: 'Tool not found' }], true),
    ];
    await runProvider(provider(s), { messages, tools: testTools });
    const names = s.requests[0]!.body.messages[2].tool_calls.map((c: any) => c.function.name);
    expect(names[0]).toMatch(/^[a-zA-Z0-9_-]{64}$/);
    expect(names[1]).toBe('unnamed_tool');
  });

  it('leaves out an aborted turn and its answers, and answers a call that has no result', async () => {
    const s = await serve([{ sse: openaiSSE(openaiTextChunks(['ok'])) }]);
    const messages: Message[] = [
      userMessage('one'),
      assistant([{ type: 'text', text: 'Let me' }, { type: 'toolCall', id: 'x1', name: 'read', arguments: undefined, argumentsText: '{"pa', parseError: 'cut' }], 'aborted'),
      result('x1', [{ type: 'text', text: 'aborted' }], true),
      userMessage('two'),
      assistant([{ type: 'toolCall', id: 'y1', name: 'read', arguments: { path: 'a' } }, { type: 'toolCall', id: 'y2', name: 'read', arguments: { path: 'b' } }], 'toolUse'),
      result('y2', [{ type: 'text', text: 'B' }]),
      result('zz', [{ type: 'text', text: 'orphan' }]),
      userMessage('three'),
    ];
    await runProvider(provider(s), { messages, tools: testTools });
    const sent = s.requests[0]!.body.messages;
    expect(sent.map((m: any) => m.role + (m.tool_call_id ? `:${m.tool_call_id}` : ''))).toEqual(['system', 'user', 'user', 'assistant', 'tool:y1', 'tool:y2', 'user']);
    expect(sent[4].content).toMatch(/No result was recorded/);
    expect(sent[5].content).toBe('B');
  });
});
