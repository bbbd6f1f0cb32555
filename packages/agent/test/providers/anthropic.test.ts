import type { ToolResultMessage } from '@airlock/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { createAnthropicProvider, ProviderSetupError, toolCallsOf, userMessage, type AssistantMessage, type Message } from '../../src/index.js';
import { anthropicMessageEvents, anthropicSSE, startModelServer, type ModelServer, type Reply } from '../support/model-server.js';
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

function provider(s: ModelServer, extra: Parameters<typeof createAnthropicProvider>[0] = {}) {
  return createAnthropicProvider({ baseUrl: s.baseURL, apiKey: 'ak-test', env: {}, retry: { baseDelayMs: 5 }, ...extra });
}

const text = (pieces: string[]) => ({ type: 'text' as const, pieces });

describe('Anthropic provider: streaming', () => {
  it('streams text and thinking with its signature, with usage, and sends what the API expects', async () => {
    const s = await serve([
      { sse: anthropicSSE(anthropicMessageEvents([{ type: 'thinking', pieces: ['Hm', 'm.'], signature: 'sig-1' }, text(['Hel', 'lo'])], 'end_turn', { input: 12, output: 9, cacheRead: 100, cacheWrite: 20 })) },
    ]);
    const { events, final, last } = await runProvider(provider(s), { messages: [userMessage('hi')], tools: testTools, maxTokens: 500 });

    expect(last.type).toBe('done');
    expect(final).toMatchObject({ provider: 'anthropic', stopReason: 'stop', content: [{ type: 'thinking', thinking: 'Hmm.', signature: 'sig-1' }, { type: 'text', text: 'Hello' }] });
    expect(final.usage).toEqual({ input: 12, output: 9, cacheRead: 100, cacheWrite: 20, totalTokens: 141 });
    expect(events.map((e) => e.type)).toEqual(['start', 'thinking_delta', 'thinking_delta', 'text_delta', 'text_delta', 'done']);

    const body = s.requests[0]!.body;
    expect(s.requests[0]!.url).toBe('/v1/messages');
    expect(body).toMatchObject({ model: 'test-model', max_tokens: 500, stream: true, system: [{ type: 'text', text: 'You are a test.', cache_control: { type: 'ephemeral' } }] });
    expect(body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] }]);
    expect(body.tools.map((t: any) => t.name)).toEqual(['read', 'github_create_issue']);
    expect(body.tools[0].input_schema).toMatchObject({ type: 'object', properties: { path: { type: 'string' } } });
  });

  it('joins tool input split across deltas (mid-string, mid-\\u escape) and maps names back', async () => {
    const s = await serve([
      {
        sse: anthropicSSE(
          anthropicMessageEvents(
            [
              text(['Two calls.']),
              { type: 'tool_use', id: 'toolu_1', name: 'read', json: ['', '{"pa', 'th":"src/', 'a.ts"}'] },
              { type: 'tool_use', id: 'toolu_2', name: 'github_create_issue', json: ['{"title":"caf\\u0', '0e9"}'] },
              { type: 'tool_use', id: 'toolu_3', name: 'read', json: [] },
            ],
            'tool_use',
          ),
        ),
      },
    ]);
    const { final, events } = await runProvider(provider(s), { messages: [userMessage('go')], tools: testTools });
    expect(final.stopReason).toBe('toolUse');
    expect(toolCallsOf(final)).toEqual([
      { type: 'toolCall', id: 'toolu_1', name: 'read', arguments: { path: 'src/a.ts' } },
      { type: 'toolCall', id: 'toolu_2', name: 'github:create_issue', arguments: { title: 'café' } },
      { type: 'toolCall', id: 'toolu_3', name: 'read', arguments: {} },
    ]);
    expect(events.filter((e) => e.type === 'toolcall_end').map((e) => (e as any).index)).toEqual([0, 1, 2]);
  });

  it('turns malformed input JSON into a call with parseError, not a crash', async () => {
    const s = await serve([{ sse: anthropicSSE(anthropicMessageEvents([{ type: 'tool_use', id: 'toolu_x', name: 'read', json: ['{"path": tru'] }], 'tool_use')) }]);
    const { final, last } = await runProvider(provider(s), { messages: [userMessage('go')], tools: testTools });
    expect(last.type).toBe('done');
    expect(toolCallsOf(final)[0]).toMatchObject({ id: 'toolu_x', arguments: undefined, argumentsText: '{"path": tru' });
    expect(toolCallsOf(final)[0]!.parseError).toMatch(/not valid JSON/);
  });

  it('asks for extended thinking with max_tokens above the budget, and sends no temperature', async () => {
    const s = await serve([{ sse: anthropicSSE(anthropicMessageEvents([text(['ok'])], 'end_turn')) }]);
    await runProvider(provider(s, { thinkingBudget: 4000, promptCaching: false }), { messages: [userMessage('go')], maxTokens: 1000, temperature: 0.5 });
    const body = s.requests[0]!.body;
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 4000 });
    expect(body.max_tokens).toBe(5000);
    expect(body).not.toHaveProperty('temperature');
    expect(body.system).toEqual([{ type: 'text', text: 'You are a test.' }]);
    expect(body.messages[0].content[0]).not.toHaveProperty('cache_control');
  });

  it('maps max_tokens to stopReason length', async () => {
    const s = await serve([{ sse: anthropicSSE(anthropicMessageEvents([text(['cut']), { type: 'tool_use', id: 'toolu_c', name: 'read', json: ['{"path":"a'] }], 'max_tokens')) }]);
    const { final } = await runProvider(provider(s), { messages: [userMessage('go')], tools: testTools });
    expect(final.stopReason).toBe('length');
    expect(toolCallsOf(final)[0]).toMatchObject({ arguments: undefined, argumentsText: '{"path":"a' });
  });

  it('maps a refusal to an error the person can read', async () => {
    const s = await serve([{ sse: anthropicSSE(anthropicMessageEvents([text(['I cannot'])], 'refusal')) }]);
    const { final, last } = await runProvider(provider(s), { messages: [userMessage('go')] });
    expect(last.type).toBe('error');
    expect(final.stopReason).toBe('error');
    expect(final.errorMessage).toMatch(/refusal/);
  });

  it('keeps redacted thinking as opaque data and sends it back unchanged', async () => {
    const s = await serve([{ sse: anthropicSSE(anthropicMessageEvents([{ type: 'redacted_thinking', data: 'ENCRYPTED' }, text(['ok'])], 'end_turn')) }, { sse: anthropicSSE(anthropicMessageEvents([text(['again'])], 'end_turn')) }]);
    const p = provider(s);
    const { final } = await runProvider(p, { messages: [userMessage('go')] });
    expect(final.content[0]).toEqual({ type: 'thinking', thinking: '', signature: 'ENCRYPTED', redacted: true });
    await runProvider(p, { messages: [userMessage('go'), final, userMessage('more')] });
    expect(s.requests[1]!.body.messages[1].content[0]).toEqual({ type: 'redacted_thinking', data: 'ENCRYPTED' });
  });
});

