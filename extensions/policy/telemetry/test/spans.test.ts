import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventsNamed, tracedKernel } from './helpers.js';

const GITHUB_TOKEN = `ghp_${'a1B2c3D4e5'.repeat(4)}`;

describe('a span per tool call (GenAI execute_tool conventions)', () => {
  it('an ok call: execute_tool span with the GenAI attributes, an execute event, outcome ok, status unset', async () => {
    const t = tracedKernel();
    const result = await t.kernel.executeToolCall({ id: 'call-1', name: 'echo', arguments: { text: 'hello' } });
    expect(result.outcome).toBe('ok');
    const spans = t.spans();
    const root = spans.find((s) => s.name === 'execute_tool echo')!;
    expect(root).toBeDefined();
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'echo',
      'gen_ai.tool.call.id': 'call-1',
      'airlock.outcome': 'ok',
      'airlock.decision': 'allow',
      'airlock.decision.source': 'default',
      'airlock.session.id': t.kernel.session.id,
    });
    expect(root.status.code).toBe(0);
    expect(spans).toHaveLength(1);
    expect(root.events.map((e) => e.name)).toEqual(['airlock.execute']);
    // No content by default.
    expect(JSON.stringify(spans.map((s) => [s.attributes, s.events]))).not.toContain('hello');
  });

  it('a denied call: the deciding rule and handler, a vote event, no execute event, status error', async () => {
    const t = tracedKernel();
    t.kernel.on('tool_call', () => ({ effect: 'deny', reason: 'no echo of secret-file', rule: 'acme/no-echo' }), { name: 'acme/guard', phase: 'authorize' });
    const result = await t.kernel.executeToolCall({ id: 'call-2', name: 'echo', arguments: { text: 'secret-file' } });
    expect(result.outcome).toBe('denied');
    const spans = t.spans();
    expect(spans.map((s) => s.name)).toEqual(['execute_tool echo']);
    const root = spans[0]!;
    expect(root.attributes).toMatchObject({
      'airlock.outcome': 'denied',
      'airlock.decision': 'deny',
      'airlock.decision.source': 'vote',
      'airlock.decision.rule': 'acme/no-echo',
      'airlock.decision.handler': 'acme/guard',
      'error.type': 'denied',
    });
    expect(root.status.code).toBe(2);
    expect(eventsNamed(root, 'airlock.execute')).toEqual([]);
    expect(eventsNamed(root, 'airlock.authorize.vote').map((e) => e.attributes)).toEqual([
      { 'airlock.handler': 'acme/guard', 'airlock.vote.effect': 'deny', 'airlock.rule': 'acme/no-echo' },
    ]);
    // The reason quotes the arguments: not exported by default.
    expect(JSON.stringify([root.attributes, root.events])).not.toContain('secret-file');
    const metrics = await t.metrics();
    expect(metrics.get('airlock.tool.denials')).toEqual([
      { attributes: { 'gen_ai.tool.name': 'echo', 'airlock.rule': 'acme/no-echo', 'airlock.outcome': 'denied' }, value: 1 },
    ]);
  });

  it('an invalid call: outcome invalid, no execute event, the call still counted', async () => {
    const t = tracedKernel();
    const result = await t.kernel.executeToolCall({ id: 'call-3', name: 'echo', arguments: { text: 42, extra: true } });
    expect(result.outcome).toBe('invalid');
    const spans = t.spans();
    expect(spans.map((s) => s.name)).toEqual(['execute_tool echo']);
    expect(spans[0]!.attributes).toMatchObject({ 'gen_ai.tool.call.id': 'call-3', 'airlock.outcome': 'invalid', 'error.type': 'invalid' });
    expect(spans[0]!.status.code).toBe(2);
    expect(eventsNamed(spans[0]!, 'airlock.execute')).toEqual([]);
    const metrics = await t.metrics();
    expect(metrics.get('airlock.tool.calls')).toEqual([{ attributes: { 'gen_ai.tool.name': 'echo', 'airlock.outcome': 'invalid' }, value: 1 }]);
  });

  it('an aborted batch: every call gets its own span, ended, with outcome aborted', async () => {
    const t = tracedKernel();
    const controller = new AbortController();
    const batch = t.kernel.executeBatch(
      [
        { id: 'a', name: 'wait', arguments: {} },
        { id: 'b', name: 'wait', arguments: {} },
      ],
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 50);
    const { messages } = await batch;
    expect(messages.map((m) => m.outcome)).toEqual(['aborted', 'aborted']);
    const roots = t.spans().filter((s) => s.name === 'execute_tool wait');
    expect(roots.map((s) => s.attributes['gen_ai.tool.call.id']).sort()).toEqual(['a', 'b']);
    for (const root of roots) {
      expect(root.attributes['airlock.outcome']).toBe('aborted');
      expect(root.attributes['error.type']).toBe('aborted');
      expect(root.ended).toBe(true);
    }
  });

  it('a transform is recorded by hash, never by content', async () => {
    const t = tracedKernel();
    t.kernel.on('tool_call', (e) => ({ text: `${String(e.args['text'])}-changed` }), { name: 'acme/rewrite', phase: 'transform' });
    await t.kernel.executeToolCall({ id: 'call-4', name: 'echo', arguments: { text: 'plain-words' } });
    const root = t.spans().find((s) => s.name === 'execute_tool echo')!;
    const [transform] = eventsNamed(root, 'airlock.transform');
    expect(transform?.attributes?.['airlock.handler']).toBe('acme/rewrite');
    expect(transform?.attributes?.['airlock.args.before.sha256']).toMatch(/^[0-9a-f]{64}$/);
    expect(transform?.attributes?.['airlock.args.after.sha256']).not.toBe(transform?.attributes?.['airlock.args.before.sha256']);
    expect(JSON.stringify([root.attributes, root.events])).not.toContain('plain-words');
  });

  it('content export, when asked for, sends arguments and results with secrets redacted', async () => {
    const t = tracedKernel({ exportContent: true });
    await t.kernel.executeToolCall({ id: 'call-5', name: 'echo', arguments: { text: `token ${GITHUB_TOKEN}` } });
    const root = t.spans().find((s) => s.name === 'execute_tool echo')!;
    expect(String(root.attributes['gen_ai.tool.call.arguments'])).toContain('[REDACTED:');
    expect(String(root.attributes['gen_ai.tool.call.result'])).toContain('token [REDACTED:');
    expect(JSON.stringify(t.spans().map((s) => s.attributes))).not.toContain(GITHUB_TOKEN);
  });

  it('content export carries the files the policy judged (resolved path and spelling), beside the arguments; without it, neither', async () => {
    const t = tracedKernel({ exportContent: true });
    await t.kernel.executeToolCall({ id: 'call-7', name: 'peek', arguments: { path: 'link/notes.txt' } });
    const root = t.spans().find((s) => s.name === 'execute_tool peek')!;
    expect(JSON.parse(String(root.attributes['airlock.tool.resources']))).toEqual([{ kind: 'fs.read', path: join(t.dir, 'real', 'notes.txt'), written: 'link/notes.txt' }]);
    const quiet = tracedKernel();
    await quiet.kernel.executeToolCall({ id: 'call-8', name: 'peek', arguments: { path: 'link/notes.txt' } });
    const span = quiet.spans().find((s) => s.name === 'execute_tool peek')!;
    expect(span.attributes['airlock.tool.resources']).toBeUndefined();
    expect(JSON.stringify(span.attributes)).not.toContain('notes.txt');
  });

  it('redactions in a result are counted by detector, without the secret', async () => {
    const t = tracedKernel();
    t.kernel.on('tool_result', (e) => ({ content: e.content.map((c) => (c.type === 'text' ? { ...c, text: c.text.replace(GITHUB_TOKEN, '[REDACTED:github-token#1]') } : c)) }), { name: 'redactor', phase: 'redact' });
    await t.kernel.executeToolCall({ id: 'call-6', name: 'echo', arguments: { text: GITHUB_TOKEN } });
    const root = t.spans().find((s) => s.name === 'execute_tool echo')!;
    expect(eventsNamed(root, 'airlock.redact').map((e) => e.attributes)).toEqual([{ 'airlock.detector': 'github-token', 'airlock.redactions': 1 }]);
    const metrics = await t.metrics();
    expect(metrics.get('airlock.redactions')).toEqual([{ attributes: { 'airlock.detector': 'github-token', 'gen_ai.tool.name': 'echo' }, value: 1 }]);
    expect(metrics.get('airlock.decision.duration')?.length).toBe(1);
    expect(metrics.get('airlock.execution.duration')?.length).toBe(1);
  });
});
