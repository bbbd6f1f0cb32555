import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Type from 'typebox';
import { createTestHost } from '@airlock/kernel/testing';
import { defineTool } from '@airlock/contract';
import { makeTempDir } from '@airlock/kernel/testing';
import { kernelRunner, scriptedProvider, type AgentEvent, type Message, type ModelProvider, type ModelRequest, type ToolRunner } from '../../src/index.js';

/**
 * A real kernel in a temp folder with a few real tools: `cat` reads a file, `put` writes one,
 * `wait` waits for its signal or `ms` milliseconds, `stop` asks the run to end, `costly`
 * reports nested model usage. `ran` counts the executions of each tool.
 */
export function fixture() {
  const dir = makeTempDir('airlock-agent-');
  const { kernel, services } = createTestHost({ cwd: dir });
  const ran: Record<string, number> = {};
  const count = (name: string): void => void (ran[name] = (ran[name] ?? 0) + 1);
  const Path = Type.Object({ path: Type.String() });
  kernel.registry.register(
    defineTool({
      name: 'cat',
      label: 'Cat',
      description: 'Read a text file. Relative to the working folder.',
      parameters: Path,
      resources: ({ path }) => [{ kind: 'fs.read', path }],
      async execute(_id, { path }, _signal, _update, ctx) {
        count('cat');
        return { content: [{ type: 'text', text: await readFile(join(ctx.cwd, path), 'utf8') }] };
      },
    }),
    { source: 'sdk' },
  );
  kernel.registry.register(
    defineTool({
      name: 'put',
      label: 'Put',
      description: 'Write a text file.',
      parameters: Type.Object({ path: Type.String(), content: Type.String() }),
      resources: ({ path }) => [{ kind: 'fs.write', path }],
      async execute(_id, { path, content }, _signal, _update, ctx) {
        count('put');
        await writeFile(join(ctx.cwd, path), content);
        return { content: [{ type: 'text', text: `wrote ${path}` }] };
      },
    }),
    { source: 'sdk' },
  );
  kernel.registry.register(
    defineTool({
      name: 'wait',
      label: 'Wait',
      description: 'Wait a while.',
      parameters: Type.Object({ ms: Type.Number(), tag: Type.Optional(Type.String()) }),
      resources: () => [],
      async execute(_id, { ms, tag }, signal) {
        count('wait');
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, ms);
          signal?.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(new Error('aborted'));
          });
        });
        return { content: [{ type: 'text', text: `waited ${tag ?? ms}` }] };
      },
    }),
    { source: 'sdk' },
  );
  kernel.registry.register(
    defineTool({
      name: 'stop',
      label: 'Stop',
      description: 'Finish the run.',
      parameters: Type.Object({}),
      resources: () => [],
      async execute() {
        count('stop');
        return { content: [{ type: 'text', text: 'stopping' }], terminate: true };
      },
    }),
    { source: 'sdk' },
  );
  kernel.registry.register(
    defineTool({
      name: 'costly',
      label: 'Costly',
      description: 'Ask a sub-model.',
      parameters: Type.Object({}),
      resources: () => [],
      async execute() {
        count('costly');
        return { content: [{ type: 'text', text: 'summary' }], usage: { input: 100, output: 40, cost: 0.5 } };
      },
    }),
    { source: 'sdk' },
  );
  const runner: ToolRunner = kernelRunner(kernel, undefined, (a) => services.activity.emit(a));
  return { dir, kernel, services, runner, ran };
}

/** A scripted provider that also records each request's messages (copied as it saw them). */
export function recording(messages: readonly unknown[]): ModelProvider & { requests: Message[][] } {
  const inner = scriptedProvider(messages);
  const requests: Message[][] = [];
  return {
    id: inner.id,
    requests,
    stream(request: ModelRequest, signal?: AbortSignal) {
      requests.push([...request.messages]);
      return inner.stream(request, signal);
    },
  };
}

/** Collects events; `types()` lists their types. */
export function collector() {
  const events: AgentEvent[] = [];
  return {
    events,
    listener: (e: AgentEvent) => void events.push(e),
    types: () => events.map((e) => e.type),
  };
}

export function call(name: string, args: unknown, id?: string) {
  return { type: 'toolCall', name, arguments: args, ...(id === undefined ? {} : { id }) };
}
