import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentActivity, ToolResultMessage } from '@airlock/contract';
import { kernelRunner, MessageQueue, runAgentLoop, textOf, userMessage, type AgentEvent, type Message, type ModelProvider, type ToolRunner } from '../src/index.js';
import { call, collector, fixture, recording } from './support/fixture.js';
import { scaledMs } from '@airlock/kernel/testing';

const results = (messages: readonly Message[]) => messages.filter((m): m is ToolResultMessage => m.role === 'toolResult');

describe('a turn', () => {
  it('reads a real file through the kernel, sends the result to the model, and ends on an answer', async () => {
    const f = fixture();
    writeFileSync(join(f.dir, 'a.txt'), 'hello from disk\n');
    const provider = recording([{ content: [call('cat', { path: 'a.txt' })] }, 'It says hello.']);
    const result = await runAgentLoop([userMessage('what is in a.txt?')], { provider, model: 'm', runner: f.runner });
    expect(result.status).toBe('done');
    expect(result.turns).toBe(2);
    expect(textOf(result.finalMessage!)).toBe('It says hello.');
    // The second request carried the file's bytes as the tool result.
    const seen = results(provider.requests[1]!);
    expect(seen.map((m) => [m.outcome, m.content[0]])).toEqual([['ok', { type: 'text', text: 'hello from disk\n' }]]);
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'toolResult', 'assistant']);
  });

  it('orders a parallel batch: ends in completion order, result messages in call order, every event with its ids', async () => {
    const f = fixture();
    const c = collector();
    const provider = recording([
      { content: [{ type: 'text', text: 'Both.' }, call('wait', { ms: 60, tag: 'slow' }, 'a'), call('nope', {}, 'b'), call('wait', { ms: 1, tag: 'fast' }, 'c')] },
      'Done.',
    ]);
    const result = await runAgentLoop([userMessage('go')], { provider, model: 'm', runner: f.runner, onEvent: c.listener });
    expect(result.status).toBe('done');
    const turn1 = c.events.filter((e) => 'turnId' in e && e.turnId.endsWith(':1'));
    const brief = turn1.map((e) => {
      if (e.type === 'message_start' || e.type === 'message_end') return `${e.type}:${e.message.role}${e.message.role === 'toolResult' ? `:${e.message.toolCallId}` : ''}`;
      if (e.type.startsWith('tool_execution_') && 'toolCallId' in e) return `${e.type}:${e.toolCallId}`;
      return e.type;
    });
    expect(brief.filter((t) => !t.startsWith('message_update') && !t.startsWith('tool_decision'))).toEqual([
      'turn_start',
      'message_start:user',
      'message_end:user',
      'message_start:assistant',
      'message_end:assistant',
      'tool_execution_start:a',
      'tool_execution_start:b',
      'tool_execution_end:b',
      'tool_execution_start:c',
      'tool_execution_end:c',
      'tool_execution_end:a',
      'message_start:toolResult:a',
      'message_end:toolResult:a',
      'message_start:toolResult:b',
      'message_end:toolResult:b',
      'message_start:toolResult:c',
      'message_end:toolResult:c',
      'turn_end',
    ]);
    expect(brief).toContain('message_update');
    expect(c.types()[0]).toBe('agent_start');
    expect(c.types().at(-1)).toBe('agent_end');
    for (const e of c.events) expect(e.runId).toBe(result.runId);
    const messageIds = c.events.filter((e): e is Extract<AgentEvent, { type: 'message_end' }> => e.type === 'message_end').map((e) => e.messageId);
    expect(new Set(messageIds).size).toBe(messageIds.length);
    expect(results(result.messages).map((m) => [m.toolCallId, m.outcome])).toEqual([
      ['a', 'ok'],
      ['b', 'not_found'],
      ['c', 'ok'],
    ]);
  });
});

