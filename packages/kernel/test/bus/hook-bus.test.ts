import fc from 'fast-check';
import Type from 'typebox';
import { rm } from 'node:fs/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import { defineTool, type Effect, type Outcome, type ToolCallEvent, type ToolResultEvent } from '@airlock/contract';
import { collect, echo, sleep, testKernel, text } from '../helpers.js';

const pathTool = () => {
  const seen: unknown[] = [];
  const tool = defineTool({
    name: 'open',
    label: 'Open',
    description: 'Open a file.',
    parameters: Type.Object({ path: Type.String({ minLength: 1 }), mode: Type.Optional(Type.Union([Type.Literal('r'), Type.Literal('w')])) }),
    resources: ({ path, mode }) => [{ kind: mode === 'w' ? 'fs.write' : 'fs.read', path }],
    async execute(_id, params) {
      seen.push(params);
      return { content: [{ type: 'text', text: `opened ${params.path}` }] };
    },
  });
  return { tool, seen };
};

describe('tool_call: transform, re-validation, provenance', () => {
  it('each transform sees the previous one’s arguments; authorize and execute see the final ones', async () => {
    const kernel = testKernel();
    const { tool, seen } = pathTool();
    kernel.registry.register(tool, { source: 'sdk' });
    const authorizeSaw: unknown[] = [];
    kernel.on('tool_call', (e) => ({ ...e.args, path: `${e.args.path as string}.a` }), { name: 'ext/a', phase: 'transform' });
    kernel.on('tool_call', (e) => ({ ...e.args, path: `${e.args.path as string}.b` }), { name: 'ext/b', phase: 'transform' });
    kernel.on('tool_call', (e) => void authorizeSaw.push({ args: e.args, resources: e.resources, proposed: e.proposedArgs }), { name: 'ext/policy', phase: 'authorize' });
    const { of, sink } = collect();
    await kernel.executeToolCall({ id: 'c', name: 'open', arguments: { path: 'x' } }, { onEvent: sink });
    expect(seen).toEqual([{ path: 'x.a.b' }]);
    expect(authorizeSaw).toEqual([{ args: { path: 'x.a.b' }, resources: [{ kind: 'fs.read', path: 'x.a.b' }], proposed: { path: 'x' } }]);
    const decision = of('tool_decision')[0]!;
    expect(decision.provenance).toEqual([
      { handler: 'ext/a', before: { path: 'x' }, after: { path: 'x.a' } },
      { handler: 'ext/b', before: { path: 'x.a' }, after: { path: 'x.a.b' } },
    ]);
  });

  it('returning an equal copy is not a change (no provenance)', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    kernel.on('tool_call', (e) => ({ ...e.args }), { name: 'ext/copy', phase: 'transform' });
    const { of, sink } = collect();
    await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } }, { onEvent: sink });
    expect(of('tool_decision')[0]!.provenance).toEqual([]);
  });

  it('re-validates after transforms: a handler cannot smuggle an invalid shape into execute', async () => {
    const kernel = testKernel();
    const { tool, seen } = pathTool();
    kernel.registry.register(tool, { source: 'sdk' });
    kernel.on('tool_call', () => ({ path: ['a'] }), { name: 'ext/breaks-it', phase: 'transform' });
    const msg = await kernel.executeToolCall({ id: 'c', name: 'open', arguments: { path: 'ok' } });
    expect(msg.outcome).toBe('invalid');
    expect(seen).toEqual([]);
    expect(text(msg)).toContain('after the transform handler(s) "ext/breaks-it" changed them');
    expect(text(msg)).toContain('path: expected a non-empty string, got a list');
  });

  it('no option turns re-validation off: the old `revalidate: false` is ignored and the transformed arguments are still checked', async () => {
    const kernel = testKernel({ revalidate: false } as never);
    const seen: unknown[] = [];
    kernel.registry.register(defineTool({ ...echo, execute: async (_id, p) => (seen.push(p), { content: [{ type: 'text', text: 'ran' }] }) }), { source: 'sdk' });
    kernel.on('tool_call', () => ({ text: ['not', 'a', 'string'] }), { name: 'ext/breaks-it', phase: 'transform' });
    const msg = await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'ok' } });
    expect(msg.outcome).toBe('invalid');
    expect(seen).toEqual([]);
  });

  it('re-validation coerces what a transform returned ("3" → 3), and provenance shows the coercion', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    kernel.on('tool_call', (e) => ({ ...e.args, times: '3' }), { name: 'ext/t', phase: 'transform' });
    const { of, sink } = collect();
    expect(text(await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'a' } }, { onEvent: sink }))).toBe('aaa');
    expect(of('tool_decision')[0]!.provenance.map((p) => [p.handler, p.after])).toEqual([
      ['ext/t', { text: 'a', times: '3' }],
      ['kernel/revalidate', { text: 'a', times: 3 }],
    ]);
  });

  it('handlers get frozen values: changing them in place fails with a hint', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    kernel.on(
      'tool_call',
      (e) => {
        (e.args as Record<string, unknown>).text = 'changed';
      },
      { name: 'ext/mutates', phase: 'transform' },
    );
    const { of, sink } = collect();
    const msg = await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } }, { onEvent: sink });
    expect(msg.outcome).toBe('denied');
    expect(of('hook_failure')[0]!.error).toMatch(/return new arguments or a patch instead/);
  });

  it('a transform returning something that is not an arguments object fails closed', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    kernel.on('tool_call', () => 'rm -rf' as never, { name: 'ext/odd', phase: 'transform' });
    const msg = await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } });
    expect(msg.outcome).toBe('denied');
    expect(text(msg)).toContain('"ext/odd" failed');
    expect(text(msg)).toContain('returns the new arguments object');
  });
});

