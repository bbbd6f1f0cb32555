import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openTranscript, userMessage, type AssistantMessage } from '@airlock/agent';
import { sandbox } from './harness.js';
import { scaledMs } from '@airlock/kernel/testing';

/** Issue 13 through the real binary: a recorded session replayed against a tightened policy. */

const boxes: ReturnType<typeof sandbox>[] = [];
afterEach(() => {
  for (const box of boxes.splice(0)) rmSync(box.base, { recursive: true, force: true });
});

describe('airlock sessions and airlock replay (the built binary)', () => {
  it('lists the session, replays it unchanged, then reports a new deny and a changed file; --strict exits 1', async () => {
    const box = sandbox();
    boxes.push(box);
    const env = { XDG_STATE_HOME: join(box.home, '.local', 'state') };
    box.write('project/notes.txt', 'plain notes\n');
    box.write('project/todo.txt', 'one\n');
    // A session as the loop records it: the user, one assistant turn with two reads, their results.
    const t = openTranscript({ cwd: box.project, model: 'scripted:tour', redact: (text) => text, where: { env, home: box.home } });
    t.appendMessage(userMessage('Read the notes and the todo list.'));
    const assistant: AssistantMessage = {
      role: 'assistant',
      content: [
        { type: 'toolCall', id: 'call_1', name: 'read', arguments: { path: 'notes.txt' } },
        { type: 'toolCall', id: 'call_2', name: 'read', arguments: { path: 'todo.txt' } },
      ],
      stopReason: 'toolUse',
      provider: 'scripted',
      model: 'tour',
      timestamp: Date.now(),
    };
    t.appendMessage(assistant);
    for (const [id, text] of [['call_1', 'plain notes\n'], ['call_2', 'one\n']] as const) {
      t.appendMessage({ role: 'toolResult', toolCallId: id, toolName: 'read', content: [{ type: 'text', text }], isError: false, outcome: 'ok', timestamp: Date.now() });
    }
    t.close();

    const list = await box.airlock(['sessions'], { env });
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(t.id);

    const same = await box.airlock(['replay', '--strict', t.id.slice(0, 15)], { env });
    expect(same.stdout).toBe(`Session ${t.id}: all 2 recorded calls would be decided as recorded (2 calls of replay-safe tools ran again).\n`);
    expect(same.code).toBe(0);

    box.write('home/.config/airlock/settings.json', { permissions: { deny: ['fs.read(**/notes.txt)'] } });
    writeFileSync(join(box.project, 'todo.txt'), 'one\ntwo\n');
    const strict = await box.airlock(['replay', '--strict', t.id], { env });
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/^1\s+read\s+\{"path":"notes\.txt"\}\s+ok\s+DENIED\s+path-policy\/rules \(fs\.read\(\*\*\/notes\.txt\)\)/m);
    expect(strict.stdout).toMatch(/^2\s+read\s+\{"path":"todo\.txt"\}\s+ok\s+DIFFERENT \(text\)/m);
    const json = JSON.parse((await box.airlock(['--json', 'replay', t.path], { env })).stdout) as { changed: number; rows: { now: string }[] };
    expect(json.changed).toBe(2);
    expect(json.rows.map((r) => r.now)).toEqual(['deny', 'different']);

    const unknown = await box.airlock(['replay', 'zzz'], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('airlock sessions');
  }, scaledMs(120_000));
});