describe('queues', () => {
  it('delivers steering after the whole batch: no call is skipped, the model sees the message next', async () => {
    const f = fixture();
    const steering = new MessageQueue();
    const provider = recording([{ content: [call('wait', { ms: 1, tag: 'one' }), call('wait', { ms: 30, tag: 'two' }), call('wait', { ms: 5, tag: 'three' })] }, 'Understood.']);
    // The person types while the first call is running.
    const onEvent = (e: AgentEvent) => {
      if (e.type === 'tool_execution_start' && e.toolCallId === 'call_1_1') steering.push('use the tests folder');
    };
    const result = await runAgentLoop([userMessage('go')], { provider, model: 'm', runner: f.runner, steering, onEvent });
    expect(f.ran.wait).toBe(3);
    const second = provider.requests[1]!;
    expect(second.map((m) => m.role)).toEqual(['user', 'assistant', 'toolResult', 'toolResult', 'toolResult', 'user']);
    expect(results(second).map((m) => m.outcome)).toEqual(['ok', 'ok', 'ok']);
    expect((second.at(-1) as { content: string }).content).toBe('use the tests folder');
    expect(result.status).toBe('done');
  });

  it('delivers a follow-up only when the model would stop, then goes on', async () => {
    const f = fixture();
    const followUp = new MessageQueue();
    followUp.push('and now the summary');
    const provider = recording([{ content: [call('wait', { ms: 1 })] }, 'First answer.', 'Summary.']);
    const result = await runAgentLoop([userMessage('go')], { provider, model: 'm', runner: f.runner, followUp });
    expect(result.status).toBe('done');
    expect(result.turns).toBe(3);
    // Not in the second request (the model still had tool results to read), in the third.
    expect(provider.requests[1]!.some((m) => m.role === 'user' && m.content === 'and now the summary')).toBe(false);
    expect(provider.requests[2]!.at(-1)).toMatchObject({ role: 'user', content: 'and now the summary' });
    expect(textOf(result.finalMessage!)).toBe('Summary.');
  });
});

describe('abort', () => {
  it('mid-stream: the turn ends with stopReason aborted, the half-written call gets an aborted result and never runs', async () => {
    const f = fixture();
    const controller = new AbortController();
    const provider = recording([{ content: [{ type: 'text', text: 'Writing…' }, call('put', { path: 'x.txt', content: 'x' })] }, 'never']);
    const onEvent = (e: AgentEvent) => {
      if (e.type === 'message_update' && e.delta.type === 'text_delta') controller.abort();
    };
    const result = await runAgentLoop([userMessage('go')], { provider, model: 'm', runner: f.runner, signal: controller.signal, onEvent });
    expect(result.status).toBe('aborted');
    expect(provider.requests).toHaveLength(1);
    const assistant = result.messages.find((m) => m.role === 'assistant')!;
    expect(assistant).toMatchObject({ stopReason: 'aborted' });
    expect(existsSync(join(f.dir, 'x.txt'))).toBe(false);
    expect(f.ran.put).toBeUndefined();
  });

  it('an answer that arrived complete before the signal fired stands', async () => {
    const f = fixture();
    const controller = new AbortController();
    const onEvent = (e: AgentEvent) => {
      if (e.type === 'message_end' && e.message.role === 'assistant') controller.abort();
    };
    const result = await runAgentLoop([userMessage('go')], { provider: recording(['All done.']), model: 'm', runner: f.runner, signal: controller.signal, onEvent });
    expect(result.status).toBe('done');
    expect(textOf(result.finalMessage!)).toBe('All done.');
  });

  it('a provider that ignores the signal cannot hold the run: the stream is left and the turn ends aborted', async () => {
    const f = fixture();
    const controller = new AbortController();
    const stuck: ModelProvider = {
      id: 'stuck',
      async *stream(request) {
        const message = { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'partial' }], stopReason: 'stop' as const, provider: 'stuck', model: request.model, timestamp: 0 };
        yield { type: 'start', message };
        yield { type: 'text_delta', delta: 'partial', message };
        await new Promise(() => {}); // never ends
      },
    };
    setTimeout(() => controller.abort(), 30);
    const result = await runAgentLoop([userMessage('go')], { provider: stuck, model: 'm', runner: f.runner, signal: controller.signal });
    expect(result.status).toBe('aborted');
    expect(result.finalMessage).toMatchObject({ stopReason: 'aborted', content: [{ type: 'text', text: 'partial' }] });
  });

  it('mid-batch: every call gets a result (no holes), nothing is sent to the model afterwards', async () => {
    const f = fixture();
    const controller = new AbortController();
    const provider = recording([{ content: [call('wait', { ms: 1, tag: 'quick' }), call('wait', { ms: 5000 }), call('wait', { ms: 5000 }), call('nope', {})] }, 'never']);
    const onEvent = (e: AgentEvent) => {
      if (e.type === 'tool_execution_start' && e.toolCallId === 'call_1_3') setTimeout(() => controller.abort(), 20);
    };
    const started = Date.now();
    const result = await runAgentLoop([userMessage('go')], { provider, model: 'm', runner: f.runner, signal: controller.signal, onEvent });
    expect(Date.now() - started).toBeLessThan(scaledMs(4000, { below: 5000 }));
    expect(result.status).toBe('aborted');
    expect(provider.requests).toHaveLength(1);
    const r = results(result.messages);
    expect(r.map((m) => m.toolCallId)).toEqual(['call_1_1', 'call_1_2', 'call_1_3', 'call_1_4']);
    expect(r.map((m) => m.outcome)).toEqual(['ok', 'aborted', 'aborted', 'not_found']);
  });
});

