import { rm } from 'node:fs/promises';
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { defineTool, type KernelEvent } from '@airlock/contract';
import { MAX_VALUE_DEPTH } from '@airlock/toolkit/util';
import { type Kernel, type KernelOptions } from '../src/index.js';
import { nestsDeeperThan, previewJson } from '@airlock/toolkit/util';
import { echo, sleep, testKernel, text } from './helpers.js';
import { scaledMs } from '../src/testing/index.js';

/**
 * Values from a model (arguments) or a tool (results) nested so deep that a recursive walk over
 * them runs out of stack. The kernel refuses them once, at the boundary, with a clear outcome.
 */

const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => rm(k.session.cwd, { recursive: true, force: true })));
});
function kernel(options: KernelOptions = {}): Kernel {
  const k = testKernel(options);
  kernels.push(k);
  return k;
}

/** `{"a":{"a":…{"a":1}}}` nested `levels` objects deep, built without recursion. */
function nestedObject(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { a: 1 };
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}
function nestedArrayJson(levels: number): string {
  return `${'['.repeat(levels)}${']'.repeat(levels)}`;
}

/** Takes anything: the schema is `{data: unknown}`. */
const store = defineTool({
  name: 'store',
  label: 'Store',
  description: 'Keep any JSON value.',
  parameters: Type.Object({ data: Type.Unknown() }),
  async execute(_id, { data }) {
    return { content: [{ type: 'text', text: `stored ${JSON.stringify(data).length} chars` }] };
  },
});

function everyEventSerialises(events: KernelEvent[]): void {
  for (const event of events) expect(() => JSON.stringify(event)).not.toThrow();
}

describe('nestsDeeperThan: an iterative check, safe on any value', () => {
  it('counts objects and arrays, not primitives', () => {
    expect(nestsDeeperThan(1, 0)).toBe(false);
    expect(nestsDeeperThan({}, 0)).toBe(true);
    expect(nestsDeeperThan({}, 1)).toBe(false);
    expect(nestsDeeperThan({ a: [1, { b: 'x' }] }, 3)).toBe(false);
    expect(nestsDeeperThan({ a: [1, { b: 'x' }] }, 2)).toBe(true);
    expect(nestsDeeperThan(nestedObject(MAX_VALUE_DEPTH), MAX_VALUE_DEPTH)).toBe(false);
    expect(nestsDeeperThan(nestedObject(MAX_VALUE_DEPTH + 1), MAX_VALUE_DEPTH)).toBe(true);
  });

  it('200,000 levels: answers without running out of stack', () => {
    expect(nestsDeeperThan(JSON.parse(nestedArrayJson(200_000)), MAX_VALUE_DEPTH)).toBe(true);
  });

  it('a value that refers to itself counts as too deep; shared parts are not walked 2^n times', () => {
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(nestsDeeperThan(loop, MAX_VALUE_DEPTH)).toBe(true);
    // 90 levels, each holding the next one twice: 2^90 paths, 90 objects.
    let shared: unknown = 'leaf';
    for (let i = 0; i < 90; i++) shared = [shared, shared];
    const started = performance.now();
    expect(nestsDeeperThan(shared, MAX_VALUE_DEPTH)).toBe(false);
    expect(performance.now() - started).toBeLessThan(scaledMs(1000));
  });

  it('previewJson of a too-deep value says so instead of throwing', () => {
    expect(previewJson(JSON.parse(nestedArrayJson(200_000)))).toContain(`nests deeper than ${MAX_VALUE_DEPTH} levels`);
  });
});

