import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { makeTempDir, scaledMs } from '@airlock/kernel/testing';
import type { ToolCall } from '@airlock/contract';
import { openHost } from '@airlock/host';
import { loadTranscript, openTranscript, userMessage, type AssistantMessage } from '@airlock/agent';
import { run } from '../src/index.js';
import { testIO } from './test-io.js';

/**
 * `airlock replay <session>` through the real CLI: a session recorded with the real host and the
 * transcript store, then judged again after the policy was tightened and a file changed.
 * Replay-safe tools (read) run again and are compared; bash is only judged, never run.
 */

// Each command opens a host that loads the whole default set.
vi.setConfig({ testTimeout: scaledMs(90_000) });

function machine() {
  const base = makeTempDir('airlock-cli-replay-');
  const home = join(base, 'home');
  const project = join(base, 'project');
  mkdirSync(join(home, '.config', 'airlock'), { recursive: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'notes.txt'), 'plain notes\n');
  writeFileSync(join(project, 'other.txt'), 'version 1\n');
  const settings = (permissions: object) => writeFileSync(join(home, '.config', 'airlock', 'settings.json'), JSON.stringify({ permissions }));
  const env = testIO(project, home).env;
  const airlock = async (args: string[]) => {
    const io = testIO(project, home);
    const code = await run(args, io);
    return { code, out: io.out(), err: io.err() };
  };
  return { base, home, project, settings, env, airlock };
}

/** One turn of a session, as the loop would record it: the user, the assistant's calls, the results through the real host. */
async function recordSession(m: ReturnType<typeof machine>): Promise<{ id: string; path: string }> {
  const host = await openHost({ cwd: m.project, interactive: false, env: m.env, homeDir: m.home });
  try {
    const transcript = openTranscript({ cwd: m.project, model: 'scripted:test', redact: (t) => host.redact(t), where: { env: m.env, home: m.home } });
    const calls: ToolCall[] = [
      { id: 'call_1', name: 'read', arguments: { path: 'notes.txt' } },
      { id: 'call_2', name: 'read', arguments: { path: 'other.txt' } },
      { id: 'call_3', name: 'bash', arguments: { command: 'touch made-by-bash.txt' } },
    ];
    const assistant: AssistantMessage = {
      role: 'assistant',
      content: [{ type: 'text', text: 'Looking around.' }, ...calls.map((c) => ({ type: 'toolCall' as const, id: c.id, name: c.name, arguments: c.arguments }))],
      stopReason: 'toolUse',
      provider: 'scripted',
      model: 'test',
      timestamp: Date.now(),
    };
    transcript.appendMessage(userMessage('Read the notes and mark the folder.'));
    transcript.appendMessage(assistant);
    const { messages } = await host.batch(calls);
    expect(messages.map((r) => r.outcome)).toEqual(['ok', 'ok', 'ok']);
    for (const r of messages) transcript.appendMessage(r);
    transcript.close();
    return { id: transcript.id, path: transcript.path };
  } finally {
    await host.close();
  }
}