describe('stopping', () => {
  it('terminate: a batch whose every result says terminate ends the run without another request', async () => {
    const f = fixture();
    const provider = recording([{ content: [call('stop', {}), call('stop', {})] }, 'never']);
    const result = await runAgentLoop([userMessage('go')], { provider, model: 'm', runner: f.runner });
    expect(result.status).toBe('terminated');
    expect(provider.requests).toHaveLength(1);
    expect(results(result.messages)).toHaveLength(2);
  });

  it('terminate needs every result: one ordinary call keeps the run going', async () => {
    const f = fixture();
    const provider = recording([{ content: [call('stop', {}), call('wait', { ms: 1 })] }, 'Next.']);
    const result = await runAgentLoop([userMessage('go')], { provider, model: 'm', runner: f.runner });
    expect(result.status).toBe('done');
    expect(provider.requests).toHaveLength(2);
  });

  it('the turn limit ends the run with a clear reason after running that turn\'s calls', async () => {
    const f = fixture();
    const provider = recording([{ content: [call('wait', { ms: 1 })] }, { content: [call('wait', { ms: 1 })] }, { content: [call('wait', { ms: 1 })] }, 'end']);
    const c = collector();
    const result = await runAgentLoop([userMessage('go')], { provider, model: 'm', runner: f.runner, maxTurns: 2, onEvent: c.listener });
    expect(result.status).toBe('turn_limit');
    expect(result.reason).toMatch(/turn limit \(2\)/);
    expect(result.reason).toMatch(/--max-turns/);
    expect(provider.requests).toHaveLength(2);
    expect(f.ran.wait).toBe(2);
    const end = c.events.at(-1)!;
    expect(end).toMatchObject({ type: 'agent_end', result: { status: 'turn_limit' } });
  });

  it('refuses a turn limit below 1', async () => {
    const f = fixture();
    await expect(runAgentLoop([userMessage('go')], { provider: recording(['x']), model: 'm', runner: f.runner, maxTurns: 0 })).rejects.toThrow(/maxTurns/);
  });

  it('length: the calls of a cut message are not executed; each gets an error result saying to retry shorter', async () => {
    const f = fixture();
    const provider = recording([{ content: [call('put', { path: 'cut.txt', content: 'half' }), call('cat', { path: 'a' })], stopReason: 'length' }, 'I will retry.']);
    const result = await runAgentLoop([userMessage('go')], { provider, model: 'm', runner: f.runner });
    expect(existsSync(join(f.dir, 'cut.txt'))).toBe(false);
    expect(f.ran).toEqual({});
    const r = results(result.messages);
    expect(r).toHaveLength(2);
    for (const m of r) {
      expect(m.isError).toBe(true);
      expect((m.content[0] as { text: string }).text).toMatch(/cut off.*Retry with a shorter call/s);
    }
    expect(result.status).toBe('done');
    expect(provider.requests).toHaveLength(2);
  });

  it('the calls of an unfinished message reach the kernel\'s tool_result hook (an audit log sees them); a runner without refuse answers them itself', async () => {
    const f = fixture();
    const audited: string[] = [];
    f.kernel.on('tool_result', (e) => void audited.push(`${e.toolCallId} ${e.outcome}`), { name: 'audit/results', phase: 'observe' });
    const cut = recording([{ content: [call('put', { path: 'cut.txt', content: 'half' }), call('cat', { path: 'a' })], stopReason: 'length' }, 'I will retry.']);
    await runAgentLoop([userMessage('go')], { provider: cut, model: 'm', runner: f.runner });
    const failed = recording([{ content: [call('cat', { path: 'a' })], stopReason: 'error', errorMessage: 'connection reset' }]);
    await runAgentLoop([userMessage('go')], { provider: failed, model: 'm', runner: f.runner });
    expect(audited).toEqual(['call_1_1 error', 'call_1_2 error', 'call_1_1 error']);
    expect(f.ran).toEqual({});

    const plain: ToolRunner = { tools: f.runner.tools, batch: f.runner.batch };
    audited.length = 0;
    const result = await runAgentLoop([userMessage('go')], { provider: recording([{ content: [call('cat', { path: 'a' })], stopReason: 'length' }, 'ok']), model: 'm', runner: plain });
    expect(audited).toEqual([]);
    expect(results(result.messages).map((m) => m.outcome)).toEqual(['error']);
  });

  it('a final answer cut for length fails the run', async () => {
    const f = fixture();
    const result = await runAgentLoop([userMessage('go')], { provider: recording([{ content: 'The answer is', stopReason: 'length' }]), model: 'm', runner: f.runner });
    expect(result.status).toBe('failed');
    expect(result.reason).toMatch(/cut off/);
  });

  it('a provider error ends the run as failed with its message; so does a script that ran out', async () => {
    const f = fixture();
    const failed = await runAgentLoop([userMessage('go')], { provider: recording([{ content: [], stopReason: 'error', errorMessage: 'HTTP 401: bad key' }]), model: 'm', runner: f.runner });
    expect(failed).toMatchObject({ status: 'failed', reason: 'HTTP 401: bad key' });
    const ranOut = await runAgentLoop([userMessage('go')], { provider: recording([{ content: [call('wait', { ms: 1 })] }]), model: 'script.jsonl', runner: f.runner });
    expect(ranOut.status).toBe('failed');
    expect(ranOut.reason).toMatch(/script\.jsonl has no reply for model request 2: it holds 1 message/);
  });

  it('a provider that throws fails the run with a message naming it', async () => {
    const f = fixture();
    const broken: ModelProvider = {
      id: 'broken',
      stream() {
        throw new Error('socket hang up');
      },
    };
    const result = await runAgentLoop([userMessage('go')], { provider: broken, model: 'm', runner: f.runner });
    expect(result).toMatchObject({ status: 'failed', reason: 'The model provider "broken" failed: socket hang up' });
  });
});

