import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { defineTool } from '@airlock/contract';
import { createTestContext, createToolHarness, makeTempDir } from '../../src/testing/index.js';

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
    expect(h.text(bad)).toContain('text: missing; expected a string');
  });
});

// Tests in one file run one after another: each test below checks what the one before it left.
describe('@airlock/kernel/testing cleans up after itself', () => {
  // Made outside any test: only dispose() removes it.
  const outside = createToolHarness(shout);
  const made: Record<string, string> = {};

  it('a harness made in a test keeps its folder (cwd, spills) while the test runs', async () => {
    const h = createToolHarness(shout);
    made.harness = h.dir;
    const r = await h.call({ text: 'a\nb' });
    const spilled = /\[full: (.+)\]/.exec(h.text(r))![1]!;
    expect(spilled.startsWith(h.dir)).toBe(true);
    expect(existsSync(spilled)).toBe(true);
    expect(h.kernel.session.cwd).toBe(h.dir);
  });

  it('... and its folder is gone once that test finished', () => {
    expect(made.harness).toBeDefined();
    expect(existsSync(made.harness!)).toBe(false);
  });

  it('makeTempDir: a fresh private folder, also removed at the end of the test when parts are locked', () => {
    const dir = makeTempDir('airlock-testing-');
    made.temp = dir;
    mkdirSync(join(dir, 'locked/deeper'), { recursive: true });
    writeFileSync(join(dir, 'locked/deeper/f.txt'), 'x');
    chmodSync(join(dir, 'locked/deeper'), 0o000);
    chmodSync(join(dir, 'locked'), 0o000);
    expect(existsSync(dir)).toBe(true);
  });

  it('... and it is gone', () => {
    expect(made.temp).toBeDefined();
    expect(existsSync(made.temp!)).toBe(false);
  });

  it('dispose() and Symbol.asyncDispose remove the folder at once; twice is fine', async () => {
    const h = createToolHarness(shout);
    expect(existsSync(h.dir)).toBe(true);
    await h[Symbol.asyncDispose]();
    expect(existsSync(h.dir)).toBe(false);
    await h.dispose();
    expect(existsSync(outside.dir)).toBe(true);
    await outside.dispose();
    expect(existsSync(outside.dir)).toBe(false);
  });
});
