import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { defineTool, type Resource, type ToolCallEvent } from '@airlock/contract';
import { testKernel, text } from './helpers.js';

/** A tool that declares whatever resources it is built with, and writes nothing when it runs. */
function declaring(resources: unknown[], ran: string[] = []) {
  return defineTool({
    name: 'probe',
    label: 'Probe',
    description: 'Declares the given resources.',
    parameters: Type.Object({ path: Type.String() }),
    resources: () => resources as Resource[],
    async execute(_id, { path }) {
      ran.push(path);
      return { content: [{ type: 'text', text: `ran ${path}` }] };
    },
  });
}

describe('file resources carry the path as the model wrote it', () => {
  it('every handler sees `written` next to the resolved `path`, unchanged', async () => {
    const k = testKernel();
    k.registry.register(declaring([{ kind: 'fs.read', path: '/work/real/todo.md', written: 'notes/today.md' }]), { source: 'sdk' });
    const seen: (readonly Resource[])[] = [];
    k.on('tool_call', (e: ToolCallEvent) => void seen.push(e.resources), { name: 't/see', phase: 'authorize' });
    const msg = await k.executeToolCall({ id: 'c', name: 'probe', arguments: { path: 'notes/today.md' } });
    expect(msg.outcome).toBe('ok');
    expect(seen).toEqual([[{ kind: 'fs.read', path: '/work/real/todo.md', written: 'notes/today.md' }]]);
  });

  it.each([
    ['a number', { kind: 'fs.write', path: '/w/a', written: 7 }, 'resources[0] (fs.write) must be {kind, path: string, written?: non-empty string'],
    ['an empty string', { kind: 'fs.read', path: '/w/a', written: '' }, 'resources[0] (fs.read) must be {kind, path: string, written?: non-empty string'],
  ])('a `written` that is %s: not run, and the message names the entry and the shape it needs', async (_what, bad, says) => {
    const ran: string[] = [];
    const k = testKernel();
    k.registry.register(declaring([{ kind: 'net', host: 'example.com' }, bad].reverse(), ran), { source: 'sdk' });
    const msg = await k.executeToolCall({ id: 'c', name: 'probe', arguments: { path: 'a' } });
    expect(msg.outcome).toBe('error');
    expect(ran).toEqual([]);
    expect(text(msg)).toContain(says);
    expect(text(msg)).toContain('this is a bug in the tool');
  });

  it('an unknown kind and a non-object are named by their position', async () => {
    const k = testKernel();
    k.registry.register(declaring([{ kind: 'fs.read', path: '/w/a' }, { kind: 'fs.delete', path: '/w/a' }]), { source: 'sdk' });
    expect(text(await k.executeToolCall({ id: 'c', name: 'probe', arguments: { path: 'a' } }))).toContain('resources[1] has kind "fs.delete"; the kinds are fs.read, fs.write, exec, net');
    const k2 = testKernel();
    k2.registry.register(declaring(['/w/a']), { source: 'sdk' });
    expect(text(await k2.executeToolCall({ id: 'c', name: 'probe', arguments: { path: 'a' } }))).toContain('resources[0] is string, not an object');
  });
});