describe('a broken tool runner', () => {
  it('a runner that throws: every call still gets a result, the run ends failed saying why', async () => {
    const f = fixture();
    const runner = { tools: f.runner.tools, batch: async () => Promise.reject(new Error('host closed')) };
    const provider = recording([{ content: [call('wait', { ms: 1 }), call('cat', { path: 'a' })] }, 'never']);
    const result = await runAgentLoop([userMessage('go')], { provider, model: 'm', runner });
    expect(result).toMatchObject({ status: 'failed', reason: 'The tool runner failed: host closed' });
    expect(results(result.messages).map((m) => [m.toolCallId, m.outcome])).toEqual([
      ['call_1_1', 'error'],
      ['call_1_2', 'error'],
    ]);
    expect(provider.requests).toHaveLength(1);
  });

  it('a runner that loses a result: the call gets one anyway', async () => {
    const f = fixture();
    const runner = { tools: f.runner.tools, batch: async (calls: readonly { id: string }[], o: object) => {
      const r = await f.runner.batch(calls as never, o);
      return { messages: r.messages.slice(0, 1), terminate: false };
    } };
    const result = await runAgentLoop([userMessage('go')], { provider: recording([{ content: [call('wait', { ms: 1 }), call('wait', { ms: 1 })] }, 'ok']), model: 'm', runner });
    expect(results(result.messages).map((m) => m.outcome)).toEqual(['ok', 'error']);
  });
});

