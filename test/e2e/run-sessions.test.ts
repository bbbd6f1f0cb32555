import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openaiSSE, openaiTextChunks, startModelServer, type ModelServer } from '../../packages/agent/test/support/model-server.js';
import { sandbox } from './harness.js';

/**
 * `airlock run` records every session: a transcript per run in the user's state folder, redacted
 * before it is written, and `--resume` continues it, the recorded messages going back to the model.
 */

const TOKEN = `ghp_${'A1b2C3d4E5'.repeat(3)}x9Y8z7`;
const servers: ModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function transcriptOf(stderr: string): string {
  const m = /airlock: transcript (\S+) \(session (\S+);/.exec(stderr);
  expect(m, stderr).not.toBeNull();
  return m![1]!;
}

const linesOf = (path: string) => readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);

describe('airlock run: sessions', () => {
  it('writes the transcript of the run, a planted token redacted in the prompt and in a tool result', async () => {
    const s = sandbox();
    s.write('project/notes.txt', `deploy key ${TOKEN}\n`);
    s.write('project/script.jsonl', `${JSON.stringify({ content: [{ type: 'toolCall', name: 'read', arguments: { path: 'notes.txt' } }] })}\n"Done."\n`);
    const r = await s.airlock(['run', '-p', `remember ${TOKEN} and read notes.txt`, '--model', 'scripted:script.jsonl']);
    expect(r.code, r.stderr).toBe(0);
    const path = transcriptOf(r.stderr);
    expect(path.startsWith(join(s.home, '.local', 'state', 'airlock', 'sessions'))).toBe(true);
    const bytes = readFileSync(path, 'utf8');
    expect(bytes).not.toContain(TOKEN);
    const lines = linesOf(path);
    expect(lines[0]).toMatchObject({ type: 'session', model: 'scripted:script.jsonl' });
    const roles = lines.slice(1).map((l) => l.message?.role ?? l.role);
    expect(roles).toEqual(['user', 'assistant', 'toolResult', 'assistant']);
    // The model itself still saw the file (redaction of the transcript changes only what is kept).
    expect(bytes).toContain('deploy key');
    // `airlock sessions` lists it.
    const listed = await s.airlock(['sessions', '--json']);
    expect((JSON.parse(listed.stdout) as { sessions: { path: string }[] }).sessions.map((x) => x.path)).toEqual([path]);
  });

  it('--resume sends the recorded conversation back to the model and appends to the same transcript', async () => {
    const server = await startModelServer([{ sse: openaiSSE(openaiTextChunks(['First ', 'answer.'])) }, { sse: openaiSSE(openaiTextChunks(['Second answer.'])) }]);
    servers.push(server);
    const s = sandbox();
    const model = ['--model', 'openai:test-model', '--base-url', `${server.baseURL}/v1`];
    const first = await s.airlock(['run', '-p', 'first question', ...model]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('First answer.\n');
    const path = transcriptOf(first.stderr);

    const second = await s.airlock(['run', '-p', 'second question', '--resume', ...model]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe('Second answer.\n');
    expect(transcriptOf(second.stderr)).toBe(path);

    const sent = (server.requests[1]!.body.messages as { role: string; content: unknown }[]).filter((m) => m.role !== 'system');
    expect(sent.map((m) => [m.role, typeof m.content === 'string' ? m.content : JSON.stringify(m.content)])).toEqual([
      ['user', 'first question'],
      ['assistant', 'First answer.'],
      ['user', 'second question'],
    ]);
    const lines = linesOf(path);
    expect(lines.filter((l) => l.type === 'session')).toHaveLength(1);
    expect(lines.length).toBe(5);
    expect(readdirSync(join(path, '..'))).toHaveLength(1);
  });

  it('--resume of a session that does not exist is a usage error saying what there is; the model is never asked', async () => {
    const server = await startModelServer([{ sse: openaiSSE(openaiTextChunks(['Hi.'])) }]);
    servers.push(server);
    const s = sandbox();
    const model = ['--model', 'openai:m', '--base-url', `${server.baseURL}/v1`];
    const none = await s.airlock(['run', '-p', 'go on', '--resume', ...model]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/This project has no sessions yet/);
    expect((await s.airlock(['run', '-p', 'hello', ...model])).code).toBe(0);
    const unknown = await s.airlock(['run', '-p', 'go on', '--resume', 'nope', ...model]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/airlock sessions/);
    expect(server.requests).toHaveLength(1);
  });
});