describe('airlock replay', () => {
  it('same policy and files: one line; a tightened policy and a changed file: the table, --json and --strict', async () => {
    const m = machine();
    m.settings({ allow: ['bash(touch *)'] });
    const session = await recordSession(m);
    expect(existsSync(join(m.project, 'made-by-bash.txt'))).toBe(true);
    rmSync(join(m.project, 'made-by-bash.txt'));

    const same = await m.airlock(['replay', session.id.slice(0, 12), '--strict']);
    expect(same.err).not.toContain('left out');
    expect(same.out).toBe(`Session ${session.id}: all 3 recorded calls would be decided as recorded (2 calls of replay-safe tools ran again).\n`);
    expect(same.code).toBe(0);
    // bash is not replay-safe: judged, never run.
    expect(existsSync(join(m.project, 'made-by-bash.txt'))).toBe(false);

    m.settings({ deny: ['fs.read(**/notes.txt)', 'bash(touch *)'] });
    writeFileSync(join(m.project, 'other.txt'), 'version 2\n');
    const changed = await m.airlock(['replay', session.id]);
    expect(changed.code).toBe(0);
    const lines = changed.out.split('\n');
    expect(lines[0]).toMatch(/^#\s+TOOL\s+ARGUMENTS\s+RECORDED\s+NOW\s+BY\s+WHY$/);
    expect(lines[1]).toMatch(/^1\s+read\s+\{"path":"notes\.txt"\}\s+ok\s+DENIED\s+path-policy\/rules \(fs\.read\(\*\*\/notes\.txt\)\)\s+fs\.read \S+\/notes\.txt: matches the deny rule fs\.read\(\*\*\/notes\.txt\)$/);
    expect(lines[2]).toMatch(/^2\s+read\s+\{"path":"other\.txt"\}\s+ok\s+DIFFERENT \(text\)\s+ran again: its result text differs from the recorded one$/);
    expect(lines[3]).toMatch(/^3\s+bash\s+\{"command":"touch made-by-bash\.txt"\}\s+ok\s+DENIED\s+path-policy\/\S+/);
    expect(changed.out).toContain(`Session ${session.id}: 3 of 3 recorded calls would now be decided differently (1 call of replay-safe tools ran again).`);
    expect(existsSync(join(m.project, 'made-by-bash.txt'))).toBe(false);

    const json = await m.airlock(['--json', 'replay', session.path]);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.out) as { session: string; calls: number; changed: number; rows: { tool: string; now: string; recorded: string; outcomeNow: string; executed: boolean; handler?: string; rule?: string; difference?: object }[] };
    expect(report).toMatchObject({ session: session.id, calls: 3, changed: 3 });
    expect(report.rows.map((r) => [r.tool, r.recorded, r.now, r.outcomeNow, r.executed])).toEqual([
      ['read', 'ok', 'deny', 'denied', false],
      ['read', 'ok', 'different', 'ok', true],
      ['bash', 'ok', 'deny', 'denied', false],
    ]);
    expect(report.rows[0]!.handler).toMatch(/^path-policy\//);
    expect(report.rows[0]!.rule).toContain('notes.txt');
    expect(report.rows[1]!.difference).toEqual({ outcome: false, text: true });

    expect((await m.airlock(['replay', session.id, '--strict'])).code).toBe(1);
  });

  it('an unknown session is a usage error that says how to list them; airlock sessions lists them', async () => {
    const m = machine();
    const none = await m.airlock(['replay', 'nope']);
    expect(none.code).toBe(2);
    expect(none.err).toContain('This project has no sessions yet');
    expect((await m.airlock(['sessions'])).out).toContain('No sessions recorded for this project yet');

    m.settings({ allow: ['bash(touch *)'] });
    const session = await recordSession(m);
    const unknown = await m.airlock(['replay', '1999']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('No session of this project starts with "1999"');
    expect(unknown.err).toContain('Run `airlock sessions` to list the sessions of this project');
    const notATranscript = await m.airlock(['replay', join(m.project, 'notes.txt')]);
    expect(notATranscript.code).toBe(2);
    expect(notATranscript.err).toContain('is not an Airlock transcript');

    // A message the redactor failed on is a marker in the transcript: replay says its calls are missing.
    const loaded = loadTranscript(session.path);
    const reopened = openTranscript({ cwd: m.project, model: 'x', where: { env: m.env, home: m.home }, resume: { path: session.path, header: loaded.header }, redact: () => {
      throw new Error('scanner crashed');
    } });
    expect(reopened.appendMessage(userMessage('more'))).toMatchObject({ type: 'withheld' });
    reopened.close();
    const partial = await m.airlock(['replay', session.id]);
    expect(partial.code).toBe(0);
    expect(partial.err).toContain('1 message of this session withheld from the transcript (it could not be redacted): tool calls in it are not replayed.');

    // Replayed from another folder: said, since relative paths now resolve there.
    const elsewhere = testIO(m.base, m.home);
    expect(await run(['replay', session.path], elsewhere)).toBe(0);
    expect(elsewhere.err()).toContain(`airlock: this session ran in ${m.project}; its calls are judged as if made in ${m.base} (use --cwd to judge them there).`);
    expect(partial.err).not.toContain('this session ran in');

    const list = await m.airlock(['sessions']);
    expect(list.code).toBe(0);
    expect(list.out).toMatch(new RegExp(`^ID\\s+STARTED\\s+MODEL\\s+SIZE\\s+FOLDER\\n${session.id}\\s+\\S+ \\S+Z\\s+scripted:test\\s+\\S+\\s+${m.project}\\n`));
    const listed = JSON.parse((await m.airlock(['--json', 'sessions'])).out) as { sessions: { id: string; path: string }[] };
    expect(listed.sessions).toEqual([expect.objectContaining({ id: session.id, path: session.path })]);
  });
});