describe('malformed tool calls', () => {
  it('a call whose JSON did not parse is answered invalid by the kernel, in its words, and never runs', async () => {
    const f = fixture();
    const seen: string[] = [];
    f.kernel.on('tool_result', (e) => void seen.push(`${e.toolName}:${e.outcome}`), { name: 'test/audit', phase: 'observe' });
    const provider = recording([{ content: [{ type: 'toolCall', name: 'put', argumentsText: '{"path": "y.txt", "content": ' }] }, 'Retrying.']);
    const result = await runAgentLoop([userMessage('go')], { provider, model: 'm', runner: f.runner });
    const [r] = results(result.messages);
    expect(r!.outcome).toBe('invalid');
    expect((r!.content[0] as { text: string }).text).toMatch(/^Invalid arguments for tool "put": they are not valid JSON/);
    expect(seen).toEqual(['put:invalid']);
    expect(existsSync(join(f.dir, 'y.txt'))).toBe(false);
    expect(result.status).toBe('done');
  });
});

describe('usage and listeners', () => {
  it('keeps model usage and tool-reported usage apart', async () => {
    const f = fixture();
    const provider = recording([
      { content: [call('costly', {})], usage: { input: 10, output: 5, cost: 0.01 } },
      { content: 'ok', usage: { input: 20, output: 7, cacheRead: 3 } },
    ]);
    const result = await runAgentLoop([userMessage('go')], { provider, model: 'm', runner: f.runner });
    expect(result.usage.requests).toBe(2);
    expect(result.usage.model).toEqual({ input: 30, output: 12, cacheRead: 3, cacheWrite: 0, totalTokens: 42, cost: 0.01 });
    expect(result.usage.tools).toEqual({ input: 100, output: 40, cacheRead: 0, cacheWrite: 0, totalTokens: 140, cost: 0.5 });
  });

  it('a throwing or rejecting listener cannot break the run; its errors are reported', async () => {
    const f = fixture();
    writeFileSync(join(f.dir, 'a.txt'), 'x');
    const errors: unknown[] = [];
    const c = collector();
    const result = await runAgentLoop([userMessage('go')], {
      provider: recording([{ content: [call('cat', { path: 'a.txt' })] }, 'fine']),
      model: 'm',
      runner: f.runner,
      onEvent: [
        () => {
          throw new Error('listener bug');
        },
        async () => {
          throw new Error('async listener bug');
        },
        c.listener,
      ],
      onListenerError: (e) => errors.push(e),
    });
    await new Promise((r) => setImmediate(r));
    expect(result.status).toBe('done');
    expect(results(result.messages)[0]!.outcome).toBe('ok');
    // The listener after the throwing ones still got every event.
    expect(c.types()[0]).toBe('agent_start');
    expect(c.types().at(-1)).toBe('agent_end');
    expect(errors.length).toBe(2 * c.events.length);
  });
});

