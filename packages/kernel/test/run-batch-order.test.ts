import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import Type from 'typebox';
import { beforeEach, describe, expect, it } from 'vitest';
import { defineTool, type Resource } from '@airlock/contract';
import { type Kernel } from '../src/index.js';
import { collect, sleep, testKernel, text } from './helpers.js';

/**
 * A batch keeps the model's order where it matters: calls that touch the same file run in source
 * order when one of them writes, whatever their timing; calls that touch different files still run
 * side by side. Real files on disk; the tools sleep to make the wrong order the likely one.
 */

let kernel: Kernel;
let work: string;
/** `start <id>` / `end <id>` as the tools ran. */
let log: string[];

const startedBeforeEnded = (first: string, second: string) => log.indexOf(`start ${second}`) < log.indexOf(`end ${first}`);
const ranAfter = (first: string, second: string) => log.indexOf(`end ${first}`) < log.indexOf(`start ${second}`);

/** A gate that opens once `count` calls have arrived: proof they were running at the same time. */
function meeting(count: number) {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return async (): Promise<boolean> => {
    if (++arrived === count) open();
    // Not a timing assumption: if the calls never overlap, the gate never opens and the test fails.
    return Promise.race([opened.then(() => true), sleep(5_000).then(() => false)]);
  };
}
let meet: (() => Promise<boolean>) | undefined;
let met: boolean[];

beforeEach(() => {
  kernel = testKernel();
  work = kernel.session.cwd;
  log = [];
  meet = undefined;
  met = [];
  const fileTool = (name: string, kind: 'fs.read' | 'fs.write', run: (path: string, args: { text?: string }) => Promise<string>) =>
    defineTool({
      name,
      label: name,
      description: name,
      parameters: Type.Object({ path: Type.String(), ms: Type.Optional(Type.Number()), text: Type.Optional(Type.String()) }),
      resources: ({ path }, ctx): Resource[] => [{ kind, path: resolve(ctx.cwd, path) }],
      async execute(id, args, _s, _u, ctx) {
        log.push(`start ${id}`);
        if (meet !== undefined) met.push(await meet());
        await sleep(args.ms ?? 0);
        const out = await run(resolve(ctx!.cwd, args.path), args);
        log.push(`end ${id}`);
        return { content: [{ type: 'text', text: out }] };
      },
    });
  kernel.registry.register(fileTool('read', 'fs.read', (p) => readFile(p, 'utf8')), { source: 'sdk' });
  kernel.registry.register(fileTool('ls', 'fs.read', async (p) => readdirSync(p).sort().join(',')), { source: 'sdk' });
  kernel.registry.register(
    fileTool('write', 'fs.write', async (p, a) => {
      await writeFile(p, a.text ?? '');
      return `wrote ${a.text}`;
    }),
    { source: 'sdk' },
  );
  writeFileSync(join(work, 'a.txt'), 'TODO: original\n');
  writeFileSync(join(work, 'b.txt'), 'other\n');
});

