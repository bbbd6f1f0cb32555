import { rm } from 'node:fs/promises';
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { defineTool, type Decision, type ToolCall } from '@airlock/contract';
import { type Kernel } from '../src/index.js';
import { collect, echo, testKernel, text } from './helpers.js';

const kernels: Kernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => rm(k.session.cwd, { recursive: true, force: true })));
});

/**
 * A kernel with a tool that counts its executions and declares a resource, and an observer on
 * both hooks standing in for an audit log (audit-log records from tool_call/tool_result observe).
 */
function setup() {
  const k = testKernel();
  kernels.push(k);
  const ran: string[] = [];
  const audit: string[] = [];
  k.registry.register(
    defineTool({
      ...echo,
      name: 'say',
      parameters: Type.Object({ text: Type.String(), times: Type.Optional(Type.Integer({ minimum: 1 })) }, { additionalProperties: false }),
      resources: ({ text: t }) => [{ kind: 'fs.read', path: `/data/${t}` }],
      async execute(id, params) {
        ran.push(id);
        return { content: [{ type: 'text', text: params.text }] };
      },
    }),
    { source: 'sdk' },
  );
  k.on('tool_call', (e) => void audit.push(`decision ${e.toolCallId}`), { name: 'audit/decisions', phase: 'observe' });
  k.on('tool_result', (e) => void audit.push(`result ${e.toolCallId}`), { name: 'audit/results', phase: 'observe' });
  return { k, ran, audit };
}

/** The real call's decision as the tool_decision event carried it, and its result message. */
async function realRun(k: Kernel, call: ToolCall): Promise<{ decision: Decision | undefined; outcome: string; text: string }> {
  const events = collect();
  const message = await k.executeToolCall(call, { onEvent: events.sink });
  return { decision: events.of('tool_decision')[0]?.decision, outcome: message.outcome, text: text(message) };
}

