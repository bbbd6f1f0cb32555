import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { defineTool, type ShellAnalysis, type ToolCallEvent } from '@airlock/contract';
import { testKernel, text } from './helpers.js';

/** A tool that runs nothing, declares its `command` as an exec resource and analyses it with `analyzer`. */
function execTool(analyzer?: (command: string) => Promise<ShellAnalysis>, ran: string[] = []) {
  return defineTool({
    name: 'acme:sh',
    label: 'Sh',
    description: 'Pretends to run a command.',
    parameters: Type.Object({ command: Type.String() }),
    resources: ({ command }) => [{ kind: 'exec', command }],
    ...(analyzer === undefined ? {} : { analyzeCommand: analyzer }),
    async execute(_id, { command }) {
      ran.push(command);
      return { content: [{ type: 'text', text: `ran ${command}` }] };
    },
  });
}

/** A toy analyzer: each `;`-separated part is a command, its first word the program. */
function toyAnalyzer(calls: string[]) {
  return async (command: string): Promise<ShellAnalysis> => {
    calls.push(command);
    return {
      ok: true,
      commands: command.split(';').map((part) => {
        const argv = part.trim().split(/\s+/);
        return { text: part.trim(), argv, dynamicArgs: [], name: argv[0]!, wrappers: [], assignments: [], redirects: [], reads: [], writes: [], removes: [], gitDirs: [], links: [], dynamicReads: [], dynamicWrites: [], revisionReads: [], hosts: [], dynamicHosts: [], unknownArgs: false, callsFunction: false, nested: [], context: [] };
      }),
    };
  };
}

describe('event.analyzeCommand: one analysis per call, shared by every handler', () => {
  it('three handlers in two phases get the same frozen object; the tool analysed the command once', async () => {
    const calls: string[] = [];
    const k = testKernel();
    k.registry.register(execTool(toyAnalyzer(calls)), { source: 'sdk' });
    const seen: ShellAnalysis[] = [];
    const look = async (e: ToolCallEvent) => {
      const r = e.resources.find((x) => x.kind === 'exec');
      if (r?.kind === 'exec') seen.push(await e.analyzeCommand!(r.command));
    };
    k.on('tool_call', look, { name: 'a/one', phase: 'authorize' });
    k.on('tool_call', look, { name: 'b/two', phase: 'authorize' });
    k.on('tool_call', look, { name: 'c/watch', phase: 'observe' });
    const msg = await k.executeToolCall({ id: 'c', name: 'acme:sh', arguments: { command: 'ls; curl x' } });
    expect(msg.outcome).toBe('ok');
    expect(calls).toEqual(['ls; curl x']);
    expect(seen).toHaveLength(3);
    expect(seen[1]).toBe(seen[0]);
    expect(seen[2]).toBe(seen[0]);
    expect(Object.isFrozen(seen[0]) && seen[0]!.ok && Object.isFrozen(seen[0]!.commands[1])).toBe(true);
    expect(seen[0]!.ok && seen[0]!.commands.map((c) => c.name)).toEqual(['ls', 'curl']);
  });

  it('each call gets its own analysis', async () => {
    const calls: string[] = [];
    const k = testKernel();
    k.registry.register(execTool(toyAnalyzer(calls)), { source: 'sdk' });
    k.on('tool_call', async (e) => void (await e.analyzeCommand!((e.args as { command: string }).command)), { name: 'a/one', phase: 'authorize' });
    await k.executeToolCall({ id: 'c1', name: 'acme:sh', arguments: { command: 'ls' } });
    await k.executeToolCall({ id: 'c2', name: 'acme:sh', arguments: { command: 'ls' } });
    expect(calls).toEqual(['ls', 'ls']);
  });

  it('a tool without an analyzer: undefined, so a policy knows it has nothing to go on', async () => {
    const k = testKernel();
    k.registry.register(execTool(), { source: 'sdk' });
    let got: unknown = 'unset';
    k.on('tool_call', (e) => void (got = e.analyzeCommand), { name: 'a/one', phase: 'authorize' });
    await k.executeToolCall({ id: 'c', name: 'acme:sh', arguments: { command: 'ls' } });
    expect(got).toBeUndefined();
  });

  it.each([
    ['throws', async () => Promise.reject(new Error('parser missing')), 'the command analysis of the tool "acme:sh" failed: parser missing'],
    ['answers a non-analysis', async () => ({ commands: 'ls' }) as never, 'answered something that is not an analysis'],
    ['is unsure without a reason', async () => ({ ok: false }) as never, 'was unsure and gave no reason'],
  ])('an analyzer that %s gives ok:false with the reason; it never rejects, so a policy can fail closed', async (_what, analyzer, says) => {
    const ran: string[] = [];
    const k = testKernel();
    k.registry.register(execTool(analyzer as (c: string) => Promise<ShellAnalysis>, ran), { source: 'sdk' });
    k.on(
      'tool_call',
      async (e) => {
        const a = await e.analyzeCommand!((e.args as { command: string }).command);
        return a.ok ? undefined : { effect: 'deny', reason: `unsure: ${a.reason}` };
      },
      { name: 'a/guard', phase: 'authorize' },
    );
    const msg = await k.executeToolCall({ id: 'c', name: 'acme:sh', arguments: { command: 'ls' } });
    expect(msg.outcome).toBe('denied');
    expect(text(msg)).toContain(says);
    expect(ran).toEqual([]);
  });

  it('an analyzer that is not a function is a registration error naming it', () => {
    const k = testKernel();
    expect(() => k.registry.register({ ...execTool(), analyzeCommand: 'bash' } as never, { source: 'sdk' })).toThrow(/analyzeCommand must be a function when given/);
  });
});
