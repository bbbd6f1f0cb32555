import { renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import Type from 'typebox';
import { defineTool, type JudgedFile } from '@airlock/contract';
import { testKernel } from './helpers.js';

/**
 * ctx.judged(): what each file resource was when the policy judged it, recorded by the kernel,
 * so a tool (a third party's included) can open exactly that without remembering anything.
 */
describe('ToolContext.judged', () => {
  it('lists the file resources in order, as they were when judged: a file replaced afterwards is not what it names', async () => {
    const k = testKernel(); // its folder is removed when the test ends
    const a = join(k.session.cwd, 'a.txt');
    writeFileSync(a, 'judged');
    const judgedInode = statSync(a).ino;
    let seen: readonly JudgedFile[] = [];
    k.registry.register(
      defineTool({
        name: 'peek',
        label: 'Peek',
        description: 'Looks at a file.',
        parameters: Type.Object({}),
        resources: () => [
          { kind: 'fs.read', path: 'a.txt' },
          { kind: 'net', host: 'example.com' },
          { kind: 'fs.write', path: join(k.session.cwd, 'missing', 'b.txt') },
        ],
        async execute(_id, _args, _signal, _update, ctx) {
          seen = ctx.judged();
          return { content: [{ type: 'text', text: 'ok' }] };
        },
      }),
      { source: 'sdk' },
    );
    // Between the judgement and execute, another program puts a different file at the name.
    k.on(
      'tool_call',
      () => {
        writeFileSync(`${a}.new`, 'planted');
        renameSync(`${a}.new`, a);
      },
      { name: 'test/swapper', phase: 'observe' },
    );
    const m = await k.executeToolCall({ id: '1', name: 'peek', arguments: {} });
    expect(m.outcome).toBe('ok');
    expect(seen.map((j) => j.path)).toEqual([a, join(k.session.cwd, 'missing', 'b.txt')]);
    expect(seen[0]!.file?.ino).toBe(judgedInode);
    expect(statSync(a).ino).not.toBe(judgedInode);
    expect(seen[1]).toMatchObject({ file: undefined, folder: undefined });
    expect(Object.isFrozen(seen)).toBe(true);
  });

  it('is empty for a tool that declares no files', async () => {
    const k = testKernel();
    let seen: readonly JudgedFile[] | undefined;
    k.registry.register(defineTool({ name: 'noop', label: 'Noop', description: 'Nothing.', parameters: Type.Object({}), async execute(_id, _a, _s, _u, ctx) { seen = ctx.judged(); return { content: [] }; } }), { source: 'sdk' });
    await k.executeToolCall({ id: '1', name: 'noop', arguments: {} });
    expect(seen).toEqual([]);
  });
});