describe('tool_call: votes, approval and decisions', () => {
  const effects: Effect[] = ['allow', 'ask', 'deny'];

  it('votes combine deny > ask > allow whatever the registration order (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...effects, undefined), { maxLength: 6 }), fc.boolean(), async (votes, hasApprover) => {
        const kernel = testKernel();
        kernel.registry.register(echo, { source: 'sdk' });
        votes.forEach((effect, i) => kernel.on('tool_call', () => (effect ? { effect, reason: `r${i}` } : undefined), { name: `p/${i}`, phase: 'authorize' }));
        if (hasApprover) kernel.on('tool_call', () => ({ effect: 'allow', by: 'user' }), { name: 'p/approver', phase: 'approve' });
        const msg = await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } });
        const expected: Outcome = votes.includes('deny') ? 'denied' : votes.includes('ask') && !hasApprover ? 'denied' : 'ok';
        expect(msg.outcome).toBe(expected);
        await kernel.dispose();
      }),
      { numRuns: 60 },
    );
  });

  it('a deny names every denying rule and handler, and tells the model not to retry', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    kernel.on('tool_call', () => ({ effect: 'allow' }), { name: 'a/allow', phase: 'authorize' });
    kernel.on('tool_call', () => ({ effect: 'deny', reason: 'reads secrets', rule: 'no-env' }), { name: 'path-policy/rules', phase: 'authorize' });
    const { of, sink } = collect();
    const msg = await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } }, { onEvent: sink });
    expect(msg.outcome).toBe('denied');
    expect(text(msg)).toContain('reads secrets [rule "no-env" (path-policy/rules)]');
    expect(text(msg)).toContain('Do not retry');
    expect(of('tool_decision')[0]!.decision).toMatchObject({ effect: 'deny', source: { kind: 'vote', handler: 'path-policy/rules', rule: 'no-env' } });
  });

  it('authorize handlers do not see each other’s votes; approvers see all of them', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    const seen: { phase: string; votes: number; effect: unknown }[] = [];
    kernel.on('tool_call', (e) => ((seen.push({ phase: 'authorize', votes: e.votes.length, effect: e.effect }), { effect: 'ask', reason: 'why' })), { name: 'a/1', phase: 'authorize' });
    kernel.on('tool_call', (e) => ((seen.push({ phase: 'authorize', votes: e.votes.length, effect: e.effect }), { effect: 'allow' })), { name: 'a/2', phase: 'authorize' });
    kernel.on('tool_call', (e) => ((seen.push({ phase: 'approve', votes: e.votes.length, effect: e.effect }), { effect: 'allow', by: 'user', scope: 'once' })), { name: 'ui/approve', phase: 'approve' });
    const { of, sink } = collect();
    const msg = await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } }, { onEvent: sink });
    expect(msg.outcome).toBe('ok');
    expect(seen).toEqual([
      { phase: 'authorize', votes: 0, effect: undefined },
      { phase: 'authorize', votes: 0, effect: undefined },
      { phase: 'approve', votes: 2, effect: 'ask' },
    ]);
    expect(of('tool_decision')[0]!.decision.source).toEqual({ kind: 'approval', handler: 'ui/approve', by: 'user', scope: 'once' });
  });

  it('an ask with no approver is a deny that says so', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    kernel.on('tool_call', () => ({ effect: 'ask', reason: 'writes outside the workspace', rule: 'outside' }), { name: 'policy/x', phase: 'authorize' });
    const msg = await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } });
    expect(msg.outcome).toBe('denied');
    expect(text(msg)).toContain('needs approval (writes outside the workspace [rule "outside" (policy/x)])');
    expect(text(msg)).toContain('no approver is available');
  });

  it('approvers run in order until one answers; a deny from the user carries the message', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    const calls: string[] = [];
    kernel.on('tool_call', () => ({ effect: 'ask' }), { name: 'p/ask', phase: 'authorize' });
    kernel.on('tool_call', () => void calls.push('rpc'), { name: 'rpc/approve', phase: 'approve' });
    kernel.on('tool_call', () => (calls.push('tty'), { effect: 'deny', by: 'user', reason: 'use the staging bucket instead' }), { name: 'tty/approve', phase: 'approve' });
    kernel.on('tool_call', () => void calls.push('never'), { name: 'late/approve', phase: 'approve' });
    const msg = await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } });
    expect(calls).toEqual(['rpc', 'tty']);
    expect(msg.outcome).toBe('denied');
    expect(text(msg)).toContain('Denied by the user: use the staging bucket instead');
  });

  it('approvers are not consulted without an ask', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    let asked = false;
    kernel.on('tool_call', () => { asked = true; return { effect: 'deny' }; }, { name: 'x/approve', phase: 'approve' });
    expect((await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } })).outcome).toBe('ok');
    expect(asked).toBe(false);
  });

  it('an abort cuts a pending approval short at once', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    kernel.on('tool_call', () => ({ effect: 'ask' }), { name: 'p/ask', phase: 'authorize' });
    kernel.on('tool_call', () => new Promise<undefined>(() => {}), { name: 'tty/approve', phase: 'approve' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const msg = await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } }, { signal: controller.signal });
    expect(msg.outcome).toBe('aborted');
  });

  it('observers see the final decision and cannot change it', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    const seen: unknown[] = [];
    kernel.on('tool_call', () => ({ effect: 'deny', reason: 'no' }), { name: 'p/deny', phase: 'authorize' });
    kernel.on('tool_call', (e) => { seen.push(e.decision?.effect); return { effect: 'allow' } as never; }, { name: 'audit/call', phase: 'observe' });
    expect((await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } })).outcome).toBe('denied');
    expect(seen).toEqual(['deny']);
  });

  it('phases run in phase order whatever the registration order', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    const order: string[] = [];
    kernel.on('tool_call', () => void order.push('observe'), { name: 'o', phase: 'observe' });
    kernel.on('tool_call', () => (order.push('approve'), { effect: 'allow' }), { name: 'ap', phase: 'approve' });
    kernel.on('tool_call', () => (order.push('authorize'), { effect: 'ask' }), { name: 'au', phase: 'authorize' });
    kernel.on('tool_call', () => void order.push('transform'), { name: 't', phase: 'transform' });
    kernel.on('tool_result', () => void order.push('r-observe'), { name: 'ro', phase: 'observe' });
    kernel.on('tool_result', () => void order.push('r-transform'), { name: 'rt', phase: 'transform' });
    kernel.on('tool_result', () => void order.push('redact'), { name: 'rr', phase: 'redact' });
    await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } });
    expect(order).toEqual(['transform', 'authorize', 'approve', 'observe', 'redact', 'r-transform', 'r-observe']);
  });

  it('resources() is computed on the final arguments; a throwing resources() fails closed', async () => {
    const kernel = testKernel();
    kernel.registry.register(
      defineTool({
        name: 'broken',
        label: 'B',
        description: 'd',
        parameters: Type.Object({}),
        resources: () => {
          throw new Error('cannot parse');
        },
        execute: async () => ({ content: [{ type: 'text', text: 'ran' }] }),
      }),
      { source: 'sdk' },
    );
    const msg = await kernel.executeToolCall({ id: 'c', name: 'broken', arguments: {} });
    expect(msg.outcome).toBe('error');
    expect(text(msg)).toContain('cannot parse');
  });
});