describe('activity for observers (the host’s agent-activity listeners)', () => {
  it('reports the run, each turn and each model request with its usage, and the ids of the calls the kernel then runs', async () => {
    const f = fixture();
    writeFileSync(join(f.dir, 'a.txt'), 'x');
    const activity: AgentActivity[] = [];
    const kernelEvents: string[] = [];
    f.services.activity.add((a) => void activity.push(a));
    f.kernel.onEvent((e) => {
      if (e.type === 'tool_execution_start') kernelEvents.push(`${e.type}:${e.toolCallId}:after-request-end=${activity.some((a) => a.type === 'model_request_end' && a.toolCallIds.includes(e.toolCallId))}`);
    });
    const provider = recording([
      { content: [call('cat', { path: 'a.txt' }, 'k1'), call('cat', { path: 'a.txt' }, 'k2')], usage: { input: 120, output: 30, cacheRead: 10 } },
      { content: [{ type: 'text', text: 'Done.' }], usage: { input: 200, output: 5 } },
    ]);
    const result = await runAgentLoop([userMessage('go')], { provider, model: 'm1', runner: f.runner });
    expect(result.status).toBe('done');
    const runId = result.runId;
    expect(activity.map((a) => a.type)).toEqual([
      'agent_start',
      'turn_start',
      'model_request_start',
      'model_request_end',
      'turn_end',
      'turn_start',
      'model_request_start',
      'model_request_end',
      'turn_end',
      'agent_end',
    ]);
    expect(activity[0]).toEqual({ type: 'agent_start', runId, provider: 'scripted', model: 'm1' });
    expect(activity[3]).toMatchObject({ type: 'model_request_end', runId, turnId: `${runId}:1`, stopReason: 'toolUse', toolCallIds: ['k1', 'k2'], usage: { input: 120, output: 30, cacheRead: 10 } });
    expect(activity[4]).toEqual({ type: 'turn_end', runId, turnId: `${runId}:1`, turn: 1, toolCalls: 2 });
    expect(activity[7]).toMatchObject({ stopReason: 'stop', toolCallIds: [] });
    expect(activity[9]).toMatchObject({ type: 'agent_end', runId, status: 'done', turns: 2, requests: 2, usage: { input: 320, output: 35, cacheRead: 10 } });
    // The kernel ran each call after the request that asked for it was reported, under the same id.
    expect(kernelEvents).toEqual(['tool_execution_start:k1:after-request-end=true', 'tool_execution_start:k2:after-request-end=true']);
    // No content: nothing the model or a tool said is in the activity.
    expect(JSON.stringify(activity)).not.toContain('a.txt');
  });

  it('an observer that throws breaks nothing: the run and the other listeners go on, and the error is reported', async () => {
    const f = fixture();
    const errors: unknown[] = [];
    const heard: string[] = [];
    const runner: ToolRunner = {
      ...kernelRunner(f.kernel),
      activity: (a) => {
        heard.push(a.type);
        if (a.type === 'turn_start') throw new Error('observer broke');
      },
    };
    const result = await runAgentLoop([userMessage('hi')], { provider: recording(['Hello.']), model: 'm', runner, onListenerError: (e) => void errors.push(e) });
    expect(result.status).toBe('done');
    expect(heard).toEqual(['agent_start', 'turn_start', 'model_request_start', 'model_request_end', 'turn_end', 'agent_end']);
    expect(errors.map((e) => (e as Error).message)).toEqual(['observer broke']);
  });
});

describe('the offered tools, request by request', () => {
  it('reads the runner’s tools at each request; a prompt function is asked again only when they changed, a string prompt never changes', async () => {
    const f = fixture();
    const all = f.runner.tools;
    let tools = all.filter((t) => t.name === 'cat');
    const runner: ToolRunner = { get tools() { return tools; }, batch: (calls, o) => f.runner.batch(calls, o) };
    writeFileSync(join(f.dir, 'a.txt'), 'x');
    const asked: string[][] = [];
    const provider = recording([
      { content: [call('cat', { path: 'a.txt' }, 'r1')] },
      { content: [call('cat', { path: 'a.txt' }, 'r2')] },
      'Done.',
    ]);
    const seenTools: string[][] = [];
    const watching: ModelProvider = { id: provider.id, stream: (request, signal) => (seenTools.push(request.tools.map((t) => t.name)), provider.stream(request, signal)) };
    // After the first batch the set grows (as when an MCP server behind the host adds a tool).
    f.kernel.onEvent((e) => void (e.type === 'tool_execution_end' && e.toolCallId === 'r1' && (tools = all.filter((t) => t.name === 'cat' || t.name === 'put'))));
    const result = await runAgentLoop([userMessage('go')], { provider: watching, model: 'm', runner, systemPrompt: (t) => (asked.push(t.map((x) => x.name)), `tools: ${t.map((x) => x.name).join(',')}`) });
    expect(result.status).toBe('done');
    expect(seenTools).toEqual([['cat'], ['cat', 'put'], ['cat', 'put']]);
    expect(asked).toEqual([['cat'], ['cat', 'put']]);

    const fixed: string[] = [];
    const again = recording(['Hi.']);
    await runAgentLoop([userMessage('hi')], { provider: { id: again.id, stream: (r, s) => (fixed.push(r.systemPrompt), again.stream(r, s)) }, model: 'm', runner, systemPrompt: 'mine' });
    expect(fixed).toEqual(['mine']);
  });
});
