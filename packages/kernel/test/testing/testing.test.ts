import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { defineTool } from '../../src/index.js';
import { createTestContext, createToolHarness } from '../../src/testing/index.js';

const shout = defineTool({
  name: 'shout',
  label: 'Shout',
  description: 'Upper-case the text; spills it when long.',
  parameters: Type.Object({ text: Type.String() }),
  async execute(_id, { text }, _s, _u, ctx) {
    const head = ctx!.truncate.head(text.toUpperCase(), { maxLines: 1 });
    const spilled = head.truncated ? await ctx!.spill(text.toUpperCase(), { name: 'shout' }) : undefined;
    ctx!.log.info('shouted', { lines: head.totalLines });
    return { content: [{ type: 'text', text: head.content + (spilled ? `\n[full: ${spilled.path}]` : '') }] };
  },
});

describe('@airlock/kernel/testing', () => {
  it('createTestContext records spills and logs in memory', async () => {
    const ctx = createTestContext();
    const result = await shout.execute('id', { text: 'a\nb' }, undefined, undefined, ctx);
    const path = /\[full: (.+)\]/.exec((result.content[0] as { text: string }).text)![1]!;
    expect(ctx.spills.get(path)).toBe('A\nB');
    expect(ctx.logs).toEqual([{ level: 'info', message: 'shouted', data: { lines: 2 } }]);
    expect(ctx.ui.interactive).toBe(false);
  });

  it('createToolHarness runs calls through the real pipeline', async () => {
    const h = createToolHarness(shout);
    const ok = await h.call({ text: 'hi' });
    expect(ok.outcome).toBe('ok');
    expect(h.text(ok)).toBe('HI');
    expect(ok.events.map((e) => e.type)).toEqual(['tool_execution_start', 'tool_decision', 'tool_execution_end']);
    const bad = await h.call({ txt: 'hi' });
    expect(bad.outcome).toBe('invalid');
    expect(h.text(bad)).toContain('text: is required');
  });
});