describe('failure modes and time limits', () => {
  it('authorize fails closed by default: a throwing policy blocks the call and names the handler', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    kernel.on('tool_call', () => { throw new Error('rules file unreadable'); }, { name: 'path-policy/rules', phase: 'authorize' });
    const { of, sink } = collect();
    const msg = await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } }, { onEvent: sink });
    expect(msg.outcome).toBe('denied');
    expect(text(msg)).toContain('the authorize handler "path-policy/rules" failed (rules file unreadable)');
    expect(of('tool_decision')[0]!.decision.source).toEqual({ kind: 'handler-failure', handler: 'path-policy/rules', phase: 'authorize' });
    expect(of('hook_failure')[0]).toMatchObject({ handler: 'path-policy/rules', failure: 'closed', timedOut: false });
  });

  it('failure: "open" lets the call go on and reports the failure', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    kernel.on('tool_call', () => { throw new Error('telemetry down'); }, { name: 'x/vote', phase: 'authorize', failure: 'open' });
    const { of, sink } = collect();
    expect((await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } }, { onEvent: sink })).outcome).toBe('ok');
    expect(of('hook_failure')[0]).toMatchObject({ failure: 'open', error: 'telemetry down' });
  });

  it('observers fail open by default', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    kernel.on('tool_call', () => { throw new Error('x'); }, { name: 'a/o', phase: 'observe' });
    kernel.on('tool_result', async () => { throw new Error('y'); }, { name: 'a/ro', phase: 'observe' });
    expect((await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } })).outcome).toBe('ok');
  });

  it('a handler that never settles times out; closed phases then deny, naming the limit', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    kernel.on('tool_call', () => new Promise<undefined>(() => {}), { name: 'slow/policy', phase: 'authorize', timeoutMs: 25 });
    const started = performance.now();
    const msg = await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } });
    expect(performance.now() - started).toBeGreaterThanOrEqual(20);
    expect(msg.outcome).toBe('denied');
    expect(text(msg)).toContain('no answer within 25 ms');
  });

  it('an open handler that times out is skipped and the call goes on', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    kernel.on('tool_result', () => new Promise(() => {}), { name: 'slow/patch', phase: 'transform', timeoutMs: 20 });
    const { of, sink } = collect();
    const msg = await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } }, { onEvent: sink });
    expect(text(msg)).toBe('x');
    expect(of('hook_failure')[0]).toMatchObject({ timedOut: true, failure: 'open' });
  });

  it('a late answer from a timed-out handler is ignored', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    kernel.on('tool_result', async () => { await sleep(60); return { content: [{ type: 'text', text: 'late' }] }; }, { name: 'slow/patch', phase: 'transform', timeoutMs: 10 });
    const msg = await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } });
    await sleep(80);
    expect(text(msg)).toBe('x');
  });

  it('a failing redactor withholds the content (fail closed) but the call still gets a result', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    kernel.on('tool_result', () => { throw new Error('pattern compile error'); }, { name: 'redact-secrets/scrub', phase: 'redact' });
    const seen: unknown[] = [];
    kernel.on('tool_result', (e) => void seen.push(e.content), { name: 'audit/result', phase: 'observe' });
    const msg = await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'AKIA-secret' } });
    expect(msg.isError).toBe(true);
    expect(msg.outcome).toBe('error');
    expect(text(msg)).not.toContain('AKIA');
    expect(text(msg)).toContain('withheld');
    expect(msg.details).toBeUndefined();
    expect(JSON.stringify(seen)).not.toContain('AKIA');
  });

  it('a failing redactor: outcome error, content and details withheld, its error text (which may quote the output) kept from the model; audit still sees the call', async () => {
    const kernel = testKernel();
    onTestFinished(() => rm(kernel.session.cwd, { recursive: true, force: true }));
    kernel.registry.register(echo, { source: 'sdk' });
    // JSON.parse quotes the text it fails on: the error message itself carries the secret.
    kernel.on('tool_result', (e) => void JSON.parse((e.content[0] as { text: string }).text), { name: 'acme/scrub', phase: 'redact' });
    const observed: { outcome: string; content: string; details: unknown }[] = [];
    kernel.on('tool_result', (e) => void observed.push({ outcome: e.outcome, content: JSON.stringify(e.content), details: e.details }), { name: 'audit/result', phase: 'observe' });
    const { of, sink } = collect();
    const msg = await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'ghp_SECRET123 leaked' } }, { onEvent: sink });
    expect(msg).toMatchObject({ outcome: 'error', isError: true });
    expect(msg.details).toBeUndefined();
    expect(JSON.stringify(msg)).not.toContain('SECRET123');
    expect(text(msg)).toContain('output is withheld');
    expect(text(msg)).toContain('"acme/scrub" failed');
    expect(text(msg)).toContain('redaction failed');
    expect(observed).toEqual([{ outcome: 'error', content: expect.stringContaining('withheld'), details: undefined }]);
    expect(observed[0]!.content).not.toContain('SECRET123');
    // Observers learn which handler failed and how, but not the message that quotes the output.
    expect(of('hook_failure')[0]).toMatchObject({ handler: 'acme/scrub', phase: 'redact', error: expect.stringContaining('SyntaxError') });
    expect(JSON.stringify(of('hook_failure'))).not.toContain('SECRET123');
    expect(of('tool_execution_end')[0]!.result.outcome).toBe('error');
  });

  it('a redactor that returns the output itself instead of a patch: withheld, and the complaint does not quote it', async () => {
    const kernel = testKernel();
    onTestFinished(() => rm(kernel.session.cwd, { recursive: true, force: true }));
    kernel.registry.register(echo, { source: 'sdk' });
    kernel.on('tool_result', (e) => (e.content[0] as { text: string }).text as never, { name: 'acme/scrub', phase: 'redact' });
    const { events, sink } = collect();
    const msg = await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'ghp_SECRET456' } }, { onEvent: sink });
    expect(msg.outcome).toBe('error');
    expect(text(msg)).toContain('a string of 13 characters');
    expect(JSON.stringify(msg)).not.toContain('SECRET456');
    expect(JSON.stringify(events.filter((e) => e.type !== 'tool_execution_start'))).not.toContain('SECRET456');
  });

  it('a redactor that times out: outcome error, withheld, and the time limit named', async () => {
    const kernel = testKernel();
    onTestFinished(() => rm(kernel.session.cwd, { recursive: true, force: true }));
    kernel.registry.register(echo, { source: 'sdk' });
    kernel.on('tool_result', () => new Promise<undefined>(() => {}), { name: 'slow/scrub', phase: 'redact', timeoutMs: 20 });
    const msg = await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'token-xyz' } });
    expect(msg.outcome).toBe('error');
    expect(text(msg)).not.toContain('token-xyz');
    expect(text(msg)).toContain('no answer within 20 ms');
  });

  it('a failing redactor on a denied call keeps the outcome denied (it already says the call did not run)', async () => {
    const kernel = testKernel();
    onTestFinished(() => rm(kernel.session.cwd, { recursive: true, force: true }));
    kernel.registry.register(echo, { source: 'sdk' });
    kernel.on('tool_call', () => ({ effect: 'deny', reason: 'no' }), { name: 'p/deny', phase: 'authorize' });
    kernel.on('tool_result', () => { throw new Error('boom'); }, { name: 'r/x', phase: 'redact' });
    const msg = await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } });
    expect(msg.outcome).toBe('denied');
    expect(text(msg)).toContain('withheld');
  });
});

