import { describe, expect, it } from 'vitest';
import { defineTool, type ToolResultEvent } from '@airlock/contract';
import { collect, echo, testKernel, text } from './helpers.js';

// testKernel's folder is a makeTempDir: removed when the test ends.
const kernel = testKernel;

describe('Kernel.refuseBatch: calls that must not run still end through the tool_result hook', () => {
  it('nothing of the call runs, yet observers, transforms and events see each result, in order', async () => {
    const k = kernel();
    const ran: string[] = [];
    k.registry.register(defineTool({ ...echo, async execute(id) { ran.push(id); return { content: [{ type: 'text', text: 'ran' }] }; } }), { source: 'sdk' });
    const before: string[] = [];
    k.on('tool_call', () => void before.push('authorize'), { name: 'p/allow', phase: 'authorize' });
    k.on('tool_call', () => void before.push('observe'), { name: 'audit/decisions', phase: 'observe' });
    const audited: ToolResultEvent[] = [];
    k.on('tool_result', (e) => void audited.push(e), { name: 'audit/results', phase: 'observe' });
    // A redactor is a tool_result transform: a secret in the refusal's arguments or text is its to hide.
    k.on('tool_result', (e) => ({ content: e.content.map((c) => (c.type === 'text' ? { ...c, text: c.text.replace('s3cr3t', '[hidden]') } : c)) }), { name: 'redact/all', phase: 'transform' });
    const { of, sink } = collect();
    const messages = await k.refuseBatch(
      [
        { id: 'a', name: 'echo', arguments: { text: 'half-writ' } },
        { id: 'b', name: 'no_such_tool', arguments: '{"text": "s3cr3t' },
      ],
      { outcome: 'error', text: 'Not run: the output was cut off (s3cr3t). Retry with a shorter call.' },
      { onEvent: sink },
    );
    expect(ran).toEqual([]);
    expect(before).toEqual([]);
    expect(messages.map((m) => [m.toolCallId, m.toolName, m.outcome, m.isError])).toEqual([
      ['a', 'echo', 'error', true],
      ['b', 'no_such_tool', 'error', true],
    ]);
    expect(text(messages[1]!)).toBe('Not run: the output was cut off ([hidden]). Retry with a shorter call.');
    expect(audited.map((e) => [e.toolCallId, e.outcome, e.rawArgs])).toEqual([
      ['a', 'error', { text: 'half-writ' }],
      ['b', 'error', '{"text": "s3cr3t'],
    ]);
    expect(audited[0]!.decision).toMatchObject({ effect: 'deny', outcome: 'error', source: { kind: 'kernel', reason: 'error' } });
    expect(of('tool_execution_start').map((e) => e.toolCallId)).toEqual(['a', 'b']);
    expect(of('tool_execution_end').map((e) => e.result.outcome)).toEqual(['error', 'error']);
  });

  it('a malformed refusal still refuses, never as ok, with words of the kernel', async () => {
    const k = kernel();
    const [asOk] = await k.refuseBatch([{ id: 'a', name: 'echo', arguments: {} }], { outcome: 'ok' as never, text: 'fine' });
    expect(asOk).toMatchObject({ outcome: 'error', isError: true });
    const [noText] = await k.refuseBatch([{ id: 'b', name: 'echo', arguments: {} }], { outcome: 'aborted', text: '' });
    expect(noText!.outcome).toBe('aborted');
    expect(text(noText!)).toMatch(/^Not run: /);
    expect(await k.refuseBatch('nonsense' as never, { outcome: 'error', text: 'x' })).toEqual([]);
  });

  it('kernel.onEvent listeners hear refused calls like any other', async () => {
    const k = kernel();
    const heard: string[] = [];
    k.onEvent((e) => void heard.push(`${e.type} ${'toolCallId' in e ? e.toolCallId : ''}`));
    await k.refuseBatch([{ id: 'x', name: 'echo', arguments: {} }], { outcome: 'aborted', text: 'Not run: aborted while streaming.' });
    expect(heard).toEqual(['tool_execution_start x', 'tool_execution_end x']);
  });
});
