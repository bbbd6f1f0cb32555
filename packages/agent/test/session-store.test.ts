import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '@airlock/kernel/testing';
import type { ToolResultMessage } from '@airlock/contract';
import { findSession, listSessions, loadTranscript, openTranscript, resumeTranscript, SessionError, sessionsDir, transcriptListener, userMessage, type AssistantMessage } from '../src/index.js';

/** Transcripts on disk: one JSONL file per session in the user's state folder, keyed by project. */

const same = (text: string) => text;

function machine() {
  const base = makeTempDir('airlock-sessions-');
  const project = join(base, 'project');
  const where = { env: { XDG_STATE_HOME: join(base, 'state') }, home: join(base, 'home') };
  return { base, project, where, query: { cwd: project, where } };
}

const reply: AssistantMessage = {
  role: 'assistant',
  content: [{ type: 'text', text: 'Reading it.' }, { type: 'toolCall', id: 'call_1', name: 'read', arguments: { path: 'notes.txt' } }],
  stopReason: 'toolUse',
  provider: 'scripted',
  model: 'demo',
  timestamp: 2,
};
const result: ToolResultMessage = { role: 'toolResult', toolCallId: 'call_1', toolName: 'read', content: [{ type: 'text', text: 'hello' }], isError: false, outcome: 'ok', timestamp: 3 };

const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter((l) => l !== '');