describe('tool_result: redact, transform, observe', () => {
  it('redact runs first, transform sees the redacted result, observe sees the final one', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    const seen: string[] = [];
    kernel.on('tool_result', (e) => ({ content: e.content.map((c) => (c.type === 'text' ? { ...c, text: c.text.replace('secret', '[REDACTED]') } : c)) }), { name: 'r/s', phase: 'redact' });
    kernel.on('tool_result', (e) => { seen.push(`transform:${(e.content[0] as { text: string }).text}`); return { details: { patched: true } }; }, { name: 't/x', phase: 'transform' });
    kernel.on('tool_result', (e) => void seen.push(`observe:${(e.content[0] as { text: string }).text}:${JSON.stringify(e.details)}`), { name: 'o/x', phase: 'observe' });
    const msg = await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'my secret' } });
    expect(text(msg)).toBe('my [REDACTED]');
    expect(msg.details).toEqual({ patched: true });
    expect(seen).toEqual(['transform:my [REDACTED]', 'observe:my [REDACTED]:{"patched":true}']);
  });

  it('a patch may clear details ({details: undefined}) and set terminate', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    kernel.on('tool_result', () => ({ details: undefined, terminate: true }), { name: 't/clear', phase: 'transform' });
    const msg = await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } });
    expect(msg.details).toBeUndefined();
    expect(msg.terminate).toBe(true);
  });

  it('redact may not change isError or terminate; a bad patch is a handler failure', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    kernel.on('tool_result', () => ({ isError: true }) as never, { name: 'r/bad', phase: 'redact' });
    const msg = await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } });
    expect(text(msg)).toContain('withheld');
  });

  it('every outcome reaches tool_result: ok, error, not_found, invalid, denied, aborted, timeout', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    kernel.registry.register(defineTool({ name: 'fail', label: 'F', description: 'd', parameters: Type.Object({}), execute: async () => { throw new Error('x'); } }), { source: 'sdk' });
    kernel.registry.register(
      defineTool({ name: 'hang', label: 'H', description: 'd', parameters: Type.Object({}), execute: (_i, _p, s) => new Promise((_, rej) => s!.addEventListener('abort', () => rej(new Error('stop')))) }),
      { source: 'sdk' },
    );
    kernel.on('tool_call', (e) => (e.toolName === 'echo' && e.args.text === 'deny' ? { effect: 'deny' } : undefined), { name: 'p/x', phase: 'authorize' });
    const outcomes: Outcome[] = [];
    kernel.on('tool_result', (e: ToolResultEvent) => void outcomes.push(e.outcome), { name: 'audit/all', phase: 'observe' });
    await kernel.executeToolCall({ id: '1', name: 'echo', arguments: { text: 'ok' } });
    await kernel.executeToolCall({ id: '2', name: 'fail', arguments: {} });
    await kernel.executeToolCall({ id: '3', name: 'nope', arguments: {} });
    await kernel.executeToolCall({ id: '4', name: 'echo', arguments: {} });
    await kernel.executeToolCall({ id: '5', name: 'echo', arguments: { text: 'deny' } });
    await kernel.executeToolCall({ id: '6', name: 'echo', arguments: { text: 'x' } }, { signal: AbortSignal.abort() });
    await kernel.executeToolCall({ id: '7', name: 'hang', arguments: {} }, { timeoutMs: 10 });
    expect(outcomes).toEqual(['ok', 'error', 'not_found', 'invalid', 'denied', 'aborted', 'timeout']);
  });

  it('a transform cannot make a call that did not run look successful', async () => {
    const kernel = testKernel();
    kernel.on('tool_result', () => ({ isError: false }), { name: 't/hide', phase: 'transform' });
    const msg = await kernel.executeToolCall({ id: 'c', name: 'missing', arguments: {} });
    expect(msg).toMatchObject({ outcome: 'not_found', isError: true });
  });
});

