import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { defineTool, type ToolCall } from '@airlock/contract';
import { collect, delayTool, echo, sleep, testKernel, text } from './helpers.js';

const calls = (specs: [string, Record<string, unknown>][]): ToolCall[] => specs.map(([name, args], i) => ({ id: `c${i}`, name, arguments: args }));

describe('executeBatch: order and concurrency', () => {
  it('preflights one call at a time in source order, before any call executes', async () => {
    const kernel = testKernel();
    const log: string[] = [];
    kernel.registry.register(delayTool(log), { source: 'sdk' });
    kernel.on(
      'tool_call',
      async (e) => {
        log.push(`check ${e.args.tag as string}`);
        await sleep(5);
        log.push(`checked ${e.args.tag as string}`);
        return undefined;
      },
      { name: 'p/slow', phase: 'authorize' },
    );
    await kernel.executeBatch(calls([['delay', { ms: 5, tag: 'a' }], ['delay', { ms: 5, tag: 'b' }], ['delay', { ms: 5, tag: 'c' }]]));
    expect(log.slice(0, 6)).toEqual(['check a', 'checked a', 'check b', 'checked b', 'check c', 'checked c']);
    expect(log.slice(6).sort()).toEqual(['end a', 'end b', 'end c', 'start a', 'start b', 'start c']);
  });

  it('runs at most maxConcurrency calls at once', async () => {
    const kernel = testKernel();
    let running = 0;
    let peak = 0;
    kernel.registry.register(
      defineTool({
        name: 'work',
        label: 'W',
        description: 'd',
        parameters: Type.Object({}),
        resources: () => [],
        async execute() {
          peak = Math.max(peak, ++running);
          await sleep(3);
          running--;
          return { content: [{ type: 'text', text: 'ok' }] };
        },
      }),
      { source: 'sdk' },
    );
    const batch = Array.from({ length: 20 }, (_, i) => ({ id: `w${i}`, name: 'work', arguments: {} }));
    await kernel.executeBatch(batch, { maxConcurrency: 3 });
    expect(peak).toBe(3);
    peak = 0;
    await kernel.executeBatch(batch);
    expect(peak).toBe(8);
  });

  it('end events follow completion order, result messages follow source order', async () => {
    const kernel = testKernel();
    kernel.registry.register(delayTool(), { source: 'sdk' });
    const { of, sink } = collect();
    const { messages } = await kernel.executeBatch(
      calls([['delay', { ms: 40, tag: 'slow' }], ['nope', {}], ['delay', { ms: 1, tag: 'fast' }]]),
      { onEvent: sink },
    );
    expect(messages.map((m) => m.toolCallId)).toEqual(['c0', 'c1', 'c2']);
    expect(messages.map((m) => m.outcome)).toEqual(['ok', 'not_found', 'ok']);
    expect(of('tool_execution_start').map((e) => e.toolCallId)).toEqual(['c0', 'c1', 'c2']);
    expect(of('tool_execution_end').map((e) => e.toolCallId)).toEqual(['c1', 'c2', 'c0']);
  });

  it('a sequential tool makes the whole batch sequential: each call is decided after the previous ran', async () => {
    const kernel = testKernel();
    const log: string[] = [];
    kernel.registry.register(delayTool(log), { source: 'sdk' });
    kernel.registry.register(defineTool({ ...echo, name: 'seq', executionMode: 'sequential' }), { source: 'sdk' });
    kernel.on('tool_call', (e) => void log.push(`decide ${e.toolName}`), { name: 'p/log', phase: 'observe' });
    await kernel.executeBatch(calls([['delay', { ms: 10, tag: 'a' }], ['seq', { text: 'x' }], ['delay', { ms: 1, tag: 'b' }]]));
    expect(log).toEqual(['decide delay', 'start a', 'end a', 'decide seq', 'decide delay', 'start b', 'end b']);
  });

  it('executionMode: "sequential" in the options does the same', async () => {
    const kernel = testKernel();
    const log: string[] = [];
    kernel.registry.register(delayTool(log), { source: 'sdk' });
    await kernel.executeBatch(calls([['delay', { ms: 15, tag: 'a' }], ['delay', { ms: 1, tag: 'b' }]]), { executionMode: 'sequential' });
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b']);
  });

  it('gives every raw call a result, even without an id or a name', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    const { messages } = await kernel.executeBatch([null, { name: 'echo', arguments: { text: 'x' } }, { id: 'z' }] as never);
    expect(messages.map((m) => [m.toolCallId, m.outcome])).toEqual([
      ['call_0', 'not_found'],
      ['call_1', 'ok'],
      ['z', 'not_found'],
    ]);
    expect(text(messages[0]!)).toContain('(no name given)');
  });
});