describe('session transcripts', () => {
  it('writes a header, then each message as it is appended, to a 0600 file in a 0700 folder of the project', () => {
    const m = machine();
    const t = openTranscript({ cwd: m.project, model: 'scripted:demo.json', redact: same, where: m.where, airlockVersion: '1.2.3', now: () => new Date('2026-12-02T01:15:00.123Z') });
    expect(t.path).toBe(join(sessionsDir(m.project, m.where), `${t.id}.jsonl`));
    expect(t.id).toMatch(/^20261202T011500123Z-[0-9a-f]{6}$/);
    expect(JSON.parse(lines(t.path)[0]!)).toEqual({ type: 'session', format: 1, id: t.id, cwd: m.project, model: 'scripted:demo.json', airlock: '1.2.3', startedAt: '2026-12-02T01:15:00.123Z' });
    // Each message is on disk before the next one comes (no buffering to lose in a crash).
    t.appendMessage(userMessage('read notes.txt', 1));
    expect(lines(t.path)).toHaveLength(2);
    const listener = transcriptListener(t);
    listener({ type: 'message_start', message: reply });
    listener({ type: 'message_end', message: reply });
    expect(lines(t.path)).toHaveLength(3);
    t.appendMessage(result);
    t.close();
    expect(statSync(t.path).mode & 0o777).toBe(0o600);
    expect(statSync(sessionsDir(m.project, m.where)).mode & 0o777).toBe(0o700);
    const loaded = loadTranscript(t.path);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.messages).toEqual([userMessage('read notes.txt', 1), reply, result]);
    expect(() => t.appendMessage(result)).toThrow('is closed');
  });

  it('tolerates a torn last line with a warning, and resuming cuts it off before appending', () => {
    const m = machine();
    const t = openTranscript({ cwd: m.project, model: 'scripted:x', redact: same, where: m.where });
    t.appendMessage(userMessage('first', 1));
    t.close();
    // A crash in the middle of writing the next line.
    appendFileSync(t.path, '{"type":"message","message":{"role":"assistant","conte');
    const torn = loadTranscript(t.path);
    expect(torn.messages).toEqual([userMessage('first', 1)]);
    expect(torn.warnings).toEqual([`${t.path}:3: the last line is cut off (the run ended while writing it); it is left out.`]);

    const again = openTranscript({ cwd: m.project, model: 'scripted:x', redact: same, where: m.where, resume: { path: torn.path, header: torn.header } });
    expect(again.id).toBe(t.id);
    again.appendMessage(userMessage('second', 2));
    again.close();
    const resumed = loadTranscript(t.path);
    expect(resumed.warnings).toEqual([]);
    expect(resumed.messages.map((msg) => (msg.role === 'user' ? msg.content : ''))).toEqual(['first', 'second']);
  });

  it('resumeTranscript: the newest session (or one by prefix) is read and appended to, in the same file', () => {
    const m = machine();
    const older = openTranscript({ cwd: m.project, model: 'a', redact: same, where: m.where, now: () => new Date('2026-12-01T00:00:00.000Z') });
    older.appendMessage(userMessage('old', 1));
    older.close();
    const newer = openTranscript({ cwd: m.project, model: 'b', redact: same, where: m.where, now: () => new Date('2026-12-02T00:00:00.000Z') });
    newer.appendMessage(userMessage('new', 1));
    newer.close();
    appendFileSync(newer.path, '{"type":"mess');

    const { transcript, loaded } = resumeTranscript(undefined, { cwd: join(m.project), model: 'c', redact: same, where: m.where });
    expect(transcript.path).toBe(newer.path);
    expect(loaded.messages).toEqual([userMessage('new', 1)]);
    expect(loaded.warnings).toHaveLength(1);
    transcript.appendMessage(userMessage('newer still', 2));
    transcript.close();
    expect(loadTranscript(newer.path).messages).toEqual([userMessage('new', 1), userMessage('newer still', 2)]);
    expect(loadTranscript(newer.path).header.model).toBe('b');

    const byPrefix = resumeTranscript('20261201', { cwd: m.project, model: 'c', redact: same, where: m.where });
    expect(byPrefix.transcript.id).toBe(older.id);
    byPrefix.transcript.close();
    expect(() => resumeTranscript('1999', { cwd: m.project, model: 'c', redact: same, where: m.where })).toThrow(SessionError);
  });

  it('a state folder that cannot be made is an error that says what and what to do', () => {
    const m = machine();
    writeFileSync(join(m.base, 'state'), 'a file where the state folder should be');
    expect(() => openTranscript({ cwd: m.project, model: 'x', redact: same, where: m.where })).toThrow(
      /^Cannot create the transcript folder \S+: a part of the path before the file name is a file, not a folder\. .*set XDG_STATE_HOME to one that is\.$/,
    );
  });

  it('a damaged line in the middle is left out with its line number; a file without a header is refused', () => {
    const m = machine();
    const t = openTranscript({ cwd: m.project, model: 'x', redact: same, where: m.where });
    t.close();
    appendFileSync(t.path, 'not json\n{"type":"message","message":{"role":"toolResult","timestamp":1,"content":[]}}\n');
    t.close();
    const loaded = loadTranscript(t.path);
    expect(loaded.warnings).toEqual([`${t.path}:2: left out: not JSON.`, `${t.path}:3: left out: a toolResult message missing its toolCallId, toolName or outcome.`]);
    const other = join(m.base, 'other.jsonl');
    writeFileSync(other, '{"role":"user"}\n');
    expect(() => loadTranscript(other)).toThrow(/is not an Airlock transcript: its first line is not a session header/);
    expect(() => loadTranscript(join(m.base, 'missing.jsonl'))).toThrow(SessionError);
  });

  it('lists a project’s sessions newest first and finds one by id, prefix, path or none (the newest)', () => {
    const m = machine();
    const open = (iso: string) => {
      const t = openTranscript({ cwd: m.project, model: `m-${iso}`, redact: same, where: m.where, now: () => new Date(iso) });
      t.close();
      return t;
    };
    const old = open('2026-11-30T10:00:00.000Z');
    const mid = open('2026-12-01T10:00:00.000Z');
    const recent = open('2026-12-01T12:00:00.000Z');
    // Files that are not transcripts stay out of the list.
    writeFileSync(join(sessionsDir(m.project, m.where), 'notes.jsonl'), 'x\n');
    expect(listSessions(m.query).map((s) => s.id)).toEqual([recent.id, mid.id, old.id]);
    expect(listSessions(m.query)[0]!.header.model).toBe('m-2026-12-01T12:00:00.000Z');

    expect(findSession(undefined, m.query)).toBe(recent.path);
    expect(findSession(old.id, m.query)).toBe(old.path);
    expect(findSession('20261130', m.query)).toBe(old.path);
    expect(findSession(old.path, m.query)).toBe(old.path);
    expect(() => findSession('202612', m.query)).toThrow(`"202612" matches 2 sessions: ${recent.id}, ${mid.id}.`);
    const unknown = (() => {
      try {
        findSession('1999', m.query);
      } catch (error) {
        return error as SessionError;
      }
    })();
    expect(unknown).toBeInstanceOf(SessionError);
    expect(unknown!.message).toContain('No session of this project starts with "1999"');
    expect(unknown!.hint).toContain('airlock sessions');
    // Another project has none.
    expect(() => findSession(undefined, { cwd: join(m.base, 'elsewhere'), where: m.where })).toThrow('This project has no sessions yet');
  });
});
