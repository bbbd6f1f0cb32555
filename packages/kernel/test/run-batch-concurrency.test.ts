import { readFileSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { defineTool } from '@airlock/contract';
import { collect, sleep, testKernel } from './helpers.js';

describe('executeBatch: parallel calls really overlap', () => {
  it('the second call runs while the first is blocked on it', async () => {
    const kernel = testKernel();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    kernel.registry.register(
      defineTool({ name: 'wait', label: 'W', description: 'd', parameters: Type.Object({}), resources: () => [], execute: async () => (await gate, { content: [{ type: 'text', text: 'waited' }] }) }),
      { source: 'sdk' },
    );
    kernel.registry.register(
      defineTool({ name: 'open', label: 'O', description: 'd', parameters: Type.Object({}), resources: () => [], execute: async () => (release(), { content: [{ type: 'text', text: 'opened' }] }) }),
      { source: 'sdk' },
    );
    const { messages } = await kernel.executeBatch([
      { id: '1', name: 'wait', arguments: {} },
      { id: '2', name: 'open', arguments: {} },
    ]);
    expect(messages.map((m) => m.outcome)).toEqual(['ok', 'ok']);
  });

  it('a late update from one call is dropped while its sibling is still running', async () => {
    const kernel = testKernel({ updateThrottleMs: 0 });
    let late!: () => void;
    kernel.registry.register(
      defineTool({
        name: 'quick',
        label: 'Q',
        description: 'd',
        parameters: Type.Object({}),
        async execute(_id, _p, _s, onUpdate) {
          late = () => onUpdate?.({ content: [{ type: 'text', text: 'after the end' }] });
          return { content: [{ type: 'text', text: 'quick done' }] };
        },
      }),
      { source: 'sdk' },
    );
    kernel.registry.register(
      defineTool({
        name: 'slow',
        label: 'S',
        description: 'd',
        parameters: Type.Object({}),
        async execute() {
          await sleep(10);
          late();
          await sleep(10);
          return { content: [{ type: 'text', text: 'slow done' }] };
        },
      }),
      { source: 'sdk' },
    );
    const { of, sink } = collect();
    await kernel.executeBatch(
      [
        { id: 'q', name: 'quick', arguments: {} },
        { id: 's', name: 'slow', arguments: {} },
      ],
      { onEvent: sink },
    );
    expect(of('tool_execution_update')).toEqual([]);
  });
});

describe('executeBatch: the mutation queue through ToolContext', () => {
  const appendTool = defineTool({
    name: 'append',
    label: 'Append',
    description: 'Append a line (read, wait, write).',
    parameters: Type.Object({ path: Type.String(), line: Type.String() }),
    async execute(_id, { path, line }, _signal, _u, ctx) {
      await ctx!.withFileMutation(path, async () => {
        const file = join(ctx!.cwd, path);
        const before = await readFile(file, 'utf8');
        await sleep(Math.random() * 3);
        await writeFile(file, `${before}${line}\n`);
      });
      return { content: [{ type: 'text', text: 'appended' }] };
    },
  });

  it('parallel read-modify-write calls on one file in one batch lose nothing, in call order', async () => {
    const kernel = testKernel();
    kernel.registry.register(appendTool, { source: 'sdk' });
    writeFileSync(join(kernel.session.cwd, 'log.txt'), '');
    const batch = Array.from({ length: 20 }, (_, i) => ({ id: `a${i}`, name: 'append', arguments: { path: i % 2 ? 'log.txt' : `./log.txt`, line: `line ${i}` } }));
    const { messages } = await kernel.executeBatch(batch, { maxConcurrency: 20 });
    expect(messages.every((m) => m.outcome === 'ok')).toBe(true);
    expect(readFileSync(join(kernel.session.cwd, 'log.txt'), 'utf8')).toBe(batch.map((_, i) => `line ${i}\n`).join(''));
  });
});
