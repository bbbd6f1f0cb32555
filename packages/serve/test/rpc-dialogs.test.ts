import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '@airlock/kernel/testing';
import { createDialogBridge } from '../src/index.js';
import { rpcSessions, textOf } from './support/rpc-session.js';

const session = rpcSessions('airlock-rpc-dialogs-');
const askRead = { files: { 'a.txt': 'APPROVED CONTENT\n' }, settings: { permissions: { ask: ['read'] } } };

describe('airlock serve: approval prompts go to the client as ui/* requests', () => {
  it('without initialize {dialogs: true}, nobody is asked: the call is denied, naming what to do', async () => {
    const s = await session(askRead);
    const answer = await s.request('tools/call', { name: 'read', arguments: { path: 'a.txt' } });
    expect(answer.result).toMatchObject({ outcome: 'denied', isError: true });
    expect(textOf(answer.result)).toMatch(/nobody can be asked here/);
    expect(s.received.filter((m) => m.method?.startsWith('ui/'))).toEqual([]);
    expect(JSON.stringify(s.received)).not.toContain('APPROVED CONTENT');
  });

  it('a client that answers dialogs gets ui/select, and its "Allow once" lets the call run', async () => {
    const s = await session(askRead);
    const init = await s.request('initialize', { dialogs: true, client: { name: 'test' } });
    expect(init.result).toMatchObject({ protocol: 'airlock-rpc/1', dialogs: true, dialogTimeoutMs: 120_000 });
    s.send('tools/call', { name: 'read', arguments: { path: 'a.txt' } }, 'c');
    const prompt = await s.waitFor((m) => m.method === 'ui/select');
    expect(typeof prompt.id).toBe('string');
    expect(prompt.params.title).toMatch(/read/);
    expect(prompt.params.choices).toContain('Allow once');
    expect(prompt.params.timeoutMs).toBeGreaterThan(100_000);
    s.respond(prompt.id!, { result: { value: 'Allow once' } });
    const answer = await s.answerTo('c');
    expect(answer.result.outcome).toBe('ok');
    expect(textOf(answer.result)).toContain('APPROVED CONTENT');
  });

  it('"Deny", a dismissed dialog, an error answer and a malformed answer all deny', async () => {
    const s = await session(askRead);
    await s.request('initialize', { dialogs: true });
    // Each ends with its own true reason, never "no answer within …" (nobody timed out).
    const answers: [object, string][] = [
      [{ result: { value: 'Deny' } }, 'Denied by the user.'],
      [{ result: { cancelled: true } }, 'the dialog was cancelled'],
      [{ error: { code: 1, message: 'no UI' } }, 'nobody could answer (the client answered with an error: "no UI")'],
      [{ result: { value: 'Allow for ever' } }, 'the answer was not one of the choices, so it counts as no (the client answered {"value":"Allow for ever"})'],
      [{ result: true }, 'the answer was not one of the choices, so it counts as no'],
    ];
    const asked = new Set<unknown>();
    for (const [i, [body, reason]] of answers.entries()) {
      s.send('tools/call', { name: 'read', arguments: { path: 'a.txt' } }, `d${i}`);
      const prompt = await s.waitFor((m) => m.method === 'ui/select' && !asked.has(m.id));
      asked.add(prompt.id);
      s.respond(prompt.id!, body);
      const answer = await s.answerTo(`d${i}`);
      expect(answer.result.outcome, JSON.stringify(body)).toBe('denied');
      expect(textOf(answer.result), JSON.stringify(body)).toContain(reason);
      expect(textOf(answer.result), JSON.stringify(body)).not.toMatch(/no answer within|did not say why/);
    }
    expect(JSON.stringify(s.received)).not.toContain('APPROVED CONTENT');
    expect(s.logs.join('\n')).toMatch(/malformed answer to ui\/select/);
  });

  it('a client that never answers: the dialog times out as a deny, ui/cancel closes it, a late answer is ignored', async () => {
    // The approval prompt's own limit (its option timeoutMs, at its minimum of 1 s) stands.
    const approval = { name: '@airlock/approval', options: { timeoutMs: 1000 } };
    const s = await session({ ...askRead, settings: { ...askRead.settings, extensions: [approval] } });
    await s.request('initialize', { dialogs: true });
    const started = Date.now();
    s.send('tools/call', { name: 'read', arguments: { path: 'a.txt' } }, 't');
    const prompt = await s.waitFor((m) => m.method === 'ui/select');
    expect(prompt.params.timeoutMs).toBeLessThanOrEqual(1000);
    const answer = await s.answerTo('t');
    expect(answer.result.outcome).toBe('denied');
    expect(textOf(answer.result)).toMatch(/no answer within 1 s/);
    expect(Date.now() - started).toBeLessThan(6000);
    const cancel = await s.waitFor((m) => m.method === 'ui/cancel');
    expect(cancel.params).toEqual({ id: prompt.id });
    expect(cancel.id).toBeUndefined();
    s.respond(prompt.id!, { result: { value: 'Allow once' } });
    expect((await s.request('tools/list', {}, 'after')).result).toBeDefined();
    expect(s.logs.join('\n')).toContain(`ignored a response to id ${JSON.stringify(prompt.id)}: no dialog is waiting for it`);
  });

  it('input ending while a dialog waits: the dialog is "no" at once and the call answers', async () => {
    const s = await session(askRead);
    await s.request('initialize', { dialogs: true });
    s.send('tools/call', { name: 'read', arguments: { path: 'a.txt' } }, 'e');
    await s.waitFor((m) => m.method === 'ui/select');
    s.input.end();
    await s.served;
    expect(s.received.find((m) => m.id === 'e')?.result.outcome).toBe('denied');
    expect(textOf(s.received.find((m) => m.id === 'e')?.result)).toContain('nobody could answer (the client stopped answering');
  });
});

