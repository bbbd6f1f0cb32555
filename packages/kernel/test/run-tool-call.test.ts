import { readFileSync } from 'node:fs';
import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { DEFAULT_IMAGE_LIMITS, NOTICE_ROOM } from '@airlock/toolkit';
import { defineTool, type ToolContext } from '@airlock/contract';
import { type ImageResizer, type KernelOptions, type ResizeRequest } from '../src/index.js';
import { collect, echo, testKernel, text } from './helpers.js';

describe('executeToolCall: every outcome becomes a result message', () => {
  it('ok: runs the tool and returns its content and details', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    const msg = await kernel.executeToolCall({ id: 'c1', name: 'echo', arguments: { text: 'hi', times: 2 } });
    expect(msg).toMatchObject({ role: 'toolResult', toolCallId: 'c1', toolName: 'echo', outcome: 'ok', isError: false, details: { length: 2 } });
    expect(text(msg)).toBe('hihi');
    expect(typeof msg.timestamp).toBe('number');
  });

  it('not_found: names the closest enabled tools and lists what is available', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    const msg = await kernel.executeToolCall({ id: 'c1', name: 'ecoh', arguments: {} });
    expect(msg.outcome).toBe('not_found');
    expect(msg.isError).toBe(true);
    expect(text(msg)).toContain('Tool "ecoh" not found');
    expect(text(msg)).toContain('Did you mean: echo?');
    expect(text(msg)).toContain('Available tools: echo.');
  });

  it('not_found: a huge or odd name from the model is echoed short and quoted', async () => {
    const kernel = testKernel();
    const msg = await kernel.executeToolCall({ id: 'c', name: `x"${'y'.repeat(5000)}`, arguments: {} });
    expect(text(msg).length).toBeLessThan(300);
    expect(text(msg)).toContain('Tool "x\\"yyy');
  });

  it('a provider-safe name (as sent to OpenAI, Anthropic, Gemini or MCP) reaches its tool', async () => {
    const kernel = testKernel();
    kernel.registry.register(defineTool({ ...echo, name: 'mcp:notes/echo' }), { source: 'sdk' });
    const msg = await kernel.executeToolCall({ id: 'c', name: 'mcp_notes_echo', arguments: { text: 'via alias' } });
    expect(msg).toMatchObject({ outcome: 'ok', toolName: 'mcp_notes_echo' });
    expect(text(msg)).toBe('via alias');
  });

  it('policy sees the registered name when the model used an alias, so rules cannot be sidestepped', async () => {
    const kernel = testKernel();
    kernel.registry.register(defineTool({ ...echo, name: 'mcp:notes/echo' }), { source: 'sdk' });
    kernel.on('tool_call', (e) => (e.toolName === 'mcp:notes/echo' ? { effect: 'deny', reason: 'no notes' } : undefined), { name: 'p/notes', phase: 'authorize' });
    const msg = await kernel.executeToolCall({ id: 'c', name: 'mcp_notes_echo', arguments: { text: 'x' } });
    expect(msg.outcome).toBe('denied');
  });

  it('an alias two tools share leads nowhere rather than to a guess', async () => {
    const kernel = testKernel();
    kernel.registry.register(defineTool({ ...echo, name: 'a:b' }), { source: 'sdk' });
    kernel.registry.register(defineTool({ ...echo, name: 'a/b' }), { source: 'sdk' });
    expect((await kernel.executeToolCall({ id: 'c', name: 'a_b', arguments: { text: 'x' } })).outcome).toBe('not_found');
  });

  it('not_found: a registered but excluded tool says why it is not available', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'builtin' });
    const msg = await kernel.executeToolCall({ id: 'c1', name: 'echo', arguments: { text: 'x' } }, { tools: { excludeTools: ['echo'] } });
    expect(msg.outcome).toBe('not_found');
    expect(text(msg)).toMatch(/not available in this session/);
    expect(text(msg)).toContain('No tools are enabled');
  });

  it('invalid: names every bad path and echoes the arguments received', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    const msg = await kernel.executeToolCall({ id: 'c1', name: 'echo', arguments: { times: 0, extra: true } });
    expect(msg.outcome).toBe('invalid');
    const t = text(msg);
    expect(t).toContain('Invalid arguments for tool "echo"');
    expect(t).toContain('text: missing; expected a string');
    expect(t).toContain('times: expected an integer ≥ 1, got 0');
    expect(t).toContain('extra: unknown parameter "extra". Known parameters: text, times.');
    expect(t).toContain('"extra": true');
  });

  it('invalid: reports every bad item, past the schema library’s default cap of 8', async () => {
    const kernel = testKernel();
    kernel.registry.register(
      defineTool({
        name: 'tags',
        label: 'Tags',
        description: 'd',
        parameters: Type.Object({ tags: Type.Array(Type.String()) }),
        execute: async () => ({ content: [] }),
      }),
      { source: 'sdk' },
    );
    const msg = await kernel.executeToolCall({ id: 'c', name: 'tags', arguments: { tags: Array.from({ length: 12 }, (_, i) => ({ i })) } });
    for (let i = 0; i < 12; i++) expect(text(msg)).toContain(`tags[${i}]: expected a string, got an object`);
  });

  it('invalid: literal unions list the allowed values', async () => {
    const kernel = testKernel();
    kernel.registry.register(
      defineTool({
        name: 'mode',
        label: 'Mode',
        description: 'd',
        parameters: Type.Object({ mode: Type.Union([Type.Literal('fast'), Type.Literal('slow')]) }),
        execute: async () => ({ content: [] }),
      }),
      { source: 'sdk' },
    );
    const msg = await kernel.executeToolCall({ id: 'c', name: 'mode', arguments: { mode: 'medium' } });
    expect(text(msg)).toContain('mode: expected "fast" or "slow", got "medium"');
  });

  it('coerces on a copy: "2" becomes 2 for the tool, the model’s message is untouched', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    const args = { text: 'a', times: '3' };
    const msg = await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: args });
    expect(text(msg)).toBe('aaa');
    expect(args.times).toBe('3');
  });

  // The rule for argument types (docs/kernel.md, "Argument types"): a string that spells a number
  // or a boolean is read as one, at any depth; nothing else changes type, so the model is told.
  describe('argument types: strings that spell a number or a boolean are read as one, nothing else converts', () => {
    const typed = defineTool({
      name: 'typed',
      label: 'Typed',
      description: 'd',
      parameters: Type.Object({
        path: Type.Optional(Type.String()),
        n: Type.Optional(Type.Number()),
        count: Type.Optional(Type.Integer()),
        flag: Type.Optional(Type.Boolean()),
        lines: Type.Optional(Type.Array(Type.Integer())),
        range: Type.Optional(Type.Object({ from: Type.Integer(), to: Type.Integer() })),
        tags: Type.Optional(Type.Array(Type.String())),
      }),
      execute: async (_id, params) => ({ content: [{ type: 'text', text: JSON.stringify(params) }] }),
    });
    const accepted: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ count: '7' }, { count: 7 }],
      [{ n: '-2.5e3' }, { n: -2500 }],
      [{ flag: 'true' }, { flag: true }],
      [{ flag: 'false', count: '0' }, { flag: false, count: 0 }],
      [{ lines: ['1', 2, '3'] }, { lines: [1, 2, 3] }],
      [{ range: { from: '1', to: '9' } }, { range: { from: 1, to: 9 } }],
      [{ path: '7' }, { path: '7' }],
    ];
    for (const [sent, seen] of accepted) {
      it(`${JSON.stringify(sent)} runs as ${JSON.stringify(seen)}, and the model's message is untouched`, async () => {
        const kernel = testKernel();
        kernel.registry.register(typed, { source: 'sdk' });
        const copy = structuredClone(sent);
        const msg = await kernel.executeToolCall({ id: 'c', name: 'typed', arguments: sent });
        expect(msg.outcome, text(msg)).toBe('ok');
        expect(JSON.parse(text(msg))).toEqual(seen);
        expect(sent).toEqual(copy);
      });
    }
    const refused: [Record<string, unknown>, string][] = [
      [{ path: 7 }, 'path: expected a string, got 7'],
      [{ path: true }, 'path: expected a string, got true'],
      [{ path: null }, 'path: expected a string, got null'],
      [{ count: '' }, 'count: expected an integer, got ""'],
      [{ count: ' 7' }, 'count: expected an integer, got " 7"'],
      [{ count: '0x10' }, 'count: expected an integer, got "0x10"'],
      [{ count: '2.5' }, 'count: expected an integer, got "2.5"'],
      [{ count: true }, 'count: expected an integer, got true'],
      [{ count: null }, 'count: expected an integer, got null'],
      [{ n: 'Infinity' }, 'n: expected a number, got "Infinity"'],
      [{ n: '1e999' }, 'n: expected a number, got "1e999"'],
      [{ flag: '1' }, 'flag: expected true or false, got "1"'],
      [{ flag: 'TRUE' }, 'flag: expected true or false, got "TRUE"'],
      [{ flag: 0 }, 'flag: expected true or false, got 0'],
      [{ tags: 'x' }, 'tags: expected a list of strings, got "x"'],
      [{ lines: ['1', 'two'] }, 'lines[1]: expected an integer, got "two"'],
      [{ range: { from: '1', to: 'end' } }, 'range.to: expected an integer, got "end"'],
    ];
    for (const [sent, problem] of refused) {
      it(`${JSON.stringify(sent)} is invalid: ${problem}`, async () => {
        const kernel = testKernel();
        let ran = false;
        kernel.registry.register(defineTool({ ...typed, execute: async () => ((ran = true), { content: [] }) }), { source: 'sdk' });
        const msg = await kernel.executeToolCall({ id: 'c', name: 'typed', arguments: sent });
        expect(msg.outcome).toBe('invalid');
        expect(text(msg)).toContain(problem);
        expect(ran).toBe(false);
      });
    }
  });

  it('applies schema defaults', async () => {
    const kernel = testKernel();
    let seen: unknown;
    kernel.registry.register(
      defineTool({
        name: 'd',
        label: 'D',
        description: 'd',
        parameters: Type.Object({ limit: Type.Optional(Type.Integer({ default: 100 })) }),
        execute: async (_id, params) => {
          seen = params;
          return { content: [{ type: 'text', text: 'ok' }] };
        },
      }),
      { source: 'sdk' },
    );
    await kernel.executeToolCall({ id: 'c', name: 'd', arguments: {} });
    expect(seen).toEqual({ limit: 100 });
  });

  it('accepts arguments sent as a JSON string, and says so when the string is not JSON', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    expect(text(await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: '{"text":"j"}' }))).toBe('j');
    const bad = await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: '{"text":' });
    expect(bad.outcome).toBe('invalid');
    expect(text(bad)).toContain('not valid JSON');
  });

  it('prepareArguments runs before validation; if it throws the outcome is invalid', async () => {
    const kernel = testKernel();
    kernel.registry.register(
      defineTool({
        name: 'legacy',
        label: 'L',
        description: 'd',
        parameters: Type.Object({ items: Type.Array(Type.String()) }),
        prepareArguments(raw) {
          const r = raw as Record<string, unknown>;
          if (r.boom) throw new Error('cannot read boom');
          return typeof r.item === 'string' ? { items: [r.item] } : r;
        },
        execute: async (_id, { items }) => ({ content: [{ type: 'text', text: items.join(',') }] }),
      }),
      { source: 'sdk' },
    );
    const raw = { item: 'x' };
    expect(text(await kernel.executeToolCall({ id: 'c', name: 'legacy', arguments: raw }))).toBe('x');
    expect(raw).toEqual({ item: 'x' });
    const bad = await kernel.executeToolCall({ id: 'c', name: 'legacy', arguments: { boom: 1 } });
    expect(bad.outcome).toBe('invalid');
    expect(text(bad)).toContain('cannot read boom');
  });

  it('error: a throw becomes an isError result carrying the message', async () => {
    const kernel = testKernel();
    kernel.registry.register(
      defineTool({ name: 'boom', label: 'B', description: 'd', parameters: Type.Object({}), execute: async () => { throw new Error('disk full'); } }),
      { source: 'sdk' },
    );
    const msg = await kernel.executeToolCall({ id: 'c', name: 'boom', arguments: {} });
    expect(msg).toMatchObject({ outcome: 'error', isError: true });
    expect(text(msg)).toBe('disk full');
  });

  it('error: a tool that returns a malformed result gets a clear error, not a corrupt transcript', async () => {
    const kernel = testKernel();
    kernel.registry.register(
      defineTool({ name: 'bad', label: 'B', description: 'd', parameters: Type.Object({}), execute: async () => ({ content: [{ type: 'text', text: 5 }] }) as never }),
      { source: 'sdk' },
    );
    const msg = await kernel.executeToolCall({ id: 'c', name: 'bad', arguments: {} });
    expect(msg.outcome).toBe('error');
    expect(text(msg)).toContain('content[0] is not');
  });

  it('a result with isError: true and no throw is an error outcome', async () => {
    const kernel = testKernel();
    kernel.registry.register(
      defineTool({ name: 'soft', label: 'S', description: 'd', parameters: Type.Object({}), execute: async () => ({ content: [{ type: 'text', text: 'nope' }], isError: true }) }),
      { source: 'sdk' },
    );
    expect(await kernel.executeToolCall({ id: 'c', name: 'soft', arguments: {} })).toMatchObject({ outcome: 'error', isError: true });
  });

  it('empty content becomes "(no output)"', async () => {
    const kernel = testKernel();
    kernel.registry.register(
      defineTool({ name: 'quiet', label: 'Q', description: 'd', parameters: Type.Object({}), execute: async () => ({ content: [{ type: 'text', text: '  ' }] }) }),
      { source: 'sdk' },
    );
    expect(text(await kernel.executeToolCall({ id: 'c', name: 'quiet', arguments: {} }))).toBe('(no output)');
  });

  it('timeout: a call over its time limit is aborted and reported as timeout', async () => {
    const kernel = testKernel();
    let sawAbort = false;
    kernel.registry.register(
      defineTool({
        name: 'slow',
        label: 'S',
        description: 'd',
        parameters: Type.Object({}),
        execute: (_id, _p, signal) =>
          new Promise((_, reject) =>
            signal!.addEventListener('abort', () => {
              sawAbort = true;
              reject(new Error('stopped'));
            }),
          ),
      }),
      { source: 'sdk' },
    );
    const msg = await kernel.executeToolCall({ id: 'c', name: 'slow', arguments: {} }, { timeoutMs: 30 });
    expect(sawAbort).toBe(true);
    expect(msg).toMatchObject({ outcome: 'timeout', isError: true });
    expect(text(msg)).toMatch(/longer than 30 ms/);
  });

  it('a tool that ignores abort still yields a result after the grace period', async () => {
    const kernel = testKernel({ execution: { graceMs: 20 } });
    kernel.registry.register(
      defineTool({ name: 'stuck', label: 'S', description: 'd', parameters: Type.Object({}), execute: () => new Promise(() => {}) }),
      { source: 'sdk' },
    );
    const controller = new AbortController();
    const pending = kernel.executeToolCall({ id: 'c', name: 'stuck', arguments: {} }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    const msg = await pending;
    expect(msg.outcome).toBe('aborted');
    expect(text(msg)).toMatch(/may still be running/);
  });

  it('counts a call given up on as stuck until its tool settles (a host then knows it cannot exit cleanly)', async () => {
    const kernel = testKernel({ execution: { graceMs: 20 } });
    let release!: () => void;
    kernel.registry.register(
      defineTool({
        name: 'late', label: 'L', description: 'd', parameters: Type.Object({}),
        execute: () => new Promise((resolve) => (release = () => resolve({ content: [] }))),
      }),
      { source: 'sdk' },
    );
    expect(kernel.status().stuckCalls).toBe(0);
    const msg = await kernel.executeToolCall({ id: 'c', name: 'late', arguments: {} }, { timeoutMs: 10 });
    expect(msg.outcome).toBe('timeout');
    expect(kernel.status().stuckCalls).toBe(1);
    release();
    await new Promise((r) => setTimeout(r, 0));
    expect(kernel.status().stuckCalls).toBe(0);
  });

  it('aborted before start: the tool never runs', async () => {
    const kernel = testKernel();
    let ran = false;
    kernel.registry.register(
      defineTool({ name: 't', label: 'T', description: 'd', parameters: Type.Object({}), execute: async () => { ran = true; return { content: [] }; } }),
      { source: 'sdk' },
    );
    const msg = await kernel.executeToolCall({ id: 'c', name: 't', arguments: {} }, { signal: AbortSignal.abort() });
    expect(msg.outcome).toBe('aborted');
    expect(ran).toBe(false);
  });

  it('aborted while the call is being decided (at its start event, in a transform, in an authorize vote): the tool never runs, whoever started it', async () => {
    type Entry = (kernel: ReturnType<typeof testKernel>, signal: AbortSignal) => Promise<string[]>;
    const entries: Record<string, Entry> = {
      executeToolCall: async (k, signal) => [(await k.executeToolCall({ id: 'c', name: 't', arguments: {} }, { signal })).outcome],
      'a batch of one': async (k, signal) => (await k.executeBatch([{ id: 'c', name: 't', arguments: {} }], { signal })).messages.map((m) => m.outcome),
      'a batch of two': async (k, signal) =>
        (await k.executeBatch([{ id: 'c', name: 't', arguments: {} }, { id: 'd', name: 't', arguments: {} }], { signal })).messages.map((m) => m.outcome),
    };
    const moments = ['start event', 'transform', 'authorize'] as const;
    const seen: string[] = [];
    for (const [entry, run] of Object.entries(entries)) {
      for (const moment of moments) {
        const kernel = testKernel();
        let ran = 0;
        kernel.registry.register(
          defineTool({ name: 't', label: 'T', description: 'd', parameters: Type.Object({}), execute: async () => { ran++; return { content: [{ type: 'text', text: 'side effect' }] }; } }),
          { source: 'sdk' },
        );
        const controller = new AbortController();
        // After the abort each handler awaits, as a real one would (a prompt, a file read).
        if (moment === 'start event') kernel.onEvent((e) => void (e.type === 'tool_execution_start' && controller.abort()));
        if (moment === 'transform') kernel.on('tool_call', async () => { controller.abort(); await Promise.resolve(); return undefined; }, { name: 'x/t', phase: 'transform' });
        if (moment === 'authorize') kernel.on('tool_call', async () => { controller.abort(); await Promise.resolve(); return { effect: 'allow' }; }, { name: 'x/a', phase: 'authorize' });
        const outcomes = await run(kernel, controller.signal);
        seen.push(`${entry} / ${moment}: ${outcomes.join(',')} ran=${ran}`);
      }
    }
    const calls: Record<string, string> = { executeToolCall: 'aborted', 'a batch of one': 'aborted', 'a batch of two': 'aborted,aborted' };
    expect(seen).toEqual(Object.entries(calls).flatMap(([entry, outcomes]) => moments.map((moment) => `${entry} / ${moment}: ${outcomes} ran=0`)));
  });

  it('hands tools a context with cwd, limits, spill, the mutation queue and truncation helpers', async () => {
    const kernel = testKernel({ sessionId: 'sess-1' });
    let ctx: ToolContext | undefined;
    kernel.registry.register(
      defineTool({
        name: 'ctx',
        label: 'C',
        description: 'd',
        parameters: Type.Object({}),
        execute: async (_id, _p, _s, _u, c) => {
          ctx = c;
          const info = await c!.spill('full text', { name: 'ctx' });
          const inQueue = await c!.withFileMutation('a.txt', async () => 'locked');
          return { content: [{ type: 'text', text: `${info.path}\n${inQueue}\n${c!.truncate.head('a\nb\nc', { maxLines: 2 }).content}` }] };
        },
      }),
      { source: 'sdk' },
    );
    const msg = await kernel.executeToolCall({ id: 'call-9', name: 'ctx', arguments: {} });
    const [path, locked, head] = text(msg).split('\n');
    expect(readFileSync(path!, 'utf8')).toBe('full text');
    expect(locked).toBe('locked');
    expect(head).toBe('a');
    expect(ctx).toMatchObject({ cwd: kernel.session.cwd, sessionId: 'sess-1', toolCallId: 'call-9', limits: { maxLines: 2000, maxBytes: 51200 } });
    expect(ctx!.ui.interactive).toBe(false);
  });

  it('backstop: oversized text from any tool is cut to the limits and the full output spilled', async () => {
    const kernel = testKernel({ limits: { maxLines: 10, maxBytes: 1000 } });
    const full = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n');
    kernel.registry.register(
      defineTool({ name: 'flood', label: 'F', description: 'd', parameters: Type.Object({}), execute: async () => ({ content: [{ type: 'text', text: full }] }) }),
      { source: 'extension' },
    );
    const msg = await kernel.executeToolCall({ id: 'c', name: 'flood', arguments: {} });
    const t = text(msg);
    expect(t.startsWith('line 1\n')).toBe(true);
    expect(t).toContain('line 10');
    expect(t).not.toContain('line 11\n');
    const notice = msg.content.at(-1) as { text: string };
    expect(notice.text).toMatch(/^\[Showing lines 1-10 of 50/);
    const path = /Full output: (\S+) /.exec(notice.text)![1]!;
    expect(readFileSync(path, 'utf8')).toBe(full);
  });

  describe('backstop: a tool that limited its own output keeps its notice', () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n');
    const run = async (execute: (ctx: ToolContext) => Promise<{ content: { type: 'text'; text: string }[]; limited?: boolean }>) => {
      const kernel = testKernel({ limits: { maxLines: 10, maxBytes: 1000 } });
      kernel.registry.register(
        defineTool({ name: 'own', label: 'O', description: 'd', parameters: Type.Object({}), execute: (_id, _p, _s, _u, ctx) => execute(ctx!) }),
        { source: 'extension' },
      );
      return text(await kernel.executeToolCall({ id: 'c', name: 'own', arguments: {} }));
    };

    it('third-party tool cutting with ctx.truncate: its 10 lines and notice stay, with no spill', async () => {
      const t = await run(async (ctx) => {
        const cut = ctx.truncate.head(lines(50));
        return { content: [{ type: 'text', text: `${cut.content}\n[Showing lines 1-${cut.outputLines} of ${cut.totalLines}. Use offset=11 to continue.]` }] };
      });
      expect(t).toBe(`${lines(10)}\n\n[Showing lines 1-10 of 50. Use offset=11 to continue.]`);
    });

    it('a tool that says limited: true keeps its notice over the byte limit too', async () => {
      const body = 'x'.repeat(99).concat('\n').repeat(10); // 1000 bytes: the whole byte limit
      const notice = '[Showing lines 1-10 of 500 (1000B limit). Use offset=11 to continue.]';
      const t = await run(async () => ({ content: [{ type: 'text', text: `${body}\n${notice}` }], limited: true }));
      expect(t).toBe(`${body}\n${notice}`);
    });

    it('the same output without the flag is cut again (the backstop still guards unlimited output)', async () => {
      const body = 'x'.repeat(99).concat('\n').repeat(10);
      const t = await run(async () => ({ content: [{ type: 'text', text: `${body}\n[Showing lines 1-10 of 500.]` }] }));
      expect(t).toMatch(/Full output: /);
      expect(t).not.toContain('of 500.]');
    });

    it('a flag is no licence to flood: past the notice room the backstop cuts a limited result too', async () => {
      const t = await run(async () => ({ content: [{ type: 'text', text: lines(10 + NOTICE_ROOM.lines + 1) }], limited: true }));
      expect(t).toMatch(/^\[Showing lines 1-10 of 19: tool output is limited to 10 lines/m);
      expect(t).not.toContain('line 11\n');
    });

    it('a ctx.truncate that cut nothing does not mark the call', async () => {
      const t = await run(async (ctx) => {
        const kept = ctx.truncate.head('small').content;
        return { content: [{ type: 'text', text: `${kept}\n${lines(12)}` }] };
      });
      expect(t).toMatch(/Full output: /);
    });
  });

  it('images: sniffed by bytes; a wrong MIME label is corrected; non-images and blocked images become notes', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 2, 0, 0, 0, 3, 8, 6, 0, 0, 0]).toString('base64');
    const tool = defineTool({
      name: 'img',
      label: 'I',
      description: 'd',
      parameters: Type.Object({}),
      execute: async () => ({
        content: [
          { type: 'image', data: png, mimeType: 'image/jpeg' },
          { type: 'image', data: Buffer.from('not an image at all').toString('base64'), mimeType: 'image/png' },
        ],
      }),
    });
    const open = testKernel();
    open.registry.register(tool, { source: 'sdk' });
    const a = await open.executeToolCall({ id: 'c', name: 'img', arguments: {} });
    expect(a.content[0]).toEqual({ type: 'image', data: png, mimeType: 'image/png' });
    expect(a.content[1]).toMatchObject({ type: 'text' });
    expect(text(a)).toContain('not a PNG, JPEG, GIF or WebP image');

    const blocked = testKernel({ images: { blockImages: true } });
    blocked.registry.register(tool, { source: 'sdk' });
    const b = await blocked.executeToolCall({ id: 'c', name: 'img', arguments: {} });
    expect(b.content.every((c) => c.type === 'text')).toBe(true);
    expect(text(b)).toContain('images.blockImages');

    const blind = testKernel({ images: { imageInput: false } });
    blind.registry.register(tool, { source: 'sdk' });
    expect(text(await blind.executeToolCall({ id: 'c', name: 'img', arguments: {} }))).toContain('does not accept images');
  });

  it('images: a TIFF or AVIF goes to the resizer to become PNG; without one it is a note that says what to do', async () => {
    const tiff = Buffer.from([0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0, 0, 0, 0, 0]).toString('base64');
    const avif = Buffer.from([0, 0, 0, 0x1c, ...Buffer.from('ftypavif'), 0, 0, 0, 0]).toString('base64');
    const tool = defineTool({
      name: 'img',
      label: 'I',
      description: 'd',
      parameters: Type.Object({}),
      execute: async () => ({ content: [{ type: 'image', data: tiff, mimeType: 'image/png' }, { type: 'image', data: avif, mimeType: 'image/avif' }] }),
    });
    const asked: string[] = [];
    const converting = testKernel({
      images: {
        resize: async (image) => {
          asked.push(image.mimeType);
          return [{ type: 'text', text: `converted ${image.mimeType}` }];
        },
      },
    });
    converting.registry.register(tool, { source: 'sdk' });
    expect(text(await converting.executeToolCall({ id: 'c', name: 'img', arguments: {} }))).toBe('converted image/tiff\nconverted image/avif');
    expect(asked).toEqual(['image/tiff', 'image/avif']);

    const plain = testKernel();
    plain.registry.register(tool, { source: 'sdk' });
    const note = text(await plain.executeToolCall({ id: 'c', name: 'img', arguments: {} }));
    expect(note).toContain('models take no TIFF');
    expect(note).toContain('models take no AVIF');
    expect(note).toContain('convert in.tiff out.png');
  });

  it('images: only an image over the limits goes to the host’s resizer; without one it becomes a note', async () => {
    // A PNG signature and IHDR chunk stating the size: enough for the kernel's header check.
    const pngOf = (width: number, height: number, padding = 0) => {
      const head = Buffer.alloc(24 + padding);
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]).copy(head);
      head.write('IHDR', 12, 'latin1');
      head.writeUInt32BE(width, 16);
      head.writeUInt32BE(height, 20);
      return head.toString('base64');
    };
    const imageTool = (data: string) =>
      defineTool({ name: 'img', label: 'I', description: 'd', parameters: Type.Object({}), execute: async () => ({ content: [{ type: 'image', data, mimeType: 'image/png' }] }) });
    const seen: ResizeRequest[] = [];
    const resize: ImageResizer = async (image, request) => {
      seen.push(request);
      return [{ ...image, data: pngOf(2000, 50) }, { type: 'text', text: 'scaled by 0.5' }];
    };
    const run = async (data: string, images: NonNullable<KernelOptions['images']>) => {
      const kernel = testKernel({ images });
      kernel.registry.register(imageTool(data), { source: 'sdk' });
      return kernel.executeToolCall({ id: 'c', name: 'img', arguments: {} });
    };

    const small = await run(pngOf(800, 600), { resize });
    expect(small.content).toEqual([{ type: 'image', data: pngOf(800, 600), mimeType: 'image/png' }]);
    expect(seen).toEqual([]);

    const wide = await run(pngOf(4000, 100), { resize });
    expect(wide.content).toEqual([{ type: 'image', data: pngOf(2000, 50), mimeType: 'image/png' }, { type: 'text', text: 'scaled by 0.5' }]);
    expect(seen[0]).toMatchObject({ maxDimension: 2000, maxBytes: DEFAULT_IMAGE_LIMITS.maxBytes, info: { width: 4000, height: 100, mime: 'image/png' } });

    // Within the pixel limit but over a byte limit of 2 KiB.
    await run(pngOf(100, 100, 4096), { resize, maxBytes: 2048 });
    expect(seen[1]).toMatchObject({ maxBytes: 2048, info: { width: 100 } });

    const off = await run(pngOf(4000, 100), {});
    expect(off.content.every((c) => c.type === 'text')).toBe(true);
    expect(text(off)).toContain('over the image limits (2000x2000 px');
    expect(text(off)).toContain('images.autoResize');
    expect(text(off)).toContain('4000x100');

    const failing = await run(pngOf(4000, 100), { resize: async () => { throw new Error('decoder choked'); } });
    expect(text(failing)).toContain('could not be resized: decoder choked');
  });

  it('emits start, decision and end events for one call', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    const { events, sink } = collect();
    await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } }, { onEvent: sink });
    expect(events.map((e) => e.type)).toEqual(['tool_execution_start', 'tool_decision', 'tool_execution_end']);
  });

  it('a broken event sink never breaks the call', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    const msg = await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } }, { onEvent: () => { throw new Error('ui crashed'); } });
    expect(msg.outcome).toBe('ok');
  });
});
