import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '@airlock/kernel/testing';
import type { ToolResultMessage } from '@airlock/contract';
import { loadTranscript, openTranscript, redactMessage, type AssistantMessage } from '../src/index.js';

/**
 * Every string of a message passes the redactor before it is written; a redactor that fails
 * withholds the message. (With the real redact-secrets through a real host: packages/cli/test/transcript-redaction.test.ts.)
 */

const SECRET = 'S3CR3T-VALUE';
const scrub = (text: string) => text.replaceAll(SECRET, '[X]');
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

const assistant: AssistantMessage = {
  role: 'assistant',
  content: [
    { type: 'thinking', thinking: `the key is ${SECRET}`, signature: 'sig-opaque' },
    { type: 'text', text: `use ${SECRET}` },
    { type: 'toolCall', id: 'call_7', name: 'bash', arguments: { command: `echo ${SECRET}`, env: { [SECRET]: [SECRET] } } },
    { type: 'toolCall', id: 'call_8', name: 'read', arguments: undefined, argumentsText: `{"path":"${SECRET}`, parseError: `bad JSON near ${SECRET}` },
  ],
  stopReason: 'toolUse',
  errorMessage: `provider said ${SECRET}`,
  provider: 'scripted',
  model: 'm',
  timestamp: 5,
};
const result: ToolResultMessage = {
  role: 'toolResult',
  toolCallId: 'call_7',
  toolName: 'bash',
  content: [{ type: 'text', text: `${SECRET}\n` }, { type: 'image', mimeType: 'image/png', data: PNG }],
  details: { stdout: SECRET, nested: [{ deep: SECRET }] },
  isError: false,
  outcome: 'ok',
  timestamp: 6,
};

describe('transcript redaction', () => {
  it('redacts every string of every kind of message; ids, signatures and image bytes pass unchanged', () => {
    const dir = makeTempDir('airlock-transcript-redaction-');
    const t = openTranscript({ cwd: dir, model: 'scripted:m', redact: scrub, where: { env: {}, home: dir }, dir: join(dir, 'sessions') });
    t.appendMessage({ role: 'user', content: [{ type: 'text', text: `my token ${SECRET}` }], timestamp: 4 });
    t.appendMessage(assistant);
    t.appendMessage(result);
    t.close();
    const bytes = readFileSync(t.path, 'utf8');
    expect(bytes).not.toContain(SECRET);
    const [user, said, ran] = loadTranscript(t.path).messages as [unknown, AssistantMessage, ToolResultMessage];
    expect(user).toEqual({ role: 'user', content: [{ type: 'text', text: 'my token [X]' }], timestamp: 4 });
    expect(said.content).toEqual([
      { type: 'thinking', thinking: 'the key is [X]', signature: 'sig-opaque' },
      { type: 'text', text: 'use [X]' },
      { type: 'toolCall', id: 'call_7', name: 'bash', arguments: { command: 'echo [X]', env: { '[X]': ['[X]'] } } },
      { type: 'toolCall', id: 'call_8', name: 'read', argumentsText: '{"path":"[X]', parseError: 'bad JSON near [X]' },
    ]);
    expect(said.errorMessage).toBe('provider said [X]');
    expect(ran.toolCallId).toBe('call_7');
    expect(ran.content).toEqual([{ type: 'text', text: '[X]\n' }, { type: 'image', mimeType: 'image/png', data: PNG }]);
    expect(ran.details).toEqual({ stdout: '[X]', nested: [{ deep: '[X]' }] });
  });

  it('fails closed: when the redactor throws, only a marker (role, time, why) is written, never the text', () => {
    const dir = makeTempDir('airlock-transcript-withheld-');
    let calls = 0;
    const flaky = (text: string) => {
      if (++calls > 3) throw Object.assign(new Error('the redactor "redact-secrets/secrets" failed'), { name: 'RedactionError' });
      return scrub(text);
    };
    const t = openTranscript({ cwd: dir, model: 'm', redact: flaky, where: { env: {}, home: dir }, dir: join(dir, 'sessions') });
    const entry = t.appendMessage(result);
    t.close();
    expect(entry).toEqual({ type: 'withheld', role: 'toolResult', timestamp: 6, reason: 'withheld from the transcript because it could not be redacted: the redactor "redact-secrets/secrets" failed' });
    expect(readFileSync(t.path, 'utf8')).not.toContain(SECRET);
    const loaded = loadTranscript(t.path);
    expect(loaded.messages).toEqual([]);
    expect(loaded.entries).toEqual([entry]);
    // Not a stub: the same message with a working redactor is written, redacted.
    expect(redactMessage(result, scrub)).toMatchObject({ role: 'toolResult', details: { stdout: '[X]' } });
  });

  it('an arbitrary error from the redact function is not quoted in the marker (it may hold the secret)', () => {
    const dir = makeTempDir('airlock-transcript-quote-');
    const t = openTranscript({ cwd: dir, model: 'm', redact: (text) => (text.includes(SECRET) ? (() => { throw new TypeError(`cannot handle ${text}`); })() : text), where: { env: {}, home: dir }, dir: join(dir, 'sessions') });
    const entry = t.appendMessage({ role: 'user', content: `here: ${SECRET}`, timestamp: 9 });
    t.close();
    expect(entry).toEqual({ type: 'withheld', role: 'user', timestamp: 9, reason: 'withheld from the transcript because it could not be redacted: the redact function threw a TypeError (its message is not kept: it may quote the text)' });
    expect(readFileSync(t.path, 'utf8')).not.toContain(SECRET);
  });

  it('refuses to open without a redact function', () => {
    const dir = makeTempDir('airlock-transcript-noredact-');
    expect(() => openTranscript({ cwd: dir, model: 'm', redact: undefined as unknown as (t: string) => string, where: { env: {}, home: dir } })).toThrow('needs a redact function');
  });
});