describe('Anthropic provider: errors and retries', () => {
  it('names ANTHROPIC_API_KEY on a 401 and does not retry', async () => {
    const s = await serve([{ status: 401, json: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } }]);
    const { final } = await runProvider(createAnthropicProvider({ baseUrl: s.baseURL, env: { ANTHROPIC_API_KEY: 'bad' } }), { messages: [userMessage('go')] });
    expect(final.stopReason).toBe('error');
    expect(final.errorMessage).toBe('Anthropic-compatible server refused the API key (401: authentication_error: invalid x-api-key). Check the ANTHROPIC_API_KEY environment variable.');
    expect(s.requests).toHaveLength(1);
  });

  it('ends on a 400 with the server message', async () => {
    const s = await serve([{ status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: 'messages: roles must alternate' } } }]);
    const { final } = await runProvider(provider(s), { messages: [userMessage('go')] });
    expect(final.errorMessage).toContain('400: invalid_request_error: messages: roles must alternate');
    expect(s.requests).toHaveLength(1);
  });

  it('retries 529 overloaded after retry-after, then streams', async () => {
    const s = await serve([
      { status: 529, headers: { 'retry-after': '0.15' }, json: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } },
      { sse: anthropicSSE(anthropicMessageEvents([text(['ok'])], 'end_turn')) },
    ]);
    const { final } = await runProvider(provider(s), { messages: [userMessage('go')] });
    expect(final.content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(s.requests).toHaveLength(2);
    expect(s.requests[1]!.at - s.requests[0]!.at).toBeGreaterThanOrEqual(140);
  });

  it('retries an overloaded error event that arrives in the stream before any content', async () => {
    const start = anthropicMessageEvents([], null).slice(0, 1);
    const s = await serve([
      { sse: [...anthropicSSE(start), 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'] },
      { sse: anthropicSSE(anthropicMessageEvents([text(['second try'])], 'end_turn')) },
    ]);
    const { final, events } = await runProvider(provider(s), { messages: [userMessage('go')] });
    expect(final.stopReason).toBe('stop');
    expect(final.content).toEqual([{ type: 'text', text: 'second try' }]);
    expect(events.filter((e) => e.type === 'start')).toHaveLength(1);
    expect(s.requests).toHaveLength(2);
  });

  it('keeps a finished answer whose connection broke after the stop reason arrived', async () => {
    const events = anthropicMessageEvents([text(['done'])], 'end_turn');
    const s = await serve([{ sse: anthropicSSE(events.slice(0, -1)), cut: true }]);
    const { final, last } = await runProvider(provider(s), { messages: [userMessage('go')] });
    expect(last.type).toBe('done');
    expect(final).toMatchObject({ stopReason: 'stop', content: [{ type: 'text', text: 'done' }] });
  });

  it('does not retry an error that arrives after text was streamed (the consumer already saw it)', async () => {
    const events = anthropicMessageEvents([text(['partial'])], null);
    const s = await serve([{ sse: [...anthropicSSE(events.slice(0, 3)), 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'] }]);
    const { final } = await runProvider(provider(s), { messages: [userMessage('go')] });
    expect(final.stopReason).toBe('error');
    expect(final.content).toEqual([{ type: 'text', text: 'partial' }]);
    expect(final.errorMessage).toMatch(/mid-stream \(overloaded_error: Overloaded\)/);
    expect(s.requests).toHaveLength(1);
  });
});

describe('Anthropic provider: abort and keys', () => {
  it('ends with aborted promptly when the signal fires mid-stream, and the server sees the socket close', async () => {
    const events = anthropicMessageEvents([text(['first'])], null);
    const s = await serve([{ sse: anthropicSSE(events.slice(0, 3)), hold: true }]);
    const controller = new AbortController();
    const { final } = await runProvider(provider(s), { messages: [userMessage('go')] }, {
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'text_delta') controller.abort();
      },
    });
    expect(final.stopReason).toBe('aborted');
    expect(final.content).toEqual([{ type: 'text', text: 'first' }]);
    await s.requests[0]!.closed;
    expect(s.requests[0]!.clientHungUp).toBe(true);
  });

  it('aborts during a retry wait without sending again', async () => {
    const s = await serve([{ status: 429, headers: { 'retry-after': '30' }, json: {} }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const { final } = await runProvider(provider(s), { messages: [userMessage('go')] }, { signal: controller.signal });
    expect(final.stopReason).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(scaledMs(5_000, { below: 30_000 }));
    expect(s.requests).toHaveLength(1);
  });

  it('refuses to start without a key for Anthropic itself, naming the variable; a base URL makes it optional', async () => {
    expect(() => createAnthropicProvider({ env: {} })).toThrow(ProviderSetupError);
    expect(() => createAnthropicProvider({ env: {} })).toThrow(/set ANTHROPIC_API_KEY/);
    const s = await serve([{ sse: anthropicSSE(anthropicMessageEvents([text(['hi'])], 'end_turn')) }]);
    await runProvider(createAnthropicProvider({ baseUrl: s.baseURL, env: {} }), { messages: [userMessage('go')] });
    expect(s.requests[0]!.headers.authorization).toBeUndefined();
    expect(s.requests[0]!.headers['x-api-key']).toBeUndefined();
  });
});

describe('Anthropic provider: the request transcript', () => {
  const assistant = (content: AssistantMessage['content'], stopReason: AssistantMessage['stopReason'], provider = 'anthropic'): AssistantMessage => ({ role: 'assistant', content, stopReason, provider, model: 'm', timestamp: 1 });
  const result = (toolCallId: string, content: ToolResultMessage['content'], isError = false): ToolResultMessage => ({ role: 'toolResult', toolCallId, toolName: 'read', content, isError, outcome: isError ? 'error' : 'ok', timestamp: 2 });

  it('sends results as tool_result blocks first in the next user turn, with is_error and inline images', async () => {
    const s = await serve([{ sse: anthropicSSE(anthropicMessageEvents([text(['seen'])], 'end_turn')) }]);
    const messages: Message[] = [
      userMessage([{ type: 'text', text: 'look' }, { type: 'image', data: PNG_1x1, mimeType: 'image/png' }]),
      { ...assistant([{ type: 'thinking', thinking: 'plan', signature: 'sig' }, { type: 'toolCall', id: 'toolu_1', name: 'github:create_issue', arguments: { title: 't' } }, { type: 'toolCall', id: 'toolu_2', name: 'read', arguments: { path: 'a.png' } }], 'toolUse'), model: 'test-model' },
      result('toolu_1', [{ type: 'text', text: 'denied' }], true),
      result('toolu_2', [{ type: 'image', data: PNG_1x1, mimeType: 'image/png' }]),
      userMessage('steer: be quick'),
    ];
    await runProvider(provider(s), { messages, tools: testTools });
    const sent = s.requests[0]!.body.messages;
    expect(sent.map((m: any) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(sent[0].content[1]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_1x1 } });
    expect(sent[1].content).toEqual([
      { type: 'thinking', thinking: 'plan', signature: 'sig' },
      { type: 'tool_use', id: 'toolu_1', name: 'github_create_issue', input: { title: 't' } },
      { type: 'tool_use', id: 'toolu_2', name: 'read', input: { path: 'a.png' } },
    ]);
    expect(sent[2].content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'denied' }], is_error: true },
      { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_1x1 } }] },
      { type: 'text', text: 'steer: be quick', cache_control: { type: 'ephemeral' } },
    ]);
  });

  it('sends thinking back only to the model that signed it', async () => {
    const s = await serve([{ sse: anthropicSSE(anthropicMessageEvents([text(['a'])], 'end_turn')) }, { sse: anthropicSSE(anthropicMessageEvents([text(['b'])], 'end_turn')) }]);
    const signed: AssistantMessage = { ...assistant([{ type: 'thinking', thinking: 'plan', signature: 'sig' }, { type: 'text', text: 'hi' }], 'stop'), model: 'claude-a' };
    const messages: Message[] = [userMessage('one'), signed, userMessage('two')];
    await runProvider(provider(s), { model: 'claude-a', messages });
    await runProvider(provider(s), { model: 'claude-b', messages });
    expect(s.requests[0]!.body.messages[1].content.map((b: any) => b.type)).toEqual(['thinking', 'text']);
    expect(s.requests[1]!.body.messages[1].content.map((b: any) => b.type)).toEqual(['text']);
  });

  it('drops an errored turn, answers calls without results, leaves out unsigned or foreign thinking, and respells ids the API rejects', async () => {
    const s = await serve([{ sse: anthropicSSE(anthropicMessageEvents([text(['ok'])], 'end_turn')) }]);
    const messages: Message[] = [
      userMessage('one'),
      assistant([{ type: 'text', text: 'oops' }], 'error'),
      userMessage('two'),
      assistant([{ type: 'thinking', thinking: 'from elsewhere' }, { type: 'toolCall', id: 'call|42', name: 'read', arguments: undefined, argumentsText: '{', parseError: 'bad' }], 'toolUse', 'openai'),
    ];
    await runProvider(provider(s), { messages, tools: testTools });
    const sent = s.requests[0]!.body.messages;
    expect(sent.map((m: any) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(sent[0].content.map((b: any) => b.text)).toEqual(['one', 'two']);
    const use = sent[1].content;
    expect(use).toHaveLength(1);
    expect(use[0]).toMatchObject({ type: 'tool_use', name: 'read', input: {} });
    expect(use[0].id).toMatch(/^id_[0-9a-f]{24}$/);
    expect(sent[2].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: use[0].id, is_error: true });
    expect(sent[2].content[0].content[0].text).toMatch(/No result was recorded/);
  });
});
