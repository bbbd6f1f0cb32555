import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { defineTool, type SandboxService, type SandboxWrapOptions } from '@airlock/contract';
import { testKernel, text } from './helpers.js';

/** A sandbox that records what each command was wrapped with, and a tool that wraps one command. */
function recordingSandbox() {
  const wrapped: SandboxWrapOptions[] = [];
  const sandbox: SandboxService = {
    status: { mode: 'auto', active: true },
    async wrap(argv, options) {
      wrapped.push(options);
      return { file: '/bin/true', args: [...argv], env: options.env, summary: '', hint: () => undefined, release: async () => undefined };
    },
  };
  const run = defineTool({
    name: 'run',
    label: 'Run',
    description: 'Wrap one command.',
    parameters: Type.Object({ url: Type.String() }),
    async execute(_id, _args, _signal, _update, ctx) {
      await ctx!.sandbox!.wrap(['curl', _args.url], { cwd: ctx!.cwd, env: {} });
      return { content: [{ type: 'text', text: 'ran' }] };
    },
  });
  return { wrapped, sandbox, run };
}

describe('hosts named by policy votes reach the sandbox of that call only', () => {
  it('an allowed call wraps with the hosts its votes named; an asked-and-approved one too; a denied one never runs', async () => {
    const { wrapped, sandbox, run } = recordingSandbox();
    const kernel = testKernel({ sandbox });
    kernel.registry.register(run, { source: 'sdk' });
    kernel.on('tool_call', (e) => {
      const host = new URL(String(e.args.url)).hostname;
      return { effect: host === 'ok.test' ? 'allow' : host === 'bad.test' ? 'deny' : 'ask', hosts: [host.toUpperCase()] };
    }, { name: 'test/policy', phase: 'authorize' });
    kernel.on('tool_call', () => ({ effect: 'allow', by: 'user' }), { name: 'test/person', phase: 'approve' });

    expect((await kernel.executeToolCall({ id: 'a', name: 'run', arguments: { url: 'https://ok.test/' } })).outcome).toBe('ok');
    expect((await kernel.executeToolCall({ id: 'b', name: 'run', arguments: { url: 'https://asked.test/' } })).outcome).toBe('ok');
    expect((await kernel.executeToolCall({ id: 'c', name: 'run', arguments: { url: 'https://bad.test/' } })).outcome).toBe('denied');
    expect(wrapped.map((w) => w.hosts)).toEqual([['ok.test'], ['asked.test']]);
  });

  it('a call whose votes name no host wraps with none (the rules alone decide)', async () => {
    const { wrapped, sandbox, run } = recordingSandbox();
    const kernel = testKernel({ sandbox });
    kernel.registry.register(run, { source: 'sdk' });
    kernel.on('tool_call', () => ({ effect: 'allow' }), { name: 'test/policy', phase: 'authorize' });
    await kernel.executeToolCall({ id: 'a', name: 'run', arguments: { url: 'https://x.test/' } });
    expect(wrapped).toHaveLength(1);
    expect(wrapped[0]!.hosts).toBeUndefined();
  });

  it.each([
    [['*.example.com'], 'no patterns'],
    [['https://x.test/'], 'no patterns, ports or URLs'],
    [['x.test:443'], 'not a host name'],
    ['x.test', 'not a list'],
    [[42], 'not a host name'],
    [Array.from({ length: 65 }, (_, i) => `h${i}.test`), 'at most 64'],
  ])('a vote whose hosts are %j is a handler failure (fail closed), and the message says what is wrong', async (hosts, wording) => {
    const { wrapped, sandbox, run } = recordingSandbox();
    const kernel = testKernel({ sandbox });
    kernel.registry.register(run, { source: 'sdk' });
    kernel.on('tool_call', () => ({ effect: 'allow', hosts }) as never, { name: 'test/policy', phase: 'authorize' });
    const msg = await kernel.executeToolCall({ id: 'a', name: 'run', arguments: { url: 'https://x.test/' } });
    expect(msg.outcome).not.toBe('ok');
    expect(text(msg)).toContain('test/policy');
    expect(text(msg)).toContain(wording);
    expect(wrapped).toHaveLength(0);
  });
});