describe('executeBatch: updates', () => {
  const chatty = (count: number, gapMs: number, lateUpdate?: { fire?: () => void }) =>
    defineTool({
      name: 'chatty',
      label: 'C',
      description: 'd',
      parameters: Type.Object({}),
      async execute(_id, _p, _s, onUpdate) {
        for (let i = 1; i <= count; i++) {
          onUpdate?.({ content: [{ type: 'text', text: `progress ${i} token=sk-live-123` }] });
          if (gapMs) await sleep(gapMs);
        }
        if (lateUpdate) lateUpdate.fire = () => onUpdate?.({ content: [{ type: 'text', text: 'too late' }] });
        return { content: [{ type: 'text', text: 'done' }] };
      },
    });

  it('forwards updates throttled: the first at once, then at most one per interval', async () => {
    const kernel = testKernel({ updateThrottleMs: 50 });
    kernel.registry.register(chatty(60, 2), { source: 'sdk' });
    const { of, sink } = collect();
    const started = performance.now();
    await kernel.executeBatch([{ id: 'u', name: 'chatty', arguments: {} }], { onEvent: sink });
    const elapsed = performance.now() - started;
    const updates = of('tool_execution_update');
    expect(updates.length).toBeGreaterThanOrEqual(2);
    expect(updates.length).toBeLessThanOrEqual(Math.ceil(elapsed / 50) + 1);
    expect((updates[0]!.partial.content[0] as { text: string }).text).toContain('progress 1');
  });

  it('the latest partial reaches observers before the end, however soon the tool ended, with or without redactors', async () => {
    for (const redacted of [false, true]) {
      // A long interval: every partial after the first waits for a timer the tool's end overtakes.
      const kernel = testKernel({ updateThrottleMs: 10_000 });
      kernel.registry.register(chatty(5, 1), { source: 'sdk' });
      if (redacted) {
        kernel.on(
          'tool_result',
          async (e) => {
            await sleep(5);
            return { content: e.content.map((c) => (c.type === 'text' ? { ...c, text: c.text.replace(/sk-live-\w+/g, '[REDACTED]') } : c)) };
          },
          { name: 'redact/keys', phase: 'redact' },
        );
      }
      const { events, sink } = collect();
      await kernel.executeBatch([{ id: 'u', name: 'chatty', arguments: {} }], { onEvent: sink });
      const seen = events.filter((e) => e.type === 'tool_execution_update' || e.type === 'tool_execution_end').map((e) => (e.type === 'tool_execution_end' ? 'end' : (e.partial.content[0] as { text: string }).text));
      const token = redacted ? '[REDACTED]' : 'sk-live-123';
      expect(seen, String(redacted)).toEqual([`progress 1 token=${token}`, `progress 5 token=${token}`, 'end']);
    }
  });

  it('drops updates that arrive after the call settled', async () => {
    const kernel = testKernel({ updateThrottleMs: 0 });
    const late: { fire?: () => void } = {};
    kernel.registry.register(chatty(1, 0, late), { source: 'sdk' });
    const { of, sink } = collect();
    await kernel.executeBatch([{ id: 'u', name: 'chatty', arguments: {} }], { onEvent: sink });
    late.fire!();
    await sleep(5);
    expect(of('tool_execution_update').map((u) => (u.partial.content[0] as { text: string }).text)).not.toContain('too late');
    const types = collect();
    void types;
  });

  it('redactors also see streamed partials, so secrets never leak through updates', async () => {
    const kernel = testKernel({ updateThrottleMs: 0 });
    kernel.registry.register(chatty(3, 1), { source: 'sdk' });
    const partialFlags: boolean[] = [];
    kernel.on(
      'tool_result',
      async (e) => {
        partialFlags.push(e.partial);
        return { content: e.content.map((c) => (c.type === 'text' ? { ...c, text: c.text.replace(/sk-live-\w+/g, '[REDACTED]') } : c)) };
      },
      { name: 'redact/keys', phase: 'redact' },
    );
    const { of, sink } = collect();
    await kernel.executeBatch([{ id: 'u', name: 'chatty', arguments: {} }], { onEvent: sink });
    const updates = of('tool_execution_update');
    expect(updates.length).toBeGreaterThan(0);
    for (const u of updates) expect(JSON.stringify(u.partial)).not.toContain('sk-live');
    expect(partialFlags).toContain(true);
    expect(partialFlags.at(-1)).toBe(false);
  });
});

