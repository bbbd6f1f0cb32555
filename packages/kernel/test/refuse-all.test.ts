import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { defineTool, type ToolResultEvent } from '@airlock/contract';
import { type Kernel } from '../src/index.js';
import { collect, echo, testKernel, text } from './helpers.js';

const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => rm(k.session.cwd, { recursive: true, force: true })));
});
function kernel(): Kernel {
  const k = testKernel();
  kernels.push(k);
  return k;
}

/** A tool that records that it ran. */
function recorder(ran: string[]) {
  return defineTool({ ...echo, async execute(id, params) { ran.push(id); return { content: [{ type: 'text', text: params.text }] }; } });
}

const REFUSAL = { reason: 'the policy extension "guard" failed to load (rules file is corrupt)', fix: 'Restore rules.json, or remove "guard" from "extensions".' };

describe('Kernel.refuseAll: every call on every entry point is refused', () => {
  it('executeToolCall and executeBatch: each call gets a denied result naming the reason and the fix; nothing runs', async () => {
    const k = kernel();
    const ran: string[] = [];
    k.registry.register(recorder(ran), { source: 'sdk' });
    k.refuseAll(REFUSAL);
    const one = await k.executeToolCall({ id: 'a', name: 'echo', arguments: { text: 'x' } });
    const { messages } = await k.executeBatch([
      { id: 'b', name: 'echo', arguments: { text: 'y' } },
      { id: 'c', name: 'missing', arguments: {} },
      { id: 'd', name: 'echo', arguments: 'not json' },
    ]);
    expect(ran).toEqual([]);
    for (const m of [one, ...messages]) {
      expect(m).toMatchObject({ outcome: 'denied', isError: true });
      expect(text(m)).toContain('no tool may run in this session');
      expect(text(m)).toContain('"guard" failed to load (rules file is corrupt)');
      expect(text(m)).toContain('Restore rules.json');
    }
    expect(messages.map((m) => m.toolCallId)).toEqual(['b', 'c', 'd']);
  });

  it('refused calls still reach the tool_result hook and events, so audit sees them; no tool_call handler runs', async () => {
    const k = kernel();
    k.registry.register(echo, { source: 'sdk' });
    const callHandlers: string[] = [];
    k.on('tool_call', () => void callHandlers.push('authorize'), { name: 'p/allow', phase: 'authorize' });
    const audited: ToolResultEvent[] = [];
    k.on('tool_result', (e) => void audited.push(e), { name: 'audit/all', phase: 'observe' });
    k.refuseAll(REFUSAL);
    const { of, sink } = collect();
    await k.executeToolCall({ id: 'a', name: 'echo', arguments: { text: 'x' } }, { onEvent: sink });
    expect(callHandlers).toEqual([]);
    expect(audited.map((e) => e.outcome)).toEqual(['denied']);
    expect(audited[0]!.decision).toMatchObject({ effect: 'deny', outcome: 'denied', source: { kind: 'kernel', reason: 'refused' } });
    expect(of('tool_execution_end')[0]!.result.outcome).toBe('denied');
  });

  it('the first refusal stands; a malformed one still refuses, in the kernel’s own words', async () => {
    const k = kernel();
    k.registry.register(echo, { source: 'sdk' });
    k.refuseAll({} as never);
    k.refuseAll(REFUSAL);
    expect(k.status().refusal?.reason).toBe('the host that runs Airlock refused every call');
    const msg = await k.executeToolCall({ id: 'a', name: 'echo', arguments: { text: 'x' } });
    expect(msg.outcome).toBe('denied');
  });

  it('a kernel that was never refused runs calls as usual', async () => {
    const k = kernel();
    k.registry.register(echo, { source: 'sdk' });
    expect(k.status().refusal).toBeUndefined();
    expect((await k.executeToolCall({ id: 'a', name: 'echo', arguments: { text: 'x' } })).outcome).toBe('ok');
  });
});