describe('arguments nested too deep end as invalid, with a message about depth', () => {
  it('200,000 levels of arrays (an object the SDK passes): invalid, the tool never runs, events stay serialisable', async () => {
    const k = kernel();
    let ran = false;
    k.registry.register(defineTool({ ...store, execute: async () => ((ran = true), { content: [{ type: 'text', text: 'ran' }] }) }), { source: 'sdk' });
    const events: KernelEvent[] = [];
    const msg = await k.executeToolCall({ id: 'c', name: 'store', arguments: { data: JSON.parse(nestedArrayJson(200_000)) } }, { onEvent: (e) => void events.push(e) });
    expect(msg.outcome).toBe('invalid');
    expect(msg.isError).toBe(true);
    expect(text(msg)).toContain(`nest deeper than ${MAX_VALUE_DEPTH} levels`);
    expect(text(msg)).toContain('Flatten them');
    expect(text(msg)).not.toContain('Maximum call stack');
    expect(ran).toBe(false);
    expect(events.map((e) => e.type)).toEqual(['tool_execution_start', 'tool_execution_end']);
    everyEventSerialises(events);
  });

  it('the same depth sent as JSON text (as some providers do): invalid after parsing, not an internal error', async () => {
    const k = kernel();
    k.registry.register(store, { source: 'sdk' });
    const msg = await k.executeToolCall({ id: 'c', name: 'store', arguments: `{"data": ${nestedArrayJson(200_000)}}` });
    expect(msg.outcome).toBe('invalid');
    expect(text(msg)).toContain(`nest deeper than ${MAX_VALUE_DEPTH} levels`);
    expect(text(msg).length).toBeLessThan(1000);
  });

  it('in a batch: only the deep call is invalid, its neighbours run', async () => {
    const k = kernel();
    k.registry.register(store, { source: 'sdk' });
    k.registry.register(echo, { source: 'sdk' });
    const { messages } = await k.executeBatch([
      { id: '1', name: 'echo', arguments: { text: 'before' } },
      { id: '2', name: 'store', arguments: { data: nestedObject(5_000) } },
      { id: '3', name: 'echo', arguments: { text: 'after' } },
    ]);
    expect(messages.map((m) => m.outcome)).toEqual(['ok', 'invalid', 'ok']);
    expect(text(messages[0]!)).toBe('before');
    expect(text(messages[2]!)).toBe('after');
  });

  it('a compatibility shim that builds a deep value: invalid too', async () => {
    const k = kernel();
    k.registry.register(defineTool({ ...store, prepareArguments: () => ({ data: nestedObject(50_000) }) }), { source: 'sdk' });
    const msg = await k.executeToolCall({ id: 'c', name: 'store', arguments: { data: 1 } });
    expect(msg.outcome).toBe('invalid');
    expect(text(msg)).toContain(`nest deeper than ${MAX_VALUE_DEPTH} levels`);
  });

  it('a transform handler that returns deep arguments: the call is denied (the handler failed closed), nothing runs', async () => {
    const k = kernel();
    let ran = false;
    k.registry.register(defineTool({ ...store, execute: async () => ((ran = true), { content: [{ type: 'text', text: 'ran' }] }) }), { source: 'sdk' });
    k.on('tool_call', () => ({ data: nestedObject(50_000) }), { name: 'ext/deepen', phase: 'transform' });
    const msg = await k.executeToolCall({ id: 'c', name: 'store', arguments: { data: 1 } });
    expect(msg.outcome).toBe('denied');
    expect(text(msg)).toContain('ext/deepen');
    expect(text(msg)).toContain(`deeper than ${MAX_VALUE_DEPTH} levels`);
    expect(ran).toBe(false);
  });

  it('ordinary nesting (the limit itself) still runs', async () => {
    const k = kernel();
    k.registry.register(store, { source: 'sdk' });
    const msg = await k.executeToolCall({ id: 'c', name: 'store', arguments: { data: nestedObject(MAX_VALUE_DEPTH - 1) } });
    expect(msg.outcome).toBe('ok');
    expect(text(msg)).toMatch(/^stored \d+ chars$/);
  });
});