describe('executeBatch: abort', () => {
  it('after an abort every call of the batch still gets a result, with start and end events', async () => {
    const kernel = testKernel();
    kernel.registry.register(delayTool(), { source: 'sdk' });
    const controller = new AbortController();
    const { of, sink } = collect();
    const pending = kernel.executeBatch(
      Array.from({ length: 6 }, (_, i) => ({ id: `a${i}`, name: 'delay', arguments: { ms: 1000, tag: `t${i}` } })),
      { signal: controller.signal, onEvent: sink, maxConcurrency: 2 },
    );
    setTimeout(() => controller.abort(), 20);
    const { messages } = await pending;
    expect(messages).toHaveLength(6);
    expect(messages.every((m) => m.outcome === 'aborted' && m.isError)).toBe(true);
    expect(of('tool_execution_end')).toHaveLength(6);
    expect(text(messages[0]!)).toContain('t0 stopped');
    expect(text(messages[5]!)).toContain('aborted before');
  });

  it('an abort during preflight (a pending approval) gives the remaining calls aborted results', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    kernel.on('tool_call', (e) => (e.args.text === 'ask' ? { effect: 'ask' } : undefined), { name: 'p/ask', phase: 'authorize' });
    kernel.on('tool_call', () => new Promise<undefined>(() => {}), { name: 'tty/approve', phase: 'approve' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 15);
    const { messages } = await kernel.executeBatch(calls([['echo', { text: 'fine' }], ['echo', { text: 'ask' }], ['echo', { text: 'later' }]]), { signal: controller.signal });
    expect(messages.map((m) => m.outcome)).toEqual(['aborted', 'aborted', 'aborted']);
  });

  it('100 concurrent calls that listen to their signal raise no MaxListenersExceededWarning', async () => {
    const kernel = testKernel();
    kernel.registry.register(delayTool(), { source: 'sdk' });
    const warnings: Error[] = [];
    const onWarning = (w: Error): void => void warnings.push(w);
    process.on('warning', onWarning);
    try {
      const controller = new AbortController();
      const batch = Array.from({ length: 100 }, (_, i) => ({ id: `m${i}`, name: 'delay', arguments: { ms: 5, tag: `${i}` } }));
      const { messages } = await kernel.executeBatch(batch, { signal: controller.signal, maxConcurrency: 100 });
      expect(messages.every((m) => m.outcome === 'ok')).toBe(true);
      await sleep(10);
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });
});

describe('executeBatch: which signal a tool gets', () => {
  const probe = (seen: (AbortSignal | undefined)[]) =>
    defineTool({ name: 'probe', label: 'P', description: 'd', parameters: Type.Object({}), execute: async (_id, _p, signal) => (seen.push(signal), { content: [{ type: 'text', text: 'ok' }] }) });

  it('no caller signal: no signal (nothing can abort the run, and nothing leaks listeners)', async () => {
    const kernel = testKernel();
    const seen: (AbortSignal | undefined)[] = [];
    kernel.registry.register(probe(seen), { source: 'sdk' });
    await kernel.executeBatch(calls([['probe', {}], ['probe', {}]]));
    expect(seen).toEqual([undefined, undefined]);
  });

  it('one call: the caller’s own signal; several calls: one shared internal signal that follows it', async () => {
    const kernel = testKernel();
    const seen: (AbortSignal | undefined)[] = [];
    kernel.registry.register(probe(seen), { source: 'sdk' });
    const controller = new AbortController();
    await kernel.executeToolCall({ id: 'x', name: 'probe', arguments: {} }, { signal: controller.signal });
    expect(seen[0]).toBe(controller.signal);
    await kernel.executeBatch(calls([['probe', {}], ['probe', {}]]), { signal: controller.signal });
    expect(seen[1]).not.toBe(controller.signal);
    expect(seen[2]).toBe(seen[1]);
    controller.abort();
    expect(seen[1]!.aborted).toBe(false);
  });
});

describe('executeBatch: terminate', () => {
  const stopper = defineTool({
    name: 'stop',
    label: 'S',
    description: 'd',
    parameters: Type.Object({ terminate: Type.Boolean() }),
    execute: async (_id, { terminate }) => ({ content: [{ type: 'text', text: 'ok' }], terminate }),
  });

  it('ends the run only when every result sets terminate', async () => {
    const kernel = testKernel();
    kernel.registry.register(stopper, { source: 'sdk' });
    expect((await kernel.executeBatch(calls([['stop', { terminate: true }], ['stop', { terminate: true }]]))).terminate).toBe(true);
    expect((await kernel.executeBatch(calls([['stop', { terminate: true }], ['stop', { terminate: false }]]))).terminate).toBe(false);
    expect((await kernel.executeBatch(calls([['stop', { terminate: true }], ['missing', {}]]))).terminate).toBe(false);
    expect((await kernel.executeBatch([])).terminate).toBe(false);
  });

  it('a tool_result handler can set terminate on any outcome, even a denied call', async () => {
    const kernel = testKernel();
    kernel.registry.register(stopper, { source: 'sdk' });
    kernel.on('tool_call', () => ({ effect: 'deny' }), { name: 'p/no', phase: 'authorize' });
    kernel.on('tool_result', () => ({ terminate: true }), { name: 't/stop', phase: 'transform' });
    const result = await kernel.executeBatch(calls([['stop', { terminate: false }]]));
    expect(result.messages[0]!.outcome).toBe('denied');
    expect(result.terminate).toBe(true);
  });
});
