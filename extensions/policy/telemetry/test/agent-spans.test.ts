import { describe, expect, it } from 'vitest';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { kernelRunner, runAgentLoop, scriptedProvider, userMessage } from '@airlock/agent';
import { tracedKernel } from './helpers.js';

/** The spans as a tree of names, children in start order: what a trace viewer shows. */
function tree(spans: readonly ReadableSpan[]): unknown {
  const byParent = new Map<string | undefined, ReadableSpan[]>();
  for (const span of spans) {
    const parent = span.parentSpanContext?.spanId;
    byParent.set(parent, [...(byParent.get(parent) ?? []), span]);
  }
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  const node = (span: ReadableSpan): unknown => {
    const children = (byParent.get(span.spanContext().spanId) ?? []).sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
    return children.length === 0 ? span.name : { [span.name]: children.map(node) };
  };
  const roots = spans.filter((s) => s.parentSpanContext === undefined || !ids.has(s.parentSpanContext.spanId));
  return roots.map(node);
}

const call = (name: string, args: unknown, id: string) => ({ type: 'toolCall', name, arguments: args, id });

describe('spans for the agent: a run, its turns, its model requests (GenAI conventions)', () => {
  it('a two-turn run: invoke_agent → turn → chat <model> with token usage, and the calls under the turn that asked for them', async () => {
    const t = tracedKernel();
    const provider = scriptedProvider([
      { content: [call('echo', { text: 'one' }, 'c1'), call('echo', { text: 'two' }, 'c2')], stopReason: 'toolUse', usage: { input: 120, output: 30, cacheRead: 400, cacheWrite: 50 } },
      { content: [{ type: 'text', text: 'Both echoed.' }], usage: { input: 600, output: 8 } },
    ]);
    const result = await runAgentLoop([userMessage('echo twice')], { provider, model: 'tiny-1', runner: kernelRunner(t.kernel, undefined, t.activity) });
    expect(result.status).toBe('done');
    const spans = t.spans();
    expect(tree(spans)).toEqual([{ 'invoke_agent airlock': [{ turn: ['chat tiny-1', 'execute_tool echo', 'execute_tool echo'] }, { turn: ['chat tiny-1'] }] }]);

    const run = spans.find((s) => s.name === 'invoke_agent airlock')!;
    expect(run.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'airlock',
      'gen_ai.provider.name': 'scripted',
      'gen_ai.request.model': 'tiny-1',
      'gen_ai.conversation.id': t.kernel.session.id,
      'airlock.run.id': result.runId,
      'airlock.agent.status': 'done',
      'airlock.agent.turns': 2,
      'airlock.agent.requests': 2,
      // Input as the conventions count it: cached prompt tokens included.
      'gen_ai.usage.input_tokens': 120 + 400 + 50 + 600,
      'gen_ai.usage.output_tokens': 38,
    });
    expect(run.status.code).toBe(0);

    const [first, second] = spans.filter((s) => s.name === 'chat tiny-1').sort((a, b) => a.startTime[1] - b.startTime[1] + (a.startTime[0] - b.startTime[0]) * 1e9);
    expect(first!.kind).toBe(2); // CLIENT
    expect(first!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'scripted',
      'gen_ai.request.model': 'tiny-1',
      'gen_ai.response.model': 'tiny-1',
      'gen_ai.response.finish_reasons': ['tool_call'],
      'gen_ai.usage.input_tokens': 570,
      'gen_ai.usage.output_tokens': 30,
      'gen_ai.usage.cache_read.input_tokens': 400,
      'gen_ai.usage.cache_creation.input_tokens': 50,
      'airlock.tool_calls': 2,
    });
    expect(second!.attributes).toMatchObject({ 'gen_ai.response.finish_reasons': ['stop'], 'gen_ai.usage.input_tokens': 600, 'airlock.tool_calls': 0 });
    const turns = spans.filter((s) => s.name === 'turn');
    expect(turns.map((s) => [s.attributes['airlock.turn.number'], s.attributes['airlock.turn.tool_calls']]).sort()).toEqual([
      [1, 2],
      [2, 0],
    ]);
    // Every span of the run is in one trace.
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    // Nothing said in the conversation is exported by default.
    expect(JSON.stringify(spans.map((s) => [s.attributes, s.events]))).not.toMatch(/echo twice|Both echoed|"one"|"two"/);

    const metrics = await t.metrics();
    expect(metrics.get('gen_ai.client.token.usage')?.map((p) => [p.attributes['gen_ai.token.type'], (p.value as { sum: number; count: number }).sum, (p.value as { count: number }).count])).toEqual(
      expect.arrayContaining([
        ['input', 570 + 600, 2],
        ['output', 38, 2],
      ]),
    );
    const durations = metrics.get('gen_ai.client.operation.duration')!;
    expect(durations.map((p) => [p.attributes['gen_ai.operation.name'], p.attributes['gen_ai.request.model'], (p.value as { count: number }).count])).toEqual([['chat', 'tiny-1', 2]]);
  });

  it('a provider that fails: the chat span and the run are errors, with a low-cardinality error.type and no message text', async () => {
    const t = tracedKernel();
    const provider = scriptedProvider([{ content: [], stopReason: 'error', errorMessage: 'upstream said 529 overloaded for key sk-live-123' }]);
    const result = await runAgentLoop([userMessage('hi')], { provider, model: 'tiny-1', runner: kernelRunner(t.kernel, undefined, t.activity) });
    expect(result.status).toBe('failed');
    const spans = t.spans();
    const chat = spans.find((s) => s.name === 'chat tiny-1')!;
    expect(chat.status.code).toBe(2);
    expect(chat.attributes).toMatchObject({ 'error.type': 'provider_error', 'gen_ai.response.finish_reasons': ['error'] });
    const run = spans.find((s) => s.name === 'invoke_agent airlock')!;
    expect(run.status.code).toBe(2);
    expect(run.attributes).toMatchObject({ 'error.type': 'failed', 'airlock.agent.status': 'failed' });
    expect(JSON.stringify(spans.map((s) => [s.attributes, s.events, s.status]))).not.toContain('sk-live-123');
  });

  it('an aborted run: the running call’s span is under its turn with outcome aborted, and every span is ended', async () => {
    const t = tracedKernel();
    const controller = new AbortController();
    const provider = scriptedProvider([{ content: [call('wait', {}, 'w1')], stopReason: 'toolUse' }, 'never sent']);
    const running = runAgentLoop([userMessage('wait')], { provider, model: 'tiny-1', runner: kernelRunner(t.kernel, undefined, t.activity), signal: controller.signal });
    // Abort while the tool is running (it waits for its signal).
    await new Promise<void>((resolve) => {
      const off = t.kernel.onEvent((e) => {
        if (e.type === 'tool_execution_start') {
          off();
          resolve();
        }
      });
    });
    await new Promise((r) => setTimeout(r, 50));
    controller.abort();
    const result = await running;
    expect(result.status).toBe('aborted');
    const spans = t.spans();
    expect(tree(spans)).toEqual([{ 'invoke_agent airlock': [{ turn: ['chat tiny-1', 'execute_tool wait'] }] }]);
    expect(spans.find((s) => s.name === 'execute_tool wait')!.attributes['airlock.outcome']).toBe('aborted');
    expect(spans.find((s) => s.name === 'invoke_agent airlock')!.attributes).toMatchObject({ 'airlock.agent.status': 'aborted', 'error.type': 'aborted' });
    // Nothing was left open for shutdown to end as unfinished.
    await t.stop();
    expect(t.spans().filter((s) => s.attributes['airlock.outcome'] === 'unfinished')).toEqual([]);
  });

  it('a host that closes mid-run: what is open ends as unfinished, so the trace is not lost', async () => {
    const t = tracedKernel();
    t.activity({ type: 'agent_start', runId: 'r', provider: 'openai', model: 'gpt-x' });
    t.activity({ type: 'turn_start', runId: 'r', turnId: 'r:1', turn: 1 });
    t.activity({ type: 'model_request_start', runId: 'r', turnId: 'r:1', provider: 'openai', model: 'gpt-x' });
    await t.stop();
    expect(t.spans().map((s) => [s.name, s.attributes['airlock.outcome']])).toEqual([
      ['chat gpt-x', 'unfinished'],
      ['turn', 'unfinished'],
      ['invoke_agent airlock', 'unfinished'],
    ]);
  });
});

describe('extension versions on every call span', () => {
  it('the loaded extensions with their versions, and the version of the extension whose handler decided', async () => {
    const t = tracedKernel({
      extensions: [
        { name: 'path-policy', packageName: '@airlock/path-policy', version: '1.4.0' },
        { name: 'acme', packageName: '@acme/airlock-guard', version: '2.0.1' },
      ],
    });
    t.kernel.on('tool_call', () => ({ effect: 'deny', reason: 'no', rule: 'acme/no-echo' }), { name: 'acme/guard', phase: 'authorize' });
    await t.kernel.executeToolCall({ id: 'x', name: 'echo', arguments: { text: 'a' } });
    const span = t.spans().find((s) => s.name === 'execute_tool echo')!;
    expect(span.attributes['airlock.extensions']).toEqual(['path-policy@1.4.0', 'acme@2.0.1']);
    expect(span.attributes['airlock.decision.handler']).toBe('acme/guard');
    expect(span.attributes['airlock.decision.handler.version']).toBe('2.0.1');
  });
});
