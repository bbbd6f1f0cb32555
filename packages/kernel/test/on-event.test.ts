import { describe, expect, it } from 'vitest';
import type { AgentActivity, KernelEvent, Logger, ToolResultEvent } from '@airlock/contract';
import { collect, echo, memoryLog, testKernel, text } from './helpers.js';
import { HostServices } from '@airlock/toolkit';


const call = (id: string, args: unknown = { text: id }) => ({ id, name: 'echo', arguments: args });

describe('kernel.onEvent: persistent listeners', () => {
  it('hears every call of every entry point, next to the run’s own sink, until it unsubscribes', async () => {
    const k = testKernel();
    k.registry.register(echo, { source: 'sdk' });
    const heard: KernelEvent[] = [];
    const off = k.onEvent((e) => void heard.push(e));
    const { events: sunk, sink } = collect();

    await k.executeToolCall(call('one'), { onEvent: sink });
    await k.executeBatch([call('two'), call('three')]);
    const ends = heard.filter((e) => e.type === 'tool_execution_end');
    expect(ends.map((e) => [e.toolCallId, e.result.outcome])).toEqual([
      ['one', 'ok'],
      ['two', 'ok'],
      ['three', 'ok'],
    ]);
    expect(heard.filter((e) => e.type === 'tool_execution_start').map((e) => e.toolCallId)).toEqual(['one', 'two', 'three']);
    // The run's own sink still gets its run's events, the same objects.
    expect(sunk.map((e) => e.type)).toEqual(heard.filter((e) => e.toolCallId === 'one').map((e) => e.type));

    off();
    off(); // twice is harmless
    const before = heard.length;
    const m = await k.executeBatch([call('four')]);
    expect(m.messages[0]!.outcome).toBe('ok');
    expect(heard.length).toBe(before);
  });

  it('the same function added twice hears each event twice; each unsubscribe takes back one', async () => {
    const k = testKernel();
    k.registry.register(echo, { source: 'sdk' });
    const ids: string[] = [];
    const listener = (e: KernelEvent) => void (e.type === 'tool_execution_end' && ids.push(e.toolCallId));
    const offA = k.onEvent(listener);
    k.onEvent(listener);
    await k.executeToolCall(call('a'));
    offA();
    await k.executeToolCall(call('b'));
    expect(ids).toEqual(['a', 'a', 'b']);
  });

  it('a listener that throws or rejects is logged and the call goes on; the other listeners still hear it', async () => {
    const log = memoryLog();
    const k = testKernel({ log });
    k.registry.register(echo, { source: 'sdk' });
    k.onEvent(() => {
      throw new Error('listener broke');
    });
    k.onEvent(async () => {
      throw new Error('listener rejected');
    });
    const ends: string[] = [];
    k.onEvent((e) => void (e.type === 'tool_execution_end' && ends.push(e.result.outcome)));

    const m = await k.executeToolCall(call('x', { text: 'still here' }));
    const { messages } = await k.executeBatch([call('y'), call('z', { nope: 1 })]);
    await new Promise((r) => setImmediate(r));

    expect(m.outcome).toBe('ok');
    expect(text(m)).toBe('still here');
    expect(messages.map((r) => r.outcome)).toEqual(['ok', 'invalid']);
    expect([...ends].sort()).toEqual(['invalid', 'ok', 'ok']);
    expect(log.warnings.some((w) => w.includes('event listener failed on tool_execution_start') && w.includes('listener broke'))).toBe(true);
    expect(log.warnings.some((w) => w.includes('listener rejected'))).toBe(true);
  });

  it('refuses a listener that is not a function, saying what it needs', () => {
    const k = testKernel();
    expect(() => k.onEvent('nope' as never)).toThrow(/kernel.onEvent needs a function, got string/);
  });
});

describe('HostServices.activity: what agent loops report, for extensions\' api.onAgentActivity', () => {
  it('every listener hears each report until it unsubscribes; one that throws is logged and the others still hear it', () => {
    const log = memoryLog();
    const activity = new HostServices(log).activity;
    const heard: AgentActivity[] = [];
    activity.add(() => {
      throw new Error('observer broke');
    });
    const off = activity.add((a) => void heard.push(a));
    activity.emit({ type: 'turn_start', runId: 'r', turnId: 'r:1', turn: 1 });
    off();
    activity.emit({ type: 'turn_end', runId: 'r', turnId: 'r:1', turn: 1, toolCalls: 0 });
    expect(heard).toEqual([{ type: 'turn_start', runId: 'r', turnId: 'r:1', turn: 1 }]);
    expect(log.warnings).toEqual([expect.stringMatching(/agent activity listener failed on turn_start.*observer broke/), expect.stringMatching(/failed on turn_end.*observer broke/)]);
    expect(() => activity.add(1 as never)).toThrow(/api.onAgentActivity needs a function, got number/);
  });
});

describe('the tool_result event carries the arguments as the model sent them', () => {
  it('rawArgs is what the model sent; args the final arguments (after a transform); an invalid call has only rawArgs', async () => {
    const k = testKernel();
    k.registry.register(echo, { source: 'sdk' });
    k.on('tool_call', (e) => ({ ...e.args, text: `${String(e.args.text)}!` }), { name: 'me/shout', phase: 'transform' });
    const seen: ToolResultEvent[] = [];
    k.on('tool_result', (e) => void seen.push(e), { name: 'me/audit', phase: 'observe' });

    const sent = { text: 'hi' };
    const invalid = { text: 42, extra: true };
    const { messages } = await k.executeBatch([call('ok', sent), call('bad', invalid), { id: 'gone', name: 'missing', arguments: { path: 'a' } }]);
    expect(messages.map((m) => m.outcome)).toEqual(['ok', 'invalid', 'not_found']);
    expect(text(messages[0]!)).toBe('hi!');

    const byId = Object.fromEntries(seen.map((e) => [e.toolCallId, e]));
    expect(byId.ok!.rawArgs).toEqual({ text: 'hi' });
    expect(byId.ok!.args).toEqual({ text: 'hi!' });
    expect(byId.bad!.rawArgs).toEqual({ text: 42, extra: true });
    expect(byId.bad!.args).toBeUndefined();
    expect(byId.gone!.rawArgs).toEqual({ path: 'a' });
    // Two calls of one batch with the same id each carry their own (no join by id).
    seen.length = 0;
    await k.executeBatch([call('dup', { text: 'first' }), call('dup', { text: 'second' })]);
    expect(seen.map((e) => e.rawArgs)).toEqual([{ text: 'first' }, { text: 'second' }]);
  });
});