describe('registration', () => {
  it('rejects unknown phases (listing the valid ones), missing names, bad options and duplicate names', () => {
    const kernel = testKernel();
    expect(() => kernel.on('tool_call', (() => undefined) as never, { name: 'x', phase: 'redact' as never })).toThrow(/phase "redact".*transform, authorize, approve, observe/s);
    expect(() => kernel.on('tool_call', () => undefined, { name: '', phase: 'observe' })).toThrow(/name/);
    expect(() => kernel.on('tool_call', () => undefined, { name: 'x', phase: 'observe', timeoutMs: -1 })).toThrow(/timeoutMs/);
    expect(() => kernel.on('tool_call', () => undefined, { name: 'x', phase: 'observe', failure: 'maybe' as never })).toThrow(/failure/);
    expect(() => kernel.on('tool_stuff' as never, (() => undefined) as never, { name: 'x', phase: 'observe' } as never)).toThrow(/tool_call, tool_result/);
    kernel.on('tool_call', () => undefined, { name: 'dup', phase: 'observe' });
    expect(() => kernel.on('tool_call', () => undefined, { name: 'dup', phase: 'authorize' })).toThrow(/already/);
  });

  it('an unregistered handler no longer runs', async () => {
    const kernel = testKernel();
    kernel.registry.register(echo, { source: 'sdk' });
    const off = kernel.on('tool_call', () => ({ effect: 'deny' }), { name: 'p/d', phase: 'authorize' });
    expect((await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } })).outcome).toBe('denied');
    off();
    expect((await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } })).outcome).toBe('ok');
    expect(kernel.status().handlers).toEqual([]);
  });

  it('lists handlers with their resolved defaults', () => {
    const kernel = testKernel();
    kernel.on('tool_call', (_e: ToolCallEvent) => undefined, { name: 'p/a', phase: 'authorize' });
    kernel.on('tool_result', () => undefined, { name: 'a/o', phase: 'observe', timeoutMs: 5 });
    expect(kernel.status().handlers).toEqual([
      { hook: 'tool_call', phase: 'authorize', name: 'p/a', failure: 'closed', timeoutMs: 10_000 },
      { hook: 'tool_result', phase: 'observe', name: 'a/o', failure: 'open', timeoutMs: 5 },
    ]);
  });
});
