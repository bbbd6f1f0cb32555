import Type from 'typebox';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { defineTool, type ToolContext } from '@airlock/contract';
import { createTestContext, createToolHarness } from '../src/testing/index.js';

/**
 * A tool's `execute` always gets its ToolContext: the contract says so, so tools carry no
 * "needs a ToolContext" check and a caller cannot forget it.
 */
const where = defineTool({
  name: 'where',
  label: 'Where',
  description: 'Say the folder the call runs in.',
  parameters: Type.Object({}),
  async execute(_id, _params, _signal, _onUpdate, ctx) {
    expectTypeOf(ctx).toEqualTypeOf<ToolContext>();
    return { content: [{ type: 'text', text: ctx.cwd }] };
  },
});

describe('AgentTool.execute: the context is required', () => {
  it('is typed as always present, and a call without one does not compile', async () => {
    // @ts-expect-error: the fifth argument, the ToolContext, is required
    const missing = () => where.execute('id', {}, undefined, undefined);
    void missing;
    const ctx = createTestContext({ cwd: '/somewhere' });
    const result = await where.execute('id', {}, undefined, undefined, ctx);
    expect(result.content).toEqual([{ type: 'text', text: '/somewhere' }]);
  });

  it('is given by the kernel on every call (through the harness)', async () => {
    const h = createToolHarness(where);
    try {
      const r = await h.call({});
      expect(r.outcome).toBe('ok');
      expect(h.text(r)).toBe(h.dir);
    } finally {
      await h.dispose();
    }
  });
});