describe('Kernel.preflight: the decision of a real call, with nothing run and nothing recorded', () => {
  it('allow by a vote: same source, reason and votes as the real call; the tool does not run; no observer hears of it', async () => {
    const { k, ran, audit } = setup();
    k.on('tool_call', (e) => (e.toolName === 'say' ? { effect: 'allow', rule: 'say-ok', reason: 'saying is fine' } : undefined), { name: 'acme/allow', phase: 'authorize' });
    const call = { id: 'c1', name: 'say', arguments: { text: 'hi' } };
    const report = await k.preflight(call);
    expect(ran).toEqual([]);
    expect(audit).toEqual([]);
    expect(report).toMatchObject({ effect: 'allow', outcome: 'ok', combined: 'allow', source: { kind: 'vote', handler: 'acme/allow', rule: 'say-ok' }, reason: 'saying is fine' });
    expect(report.resources).toEqual([{ kind: 'fs.read', path: '/data/hi' }]);
    const real = await realRun(k, call);
    expect(ran).toEqual(['c1']);
    expect(audit).toEqual(['decision c1', 'result c1']);
    expect(report.decision).toEqual(real.decision);
  });

  it('deny by a third-party vote: names the handler and rule, with the exact text the model would read', async () => {
    const { k, ran, audit } = setup();
    k.on('tool_call', () => ({ effect: 'allow', rule: 'anything' }), { name: 'other/allow', phase: 'authorize' });
    k.on('tool_call', (e) => ((e.args as { text: string }).text.includes('secret') ? { effect: 'deny', rule: 'no-secrets', reason: 'secrets stay put' } : undefined), {
      name: 'newcomer/guard',
      phase: 'authorize',
    });
    const call = { id: 'c2', name: 'say', arguments: { text: 'secret' } };
    const report = await k.preflight(call);
    expect(report).toMatchObject({ effect: 'deny', outcome: 'denied', combined: 'deny', source: { kind: 'vote', handler: 'newcomer/guard', rule: 'no-secrets' } });
    expect(report.votes.map((v) => [v.handler, v.effect])).toEqual([
      ['other/allow', 'allow'],
      ['newcomer/guard', 'deny'],
    ]);
    expect(ran).toEqual([]);
    expect(audit).toEqual([]);
    const real = await realRun(k, call);
    expect(real.outcome).toBe('denied');
    expect(report.decision).toEqual(real.decision);
    expect(real.text).toBe(report.reason);
  });

  it('ask: reported as ask with the votes that asked; the approver is not called (nobody is prompted)', async () => {
    const { k, ran, audit } = setup();
    const approverCalls: string[] = [];
    k.on('tool_call', () => ({ effect: 'ask', rule: 'ask-say', reason: 'say needs a nod' }), { name: 'acme/ask', phase: 'authorize' });
    k.on('tool_call', (e) => (approverCalls.push(e.toolCallId), { effect: 'allow', by: 'user' }), { name: 'acme/prompt', phase: 'approve' });
    const call = { id: 'c3', name: 'say', arguments: { text: 'hi' } };
    const report = await k.preflight(call);
    expect(approverCalls).toEqual([]);
    expect(report).toMatchObject({ effect: 'ask', outcome: 'ok', combined: 'ask', decision: undefined, source: undefined });
    expect(report.asks).toEqual([{ effect: 'ask', handler: 'acme/ask', rule: 'ask-say', reason: 'say needs a nod' }]);
    expect(ran).toEqual([]);
    expect(audit).toEqual([]);
    // The real call asks the same approver, which answers: the votes it saw are the reported ones.
    const real = await realRun(k, call);
    expect(approverCalls).toEqual(['c3']);
    expect(real.decision).toMatchObject({ effect: 'allow', source: { kind: 'approval', handler: 'acme/prompt' } });
    expect(real.decision!.votes).toEqual(report.votes);
  });

  it('invalid and not_found: the same outcome and text as the real call; no handler runs', async () => {
    const { k, ran, audit } = setup();
    const seen: string[] = [];
    k.on('tool_call', (e) => void seen.push(e.toolCallId), { name: 'acme/watch', phase: 'authorize' });
    for (const call of [
      { id: 'c4', name: 'say', arguments: { text: ['not', 'text'] } },
      { id: 'c5', name: 'sya', arguments: { text: 'hi' } },
    ]) {
      const report = await k.preflight(call);
      expect(report.effect).toBe('deny');
      expect(seen).toEqual([]);
      const real = await realRun(k, call);
      expect(report.outcome).toBe(real.outcome);
      expect(report.reason).toBe(real.text);
    }
    expect((await k.preflight({ id: 'x', name: 'say', arguments: {} })).outcome).toBe('invalid');
    expect((await k.preflight({ id: 'y', name: 'nope', arguments: {} })).outcome).toBe('not_found');
    expect(ran).toEqual([]);
    expect(audit).toEqual(['result c4', 'result c5']);
  });

  it('transform: the final arguments, their provenance and the resources computed from them; a transform to an invalid shape is invalid, as in a real call', async () => {
    const { k, ran } = setup();
    k.on('tool_call', (e) => ((e.args as { text: string }).text === 'hi' ? { ...(e.args as object), text: 'hello' } : undefined), { name: 'acme/expand', phase: 'transform' });
    const report = await k.preflight({ id: 'c6', name: 'say', arguments: { text: 'hi' } });
    expect(report.proposedArgs).toEqual({ text: 'hi' });
    expect(report.args).toEqual({ text: 'hello' });
    expect(report.provenance).toEqual([{ handler: 'acme/expand', before: { text: 'hi' }, after: { text: 'hello' } }]);
    expect(report.resources).toEqual([{ kind: 'fs.read', path: '/data/hello' }]);
    expect(report.effect).toBe('allow');
    const real = await k.executeToolCall({ id: 'c6', name: 'say', arguments: { text: 'hi' } });
    expect(text(real)).toBe('hello');

    k.on('tool_call', () => ({ words: ['x'] }), { name: 'acme/break', phase: 'transform' });
    const broken = { id: 'c7', name: 'say', arguments: { text: 'x' } };
    const bad = await k.preflight(broken);
    const realBad = await realRun(k, broken);
    expect(bad).toMatchObject({ effect: 'deny', outcome: 'invalid' });
    expect(bad.reason).toBe(realBad.text);
    expect(ran).toEqual(['c6']);
  });

  it('a failing authorize handler denies the dry run as it denies the real call (fail closed)', async () => {
    const { k, ran, audit } = setup();
    k.on('tool_call', () => {
      throw new Error('rules file unreadable');
    }, { name: 'acme/broken', phase: 'authorize' });
    const call = { id: 'c8', name: 'say', arguments: { text: 'hi' } };
    const report = await k.preflight(call);
    expect(report).toMatchObject({ effect: 'deny', outcome: 'denied', source: { kind: 'handler-failure', handler: 'acme/broken', phase: 'authorize' } });
    expect(ran).toEqual([]);
    expect(audit).toEqual([]);
    expect(report.decision).toEqual((await realRun(k, call)).decision);
  });

  it('a refused kernel reports the refusal; an aborted signal reports aborted; neither runs a handler', async () => {
    const { k, ran } = setup();
    const seen: string[] = [];
    k.on('tool_call', (e) => void seen.push(e.toolCallId), { name: 'acme/watch', phase: 'authorize' });
    const controller = new AbortController();
    controller.abort();
    expect(await k.preflight({ id: 'a', name: 'say', arguments: { text: 'hi' } }, { signal: controller.signal })).toMatchObject({ effect: 'deny', outcome: 'aborted' });
    k.refuseAll({ reason: 'the policy extension "guard" failed to load', fix: 'Fix it.' });
    expect(await k.preflight({ id: 'b', name: 'say', arguments: { text: 'hi' } })).toMatchObject({ effect: 'deny', outcome: 'denied', source: { kind: 'kernel', reason: 'refused' } });
    expect(seen).toEqual([]);
    expect(ran).toEqual([]);
  });
});
