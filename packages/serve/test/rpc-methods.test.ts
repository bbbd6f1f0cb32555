import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { defineExtension, defineTool } from '@airlock/contract';
import { rpcSessions, textOf } from './support/rpc-session.js';
import { scaledMs } from '@airlock/kernel/testing';

const session = rpcSessions('airlock-rpc-methods-');

describe('airlock serve: the methods, through a real host', () => {
  it('tools/list gives the registry, the enabled set and the provider schemas asked for', async () => {
    const s = await session({ settings: { tools: { exclude: ['bash'] } } });
    const { result } = await s.request('tools/list', { provider: 'openai' });
    expect(result.provider).toBe('openai');
    expect(result.enabled).toContain('read');
    expect(result.enabled).not.toContain('bash');
    const bash = result.registry.find((t: { name: string }) => t.name === 'bash');
    expect(bash).toMatchObject({ enabled: false });
    expect(bash.excluded.join(' ')).toMatch(/exclude/);
    const read = result.providerTools.find((t: any) => t.function?.name === 'read');
    expect(read.type).toBe('function');
    expect(read.function.parameters.properties.path).toBeDefined();
    // Default: MCP's shape.
    const mcp = (await s.request('tools/list')).result;
    expect(mcp.provider).toBe('mcp');
    expect(mcp.providerTools.map((t: any) => t.name)).toEqual(mcp.enabled);
    expect(mcp.providerTools[0].inputSchema.type).toBe('object');
  });

  it('tools/call runs a call through the pipeline and answers with its ToolResultMessage', async () => {
    const s = await session({ files: { 'notes.txt': 'first line\nsecond line\n' } });
    const answer = await s.request('tools/call', { name: 'read', arguments: { path: 'notes.txt' } }, 'r-1');
    expect(answer.error).toBeUndefined();
    expect(answer.result).toMatchObject({ role: 'toolResult', toolCallId: 'r-1', toolName: 'read', outcome: 'ok', isError: false });
    expect(textOf(answer.result)).toContain('first line\nsecond line');
    // A caller's own tool call id is kept.
    const own = await s.request('tools/call', { name: 'read', arguments: { path: 'notes.txt' }, id: 'toolu_42' });
    expect(own.result.toolCallId).toBe('toolu_42');
  });

  it('a denied call is a result with isError, and the denied file never reaches the client', async () => {
    const s = await session({ files: { 'secret.txt': 'TOP-SECRET-42\n' }, settings: { permissions: { deny: ['fs.read(**/secret.txt)'] } } });
    const answer = await s.request('tools/call', { name: 'read', arguments: { path: 'secret.txt' } });
    expect(answer.error).toBeUndefined();
    expect(answer.result).toMatchObject({ outcome: 'denied', isError: true });
    expect(JSON.stringify(s.received)).not.toContain('TOP-SECRET-42');
  });

  it('the rest of the pipeline runs too: a token in a result is redacted, and the audit log records every call', async () => {
    const token = 'ghp_' + 'Zq9x7LmN3pR5tV8wY2bD4fH6jK1sA0cE3gI5';
    const s = await session({ files: { 'deploy.txt': `token: ${token}\n`, '.env': 'X=1\n' }, settings: { permissions: { deny: ['fs.read(**/.env)'] } } });
    const answer = await s.request('tools/call', { name: 'read', arguments: { path: 'deploy.txt' } }, 'audited-ok');
    expect(answer.result.outcome).toBe('ok');
    expect(textOf(answer.result)).toMatch(/token: .*REDACTED/);
    expect(JSON.stringify(s.received)).not.toContain(token);
    await s.request('tools/call', { name: 'read', arguments: { path: '.env' } }, 'audited-denied');
    const auditRoot = join(s.base, 'state', 'airlock', 'audit');
    const records = (): string => (existsSync(auditRoot) ? readdirSync(auditRoot).map((d) => readFileSync(join(auditRoot, d, 'audit.jsonl'), 'utf8')).join('') : '');
    for (let i = 0; i < 50 && !records().includes('audited-denied'); i++) await new Promise((r) => setTimeout(r, 20));
    expect(records()).toContain('audited-ok');
    expect(records()).toContain('audited-denied');
    expect(records()).not.toContain(token);
  });

  it('an invalid call and an unknown tool are results the model can act on, not protocol errors', async () => {
    const s = await session();
    const invalid = await s.request('tools/call', { name: 'read', arguments: { offset: 2 } });
    expect(invalid.result).toMatchObject({ outcome: 'invalid', isError: true });
    expect(textOf(invalid.result)).toMatch(/path/);
    const unknown = await s.request('tools/call', { name: 'raed', arguments: {} });
    expect(unknown.result).toMatchObject({ outcome: 'not_found', isError: true });
    expect(textOf(unknown.result)).toMatch(/read/); // names the close match
  });

  it('tools/batch answers every call in source order', async () => {
    const s = await session({ files: { 'a.txt': 'AAA\n', 'b.txt': 'BBB\n' } });
    const { result } = await s.request('tools/batch', { calls: [{ name: 'read', arguments: { path: 'a.txt' } }, { name: 'nope' }, { name: 'read', arguments: { path: 'b.txt' } }], maxConcurrency: 2 }, 'b');
    expect(result.messages.map((m: any) => [m.toolCallId, m.outcome])).toEqual([
      ['b-1', 'ok'],
      ['b-2', 'not_found'],
      ['b-3', 'ok'],
    ]);
    expect(textOf(result.messages[0])).toContain('AAA');
    expect(textOf(result.messages[2])).toContain('BBB');
    expect(result.terminate).toBe(false);
  });

  it('tools/preflight judges a call without running it', async () => {
    const s = await session({ settings: { permissions: { deny: ['bash(rm *)'] } } });
    const { result } = await s.request('tools/preflight', { name: 'bash', arguments: { command: 'rm -rf build && touch ran.txt' } });
    expect(result).toMatchObject({ toolName: 'bash', effect: 'deny', outcome: 'denied' });
    expect(result.reason).toMatch(/rm/);
    const write = await s.request('tools/preflight', { name: 'write', arguments: { path: 'new.txt', content: 'x' } });
    expect(write.result.resources).toEqual([expect.objectContaining({ kind: 'fs.write' })]);
    // Nothing ran.
    const ls = await s.request('tools/call', { name: 'ls', arguments: {} });
    expect(textOf(ls.result)).not.toMatch(/new\.txt|ran\.txt/);
  });

  it('abort stops a running call by its request id; the call still answers, with outcome "aborted"', async () => {
    const s = await session({ settings: { permissions: { allow: ['bash(sleep *)'] } } });
    s.send('tools/call', { name: 'bash', arguments: { command: 'sleep 20' } }, 'long');
    await s.waitFor((m) => m.method === undefined && m.id === 'long', 300).catch(() => undefined); // still running
    const started = Date.now();
    const stop = await s.request('abort', { id: 'long' });
    expect(stop.result).toEqual({ aborted: 1 });
    const answer = await s.answerTo('long');
    expect(answer.result.outcome).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(scaledMs(5000, { below: 20_000 }));
    // Nothing left to abort.
    expect((await s.request('abort', {})).result).toEqual({ aborted: 0 });
  });

  it('events/subscribe streams kernel events as notifications until events/unsubscribe', async () => {
    const s = await session({ files: { 'a.txt': 'x\n' } });
    const { result } = await s.request('events/subscribe', { types: ['tool_execution_start', 'tool_execution_end'] });
    await s.request('tools/call', { name: 'read', arguments: { path: 'a.txt' } }, 'e1');
    const events = s.received.filter((m) => m.method === 'events/event');
    expect(events.map((m) => [m.params.subscription, m.params.event.type, m.params.event.toolCallId])).toEqual([
      [result.subscription, 'tool_execution_start', 'e1'],
      [result.subscription, 'tool_execution_end', 'e1'],
    ]);
    expect(events[1]!.params.event.result.outcome).toBe('ok');
    expect((await s.request('events/unsubscribe', { subscription: result.subscription })).result).toEqual({ unsubscribed: true });
    await s.request('tools/call', { name: 'read', arguments: { path: 'a.txt' } }, 'e2');
    expect(s.received.filter((m) => m.method === 'events/event' && m.params.event.toolCallId === 'e2')).toEqual([]);
    // A bounded number of subscriptions: each event goes out once per subscription.
    for (let i = 0; i < 16; i++) expect((await s.request('events/subscribe', {})).result.subscription).toMatch(/^s\d+$/);
    const over = await s.request('events/subscribe', {});
    expect(over.error).toMatchObject({ code: -32600 });
    expect(over.error!.message).toMatch(/At most 16 subscriptions.*events\/unsubscribe/);
  });

  it('tools/changed tells the client when the enabled set changes (a tool added mid-session), once, and tools/list then offers it', async () => {
    const installer = defineExtension({
      name: 'plugins',
      setup(api) {
        const set = api.toolSet!('plugins');
        const fresh = defineTool({ name: 'fresh', label: 'Fresh', description: 'Says it is new.', parameters: Type.Object({}), execute: async () => ({ content: [{ type: 'text', text: 'brand new' }] }) });
        api.registerTool(defineTool({ name: 'install', label: 'Install', description: 'Adds fresh.', parameters: Type.Object({}), execute: async () => (set.replace([fresh]), { content: [{ type: 'text', text: 'installed' }] }) }));
      },
    });
    const s = await session({ modules: [{ extension: installer }] });
    expect((await s.request('tools/list')).result.enabled).not.toContain('fresh');
    const changed = s.waitFor((m) => m.method === 'tools/changed');
    expect((await s.request('tools/call', { name: 'install', arguments: {} })).result.outcome).toBe('ok');
    const note = await changed;
    expect(note.params.enabled).toEqual(expect.arrayContaining(['fresh', 'install', 'read']));
    expect((await s.request('tools/list')).result.enabled).toContain('fresh');
    expect(textOf((await s.request('tools/call', { name: 'fresh', arguments: {} })).result)).toBe('brand new');
    // Installing again changes nothing: no second notification.
    await s.request('tools/call', { name: 'install', arguments: {} });
    await new Promise((r) => setTimeout(r, 50));
    expect(s.received.filter((m) => m.method === 'tools/changed')).toHaveLength(1);
  });

  it('100 concurrent tools/call requests all get their answers, ids matched', async () => {
    const files = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}.txt`, `content of ${i}\n`]));
    const s = await session({ files });
    // Written at once, before any answer: all 100 run at the same time.
    s.write(Array.from({ length: 100 }, (_, i) => `${JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'read', arguments: { path: `f${i}.txt` } } })}\n`).join(''));
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => s.answerTo(i)));
    for (const [i, answer] of answers.entries()) {
      expect(answer.result.outcome).toBe('ok');
      expect(textOf(answer.result)).toContain(`content of ${i}\n`);
    }
    expect(s.received.filter((m) => m.method === undefined)).toHaveLength(100);
  });
});