describe('executeBatch orders calls that touch the same file', () => {
  it('a slow read before a fast write of the same file sees the original content, 10 runs of 10', async () => {
    for (let run = 0; run < 10; run++) {
      writeFileSync(join(work, 'a.txt'), 'TODO: original\n');
      const { messages } = await kernel.executeBatch([
        { id: 'r', name: 'read', arguments: { path: 'a.txt', ms: 30 } },
        { id: 'w', name: 'write', arguments: { path: 'a.txt', text: 'changed\n' } },
      ]);
      expect(messages.map(text)).toEqual(['TODO: original\n', 'wrote changed\n']);
      expect(readFileSync(join(work, 'a.txt'), 'utf8')).toBe('changed\n');
    }
  });

  it('a slow write before a read of the same file: the read sees what was written', async () => {
    const { messages } = await kernel.executeBatch([
      { id: 'w', name: 'write', arguments: { path: 'a.txt', ms: 30, text: 'new\n' } },
      { id: 'r', name: 'read', arguments: { path: 'a.txt' } },
    ]);
    expect(messages.map(text)).toEqual(['wrote new\n', 'new\n']);
    expect(ranAfter('w', 'r')).toBe(true);
  });

  it('the same file under other spellings — ./a.txt, an absolute path, a symlink — is the same file', async () => {
    symlinkSync(join(work, 'a.txt'), join(work, 'link.txt'));
    const { messages } = await kernel.executeBatch([
      { id: 'r1', name: 'read', arguments: { path: './a.txt', ms: 30 } },
      { id: 'r2', name: 'read', arguments: { path: join(work, 'a.txt'), ms: 30 } },
      { id: 'r3', name: 'read', arguments: { path: 'link.txt', ms: 30 } },
      { id: 'w', name: 'write', arguments: { path: 'link.txt', text: 'changed\n' } },
      { id: 'r4', name: 'read', arguments: { path: 'a.txt' } },
    ]);
    expect(messages.map(text)).toEqual(['TODO: original\n', 'TODO: original\n', 'TODO: original\n', 'wrote changed\n', 'changed\n']);
    for (const r of ['r1', 'r2', 'r3']) expect(ranAfter(r, 'w')).toBe(true);
    expect(ranAfter('w', 'r4')).toBe(true);
  });

  it('a listing of a folder waits for a write inside it', async () => {
    mkdirSync(join(work, 'd'));
    const { messages } = await kernel.executeBatch([
      { id: 'w', name: 'write', arguments: { path: 'd/new.txt', ms: 30, text: 'x' } },
      { id: 'l', name: 'ls', arguments: { path: 'd' } },
    ]);
    expect(text(messages[1]!)).toBe('new.txt');
  });

  it('two writes of one file land in the model order', async () => {
    await kernel.executeBatch([
      { id: 'w1', name: 'write', arguments: { path: 'a.txt', ms: 30, text: 'first' } },
      { id: 'w2', name: 'write', arguments: { path: 'a.txt', text: 'second' } },
    ]);
    expect(readFileSync(join(work, 'a.txt'), 'utf8')).toBe('second');
  });
});

describe('executeBatch runs calls with no conflict side by side', () => {
  it('reads of one file overlap (each waits until the others have started)', async () => {
    meet = meeting(3);
    const { messages } = await kernel.executeBatch([
      { id: 'r1', name: 'read', arguments: { path: 'a.txt' } },
      { id: 'r2', name: 'read', arguments: { path: 'a.txt' } },
      { id: 'w', name: 'write', arguments: { path: 'c.txt', text: 'c' } },
    ]);
    expect(met).toEqual([true, true, true]);
    expect(messages.map((m) => m.outcome)).toEqual(['ok', 'ok', 'ok']);
  });

  it('a read of another file does not wait for a slow write', async () => {
    const { messages } = await kernel.executeBatch([
      { id: 'w', name: 'write', arguments: { path: 'a.txt', ms: 200, text: 'new' } },
      { id: 'r', name: 'read', arguments: { path: 'b.txt' } },
    ]);
    expect(messages.map(text)).toEqual(['wrote new', 'other\n']);
    expect(log.indexOf('end r')).toBeLessThan(log.indexOf('end w'));
  });

  it('end events come in completion order, messages in source order', async () => {
    const { of, sink } = collect();
    const { messages } = await kernel.executeBatch(
      [
        { id: 'w', name: 'write', arguments: { path: 'a.txt', ms: 200, text: 'new' } },
        { id: 'r', name: 'read', arguments: { path: 'b.txt' } },
      ],
      { onEvent: sink },
    );
    expect(of('tool_execution_end').map((e) => e.toolCallId)).toEqual(['r', 'w']);
    expect(messages.map((m) => m.toolCallId)).toEqual(['w', 'r']);
  });
});