describe('other values a walk would meet: resources, approvals', () => {
  it('resources() with a deep extra field: the call ends as error (the tool declared them badly), not an internal error', async () => {
    const k = kernel();
    k.registry.register(defineTool({ ...store, resources: () => [{ kind: 'fs.read', path: 'a', extra: nestedObject(50_000) } as never] }), { source: 'sdk' });
    const events: KernelEvent[] = [];
    const msg = await k.executeToolCall({ id: 'c', name: 'store', arguments: { data: 1 } }, { onEvent: (e) => void events.push(e) });
    expect(msg.outcome).toBe('error');
    expect(text(msg)).toContain('declared its resources in a shape policy cannot read');
    everyEventSerialises(events);
  });

  it('an approver answering with a non-string `by` fails closed (denied), and the decision event serialises', async () => {
    const k = kernel();
    k.registry.register(store, { source: 'sdk' });
    k.on('tool_call', () => ({ effect: 'ask' }), { name: 'p/ask', phase: 'authorize' });
    k.on('tool_call', () => ({ effect: 'allow', by: nestedObject(50_000) }) as never, { name: 'p/approve', phase: 'approve' });
    const events: KernelEvent[] = [];
    const msg = await k.executeToolCall({ id: 'c', name: 'store', arguments: { data: 1 } }, { onEvent: (e) => void events.push(e) });
    expect(msg.outcome).toBe('denied');
    expect(text(msg)).toContain('p/approve');
    everyEventSerialises(events);
  });
});

describe('a tool whose result nests too deep', () => {
  const deepDetails = defineTool({
    name: 'deep',
    label: 'Deep',
    description: 'Returns deep details.',
    parameters: Type.Object({ levels: Type.Integer() }),
    async execute(_id, { levels }, _signal, onUpdate) {
      onUpdate?.({ content: [{ type: 'text', text: 'partial' }], details: nestedObject(levels) });
      await sleep(5);
      return { content: [{ type: 'text', text: 'secret-free output' }], details: nestedObject(levels) };
    },
  });

  it('ends as error (a malformed result), the pipeline and its observers survive, every event serialises', async () => {
    const k = kernel({ updateThrottleMs: 0 });
    k.registry.register(deepDetails, { source: 'sdk' });
    const observed: unknown[] = [];
    k.on('tool_result', (e) => void observed.push(JSON.stringify(e.details) ?? 'none'), { name: 'audit/see', phase: 'observe' });
    k.on('tool_result', (e) => ({ content: [...e.content] }), { name: 'scrub/all', phase: 'redact' });
    const events: KernelEvent[] = [];
    const msg = await k.executeToolCall({ id: 'c', name: 'deep', arguments: { levels: 100_000 } }, { onEvent: (e) => void events.push(e) });
    expect(msg.outcome).toBe('error');
    expect(text(msg)).toContain(`nest deeper than ${MAX_VALUE_DEPTH} levels`);
    expect(msg.details).toBeUndefined();
    expect(observed).toEqual(['none']);
    // The deep partial was dropped, not forwarded.
    expect(events.filter((e) => e.type === 'tool_execution_update')).toEqual([]);
    everyEventSerialises(events);
    expect(() => JSON.stringify(msg)).not.toThrow();
  });

  it('a deep value in another field (usage) is caught too: error, and the message serialises', async () => {
    const k = kernel();
    k.registry.register(
      defineTool({ ...store, execute: async () => ({ content: [{ type: 'text', text: 'x' }], usage: { input: 1, output: 1, extra: nestedObject(50_000) } as never }) }),
      { source: 'sdk' },
    );
    const msg = await k.executeToolCall({ id: 'c', name: 'store', arguments: { data: 1 } });
    expect(msg.outcome).toBe('error');
    expect(msg.usage).toBeUndefined();
    expect(() => JSON.stringify(msg)).not.toThrow();
  });

  it('details of ordinary depth pass through unchanged', async () => {
    const k = kernel({ updateThrottleMs: 0 });
    k.registry.register(deepDetails, { source: 'sdk' });
    const events: KernelEvent[] = [];
    const msg = await k.executeToolCall({ id: 'c', name: 'deep', arguments: { levels: 3 } }, { onEvent: (e) => void events.push(e) });
    expect(msg.outcome).toBe('ok');
    expect(msg.details).toEqual({ a: { a: { a: 1 } } });
    expect(events.filter((e) => e.type === 'tool_execution_update')).toHaveLength(1);
  });
});