describe('airlock serve: a blocked host (a policy extension failed to load)', () => {
  it('refuses every call through this door too, and says so in initialize', async () => {
    const dir = makeTempDir('airlock-rpc-guard-');
    mkdirSync(join(dir, 'src'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'guard', version: '0.1.0', type: 'module', airlock: { extension: './src/index.ts', kernel: '^1.0.0', provides: { tools: [], hooks: ['tool_call:authorize'] } } }));
    writeFileSync(join(dir, 'src/index.ts'), `export default { name: 'guard', setup(api: any) { api.on('tool_call', () => undefined, { name: 'rules', phase: 'authorize' }); throw new Error('rules file is corrupt'); } };\n`);
    const s = await session({ files: { 'a.txt': 'BLOCKED CONTENT\n' }, settings: { extensions: [{ path: dir }] } });
    const init = await s.request('initialize', {});
    expect(init.result.blocked.message).toMatch(/guard/);
    const one = await s.request('tools/call', { name: 'read', arguments: { path: 'a.txt' } });
    const batch = await s.request('tools/batch', { calls: [{ name: 'read', arguments: { path: 'a.txt' } }] });
    const preflight = await s.request('tools/preflight', { name: 'read', arguments: { path: 'a.txt' } });
    expect(one.result.outcome).toBe('denied');
    expect(textOf(one.result)).toMatch(/rules file is corrupt/);
    expect(batch.result.messages[0].outcome).toBe('denied');
    expect(preflight.result.effect).toBe('deny');
    expect(JSON.stringify(s.received)).not.toContain('BLOCKED CONTENT');
  });
});

describe('createDialogBridge', () => {
  it('gives a dialog that sets no time limit the server\'s, and answers "no" when it runs out', async () => {
    const sent: any[] = [];
    const bridge = createDialogBridge({ send: (m) => (sent.push(m), true), log: () => {}, timeoutMs: 150 });
    expect(bridge.ui.interactive).toBe(false);
    expect(await bridge.ui.confirm('Before the client said it answers dialogs')).toBe(false);
    expect(sent).toEqual([]);
    bridge.enable(true);
    expect(bridge.ui.interactive).toBe(true);
    const started = Date.now();
    expect(await bridge.ui.confirm('Delete build/?')).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(sent.map((m) => m.method)).toEqual(['ui/confirm', 'ui/cancel']);
    expect(sent[0].params).toMatchObject({ title: 'Delete build/?' });
    expect(sent[0].params.timeoutMs).toBeLessThanOrEqual(150);
    expect(sent[1].params).toEqual({ id: sent[0].id });
    // An answer in time is the answer.
    const asked = bridge.ui.input('Why?');
    await new Promise((r) => setImmediate(r));
    expect(bridge.answer({ jsonrpc: '2.0', id: sent[2].id, result: { value: 'because' } })).toBe(true);
    expect(await asked).toBe('because');
    expect(bridge.answer({ jsonrpc: '2.0', id: sent[2].id, result: { value: 'again' } })).toBe(false);
  });
});
