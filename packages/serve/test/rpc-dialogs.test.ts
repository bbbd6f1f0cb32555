import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { around, HOSTILE_SAMPLES, makeTempDir, rawHostile, visibleForm } from '@airlock/kernel/testing';
import { createDialogBridge } from '../src/index.js';
import { rpcSessions, textOf } from './support/rpc-session.js';

const session = rpcSessions('airlock-rpc-dialogs-');
const askRead = { files: { 'a.txt': 'APPROVED CONTENT\n' }, settings: { permissions: { ask: ['read'] } } };

describe('airlock serve: approval prompts go to the client as ui/ask requests, answered by choice id', () => {
  it('without initialize {dialogs: true}, nobody is asked: the call is denied, naming what to do', async () => {
    const s = await session(askRead);
    const answer = await s.request('tools/call', { name: 'read', arguments: { path: 'a.txt' } });
    expect(answer.result).toMatchObject({ outcome: 'denied', isError: true });
    expect(textOf(answer.result)).toMatch(/nobody can be asked here/);
    expect(s.received.filter((m) => m.method?.startsWith('ui/'))).toEqual([]);
    expect(JSON.stringify(s.received)).not.toContain('APPROVED CONTENT');
  });

  it('a client that answers dialogs gets the ask itself, and {"id": "once"} lets the call run', async () => {
    const s = await session(askRead);
    const init = await s.request('initialize', { dialogs: true, client: { name: 'test' } });
    expect(init.result).toMatchObject({ protocol: 'airlock-rpc/2', dialogs: true, dialogTimeoutMs: 120_000 });
    s.send('tools/call', { name: 'read', arguments: { path: 'a.txt' } }, 'c');
    const prompt = await s.waitFor((m) => m.method === 'ui/ask');
    expect(typeof prompt.id).toBe('string');
    expect(prompt.params).toMatchObject({ kind: 'choice', toolCallId: 'c' });
    expect(prompt.params.title).toMatch(/read/);
    // An explicit ask rule: only once and the denies are offered.
    expect(prompt.params.choices).toEqual([
      { id: 'once', label: 'Allow once' },
      { id: 'deny', label: 'Deny' },
      { id: 'deny-with-reason', label: 'Deny, and tell the model why…' },
    ]);
    expect(prompt.params.timeoutMs).toBeGreaterThan(100_000);
    s.respond(prompt.id!, { result: { id: 'once' } });
    const answer = await s.answerTo('c');
    expect(answer.result.outcome).toBe('ok');
    expect(textOf(answer.result)).toContain('APPROVED CONTENT');
  });

  it('"session" and "project" by id: the first allows the same call again without asking, the second saves a literal rule', async () => {
    const s = await session({});
    await s.request('initialize', { dialogs: true });
    const outside = (name: string) => join(s.base, name);
    const write = (name: string, id: string) => s.send('tools/call', { name: 'write', arguments: { path: outside(name), content: 'from the client\n' } }, id);
    const asked = new Set<unknown>();
    const nextAsk = async () => {
      const prompt = await s.waitFor((m) => m.method === 'ui/ask' && !asked.has(m.id));
      asked.add(prompt.id);
      return prompt;
    };

    write('session.txt', 'w1');
    const first = await nextAsk();
    // A default ask (a write outside the project): every answer is offered, each by its id.
    expect(first.params.choices.map((c: { id: string }) => c.id)).toEqual(['once', 'session', 'project', 'user', 'deny', 'deny-with-reason']);
    s.respond(first.id!, { result: { id: 'session' } });
    expect((await s.answerTo('w1')).result.outcome).toBe('ok');
    write('session.txt', 'w2');
    expect((await s.answerTo('w2')).result.outcome).toBe('ok');
    expect(asked.size).toBe(1);

    write('project.txt', 'w3');
    s.respond((await nextAsk()).id!, { result: { id: 'project' } });
    expect((await s.answerTo('w3')).result.outcome).toBe('ok');
    const saved = JSON.parse(readFileSync(join(s.project, '.airlock/settings.local.json'), 'utf8')) as { permissions: { allow: string[] } };
    expect(saved.permissions.allow).toEqual([`fs.write(/${realpathSync(s.base)}/project.txt)`]);
    expect(readFileSync(outside('project.txt'), 'utf8')).toBe('from the client\n');
  });

  it('"deny", a dismissed or declined ask, an error answer, a label instead of an id and a malformed answer all deny, each saying why', async () => {
    const s = await session(askRead);
    await s.request('initialize', { dialogs: true });
    // Each ends with its own true reason, never "no answer within …" (nobody timed out).
    const answers: [object, string][] = [
      [{ result: { id: 'deny' } }, 'Denied by the user.'],
      [{ result: { noAnswer: { kind: 'cancelled' } } }, 'the dialog was cancelled'],
      [{ result: { noAnswer: { kind: 'declined', detail: 'not now' } } }, 'the person declined the dialog (not now)'],
      [{ error: { code: 1, message: 'no UI' } }, 'nobody could answer (the client answered with an error: "no UI")'],
      // A client that still answers with a label is told the ids it should have sent.
      [{ result: { id: 'Allow once' } }, 'the answer was not one of the choices, so it counts as no (got "Allow once"; the choices are "once", "deny", "deny-with-reason")'],
      // The shape of airlock-rpc/1.
      [{ result: { value: 'Allow once' } }, 'got {"value":"Allow once"}, which is not an answer; expected {"id": "once", "deny" or "deny-with-reason"} or {"noAnswer": {"kind": …}}'],
      [{ result: true }, 'got true, which is not an answer'],
    ];
    const asked = new Set<unknown>();
    for (const [i, [body, reason]] of answers.entries()) {
      s.send('tools/call', { name: 'read', arguments: { path: 'a.txt' } }, `d${i}`);
      const prompt = await s.waitFor((m) => m.method === 'ui/ask' && !asked.has(m.id));
      asked.add(prompt.id);
      s.respond(prompt.id!, body);
      const answer = await s.answerTo(`d${i}`);
      expect(answer.result.outcome, JSON.stringify(body)).toBe('denied');
      expect(textOf(answer.result), JSON.stringify(body)).toContain(reason);
      expect(textOf(answer.result), JSON.stringify(body)).not.toMatch(/no answer within|did not say why/);
    }
    expect(JSON.stringify(s.received)).not.toContain('APPROVED CONTENT');
    // Whoever runs the server sees the client's mistake too.
    expect(s.logs.join('\n')).toContain('a malformed answer to ui/ask');
    expect(s.logs.join('\n')).toContain('got "Allow once"; the choices are "once", "deny", "deny-with-reason"');
  });

  it('deny with a reason: a second ask, of kind text, and the model reads the text', async () => {
    const s = await session(askRead);
    await s.request('initialize', { dialogs: true });
    s.send('tools/call', { name: 'read', arguments: { path: 'a.txt' } }, 'r');
    const choice = await s.waitFor((m) => m.method === 'ui/ask');
    s.respond(choice.id!, { result: { id: 'deny-with-reason' } });
    const text = await s.waitFor((m) => m.method === 'ui/ask' && m.id !== choice.id);
    expect(text.params).toMatchObject({ kind: 'text', toolCallId: 'r' });
    expect(text.params.choices).toBeUndefined();
    s.respond(text.id!, { result: { text: 'use the fixture instead' } });
    expect(textOf((await s.answerTo('r')).result)).toContain('Denied by the user: use the fixture instead');
  });

  it('a client that never answers: the ask times out as a deny, ui/cancel closes it, a late answer is ignored', async () => {
    // The approval prompt's own limit (its option timeoutMs, at its minimum of 1 s) stands.
    const approval = { name: '@airlock/approval', options: { timeoutMs: 1000 } };
    const s = await session({ ...askRead, settings: { ...askRead.settings, extensions: [approval] } });
    await s.request('initialize', { dialogs: true });
    s.send('tools/call', { name: 'read', arguments: { path: 'a.txt' } }, 't');
    const prompt = await s.waitFor((m) => m.method === 'ui/ask');
    expect(prompt.params.timeoutMs).toBeLessThanOrEqual(1000);
    const answer = await s.answerTo('t');
    expect(answer.result.outcome).toBe('denied');
    expect(textOf(answer.result)).toMatch(/no answer within 1 s/);
    const cancel = await s.waitFor((m) => m.method === 'ui/cancel');
    expect(cancel.params).toEqual({ id: prompt.id });
    expect(cancel.id).toBeUndefined();
    s.respond(prompt.id!, { result: { id: 'once' } });
    expect((await s.request('tools/list', {}, 'after')).result).toBeDefined();
    expect(s.logs.join('\n')).toContain(`ignored a response to id ${JSON.stringify(prompt.id)}: no dialog is waiting for it`);
  });

  it('input ending while an ask waits: the ask is "no" at once and the call answers', async () => {
    const s = await session(askRead);
    await s.request('initialize', { dialogs: true });
    s.send('tools/call', { name: 'read', arguments: { path: 'a.txt' } }, 'e');
    await s.waitFor((m) => m.method === 'ui/ask');
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
  it("gives an ask that sets no time limit the server's, and ends it as a timeout when it runs out", async () => {
    const sent: any[] = [];
    const bridge = createDialogBridge({ send: (m) => (sent.push(m), true), log: () => {}, timeoutMs: 150 });
    expect(bridge.ui.interactive).toBe(false);
    expect(await bridge.ui.ask({ kind: 'confirm', title: 'Before the client said it answers dialogs' })).toEqual({
      noAnswer: { kind: 'unavailable', detail: 'the RPC client does not answer dialogs' },
    });
    expect(sent).toEqual([]);
    bridge.enable(true);
    expect(bridge.ui.interactive).toBe(true);
    expect(await bridge.ui.ask({ kind: 'confirm', title: 'Delete build/?' })).toEqual({ noAnswer: { kind: 'timeout', timeoutMs: 150 } });
    expect(sent.map((m) => m.method)).toEqual(['ui/ask', 'ui/cancel']);
    // A confirm goes out with its yes/no choices, so a client needs no rule of its own for it.
    expect(sent[0].params).toMatchObject({ kind: 'confirm', title: 'Delete build/?', choices: [{ id: 'yes', label: 'Yes' }, { id: 'no', label: 'No' }] });
    expect(sent[0].params.timeoutMs).toBeLessThanOrEqual(150);
    expect(sent[1].params).toEqual({ id: sent[0].id });
    // An answer in time is the answer.
    const asked = bridge.ui.ask({ kind: 'text', title: 'Why?' });
    await new Promise((r) => setImmediate(r));
    expect(bridge.answer({ jsonrpc: '2.0', id: sent[2].id, result: { text: 'because' } })).toBe(true);
    expect(await asked).toEqual({ text: 'because' });
    expect(bridge.answer({ jsonrpc: '2.0', id: sent[2].id, result: { text: 'again' } })).toBe(false);
  });
});

describe('createDialogBridge: the texts a client shows a person', () => {
  it('title, message, labels and placeholder carry every hostile character as a visible escape; ids go verbatim', async () => {
    const sent: any[] = [];
    const bridge = createDialogBridge({ send: (m) => (sent.push(m), true), log: () => {}, timeoutMs: 60_000 });
    bridge.enable(true);
    const next = async () => {
      await vi.waitFor(() => expect(sent.at(-1)?.method).toBe('ui/ask'));
      return sent.pop();
    };
    for (const sample of HOSTILE_SAMPLES) {
      const text = around(sample);
      const asked = bridge.ui.ask({ kind: 'choice', title: `Run ${text}?`, message: `It says ${text}`, choices: [{ id: 'one', label: 'one' }, { id: text, label: text }] });
      const choice = await next();
      for (const field of [choice.params.title, choice.params.message]) {
        expect(rawHostile(field, { lines: true }), sample.name).toEqual([]);
        if (sample.text !== '\n') expect(field, sample.name).toContain(visibleForm(sample.text));
      }
      expect(rawHostile(choice.params.choices[1].label), sample.name).toEqual([]);
      expect(choice.params.choices[1].label, sample.name).toContain(visibleForm(sample.text));
      expect(choice.params.choices.map((c: { id: string }) => c.id)).toEqual(['one', text]);
      bridge.answer({ jsonrpc: '2.0', id: choice.id, result: { id: text } });
      expect(await asked).toEqual({ id: text });

      const typed = bridge.ui.ask({ kind: 'text', title: 'Say it', placeholder: text });
      const input = await next();
      expect(rawHostile(input.params.placeholder), sample.name).toEqual([]);
      expect(input.params.placeholder, sample.name).toContain(visibleForm(sample.text));
      bridge.answer({ jsonrpc: '2.0', id: input.id, result: { noAnswer: { kind: 'cancelled' } } });
      expect(await typed).toEqual({ noAnswer: { kind: 'cancelled' } });
    }
  });
});