describe('executeBatch: calls whose effects are unknown are barriers', () => {
  beforeEach(() => {
    kernel.registry.register(
      defineTool({
        name: 'plugin',
        label: 'Plugin',
        description: 'Declares nothing.',
        parameters: Type.Object({}),
        async execute(id) {
          log.push(`start ${id}`, `end ${id}`);
          return { content: [{ type: 'text', text: 'done' }] };
        },
      }),
      { source: 'sdk' },
    );
    kernel.registry.register(
      defineTool({
        name: 'shell',
        label: 'Shell',
        description: 'Runs a process; says what it touches only when asked to.',
        parameters: Type.Object({ reads: Type.Optional(Type.Array(Type.String())), writes: Type.Optional(Type.Array(Type.String())), text: Type.Optional(Type.String()) }),
        resources: ({ reads, writes }, ctx): Resource[] => [
          { kind: 'exec', command: 'x', cwd: ctx.cwd, ...(reads === undefined && writes === undefined ? {} : { touches: { reads: reads ?? [], writes: writes ?? [] } }) },
        ],
        async execute(id, { writes, text: content }, _s, _u, ctx) {
          log.push(`start ${id}`);
          await sleep(30);
          for (const w of writes ?? []) await writeFile(resolve(ctx!.cwd, w), content ?? '');
          log.push(`end ${id}`);
          return { content: [{ type: 'text', text: 'ran' }] };
        },
      }),
      { source: 'sdk' },
    );
  });

  it('a tool that declares no resources waits for every earlier call, and every later call waits for it', async () => {
    await kernel.executeBatch([
      { id: 'r1', name: 'read', arguments: { path: 'a.txt', ms: 30 } },
      { id: 'p', name: 'plugin', arguments: {} },
      { id: 'r2', name: 'read', arguments: { path: 'b.txt' } },
    ]);
    expect(ranAfter('r1', 'p')).toBe(true);
    expect(ranAfter('p', 'r2')).toBe(true);
  });

  it('a process with no analysis is a barrier; one whose tool lists what it touches is ordered by those files only', async () => {
    await kernel.executeBatch([
      { id: 'x', name: 'shell', arguments: {} },
      { id: 'r1', name: 'read', arguments: { path: 'b.txt' } },
    ]);
    expect(ranAfter('x', 'r1')).toBe(true);

    log = [];
    const { messages } = await kernel.executeBatch([
      { id: 'x', name: 'shell', arguments: { reads: [], writes: ['a.txt'], text: 'by shell\n' } },
      { id: 'ra', name: 'read', arguments: { path: 'a.txt' } },
      { id: 'rb', name: 'read', arguments: { path: 'b.txt' } },
    ]);
    expect(messages.map(text)).toEqual(['ran', 'by shell\n', 'other\n']);
    expect(ranAfter('x', 'ra')).toBe(true);
    expect(startedBeforeEnded('x', 'rb')).toBe(true);
  });
});

describe('executeBatch: a tool that says its effects are unknown is a barrier even when it declares resources', () => {
  beforeEach(() => {
    kernel.registry.register(
      defineTool({
        name: 'upstream',
        label: 'Upstream',
        description: 'Declares a read, and says nobody knows what else it does.',
        parameters: Type.Object({ path: Type.String() }),
        effects: 'unknown',
        resources: ({ path }, ctx): Resource[] => [{ kind: 'fs.read', path: resolve(ctx.cwd, path) }],
        async execute(id) {
          log.push(`start ${id}`);
          await sleep(30);
          log.push(`end ${id}`);
          return { content: [{ type: 'text', text: 'done' }] };
        },
      }),
      { source: 'sdk' },
    );
  });

  it('the next read waits for it and is judged again, and the handlers are told the effects are unknown', async () => {
    const seen: { id: string; effects: string | undefined; recheck: boolean }[] = [];
    kernel.on('tool_call', (e) => void seen.push({ id: e.toolCallId, effects: e.toolEffects, recheck: e.recheck !== undefined }), { name: 'spy', phase: 'authorize' });
    await kernel.executeBatch([
      { id: 'u', name: 'upstream', arguments: { path: 'a.txt' } },
      { id: 'r', name: 'read', arguments: { path: 'b.txt' } },
    ]);
    expect(ranAfter('u', 'r')).toBe(true);
    expect(seen).toContainEqual({ id: 'u', effects: 'unknown', recheck: false });
    expect(seen).toContainEqual({ id: 'r', effects: undefined, recheck: true });
  });

  it('the registry refuses any other value of effects, and a judgedBy that is not a sentence', () => {
    const base = { label: 'X', description: 'x', parameters: Type.Object({}), execute: async () => ({ content: [] }) };
    expect(() => kernel.registry.register({ ...base, name: 'bad_effects', effects: 'none' } as never, { source: 'sdk' })).toThrow(/effects must be "unknown" when given, got "none"/);
    expect(() => kernel.registry.register({ ...base, name: 'bad_judged', judgedBy: '' } as never, { source: 'sdk' })).toThrow(/judgedBy must be a non-empty string/);
  });
});
