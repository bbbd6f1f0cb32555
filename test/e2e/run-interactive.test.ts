import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openaiChunk, openaiSSE, openaiTextChunks, startModelServer, type ModelServer } from '../../packages/agent/test/support/model-server.js';
import { sandbox } from './harness.js';
import { askingProject, CTRL_C, DOWN, ENTER, inPty } from './pty.js';
import { scaledMs } from '@airlock/kernel/testing';

/**
 * `airlock run` without -p on a terminal: the interactive mode, under a real pty with a scripted
 * model (one script entry per model request, across the whole session).
 */

const CTRL_D = '\u0004';

const servers: ModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function jsonl(...entries: unknown[]): string {
  return entries.map((e) => JSON.stringify(e)).join('\n') + '\n';
}

function bashCall(id: string, command: string) {
  return { type: 'toolCall', id, name: 'bash', arguments: { command } };
}

interface Line {
  type: string;
  message?: { role: string; content?: unknown; toolCallId?: string; outcome?: string };
}

/** The transcript the session named on its last line, as records. */
function transcriptOf(terminal: string): Line[] {
  const path = /transcript (\S+\.jsonl)/.exec(terminal.slice(terminal.lastIndexOf('transcript ')))?.[1];
  expect(path, terminal).toBeDefined();
  return readFileSync(path!, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Line);
}

/** Every tool call of every assistant message has exactly one result, in the transcript. */
function expectNoHoles(lines: Line[]): void {
  const calls = lines.flatMap((l) =>
    l.message?.role === 'assistant' ? (l.message.content as { type: string; id?: string }[]).filter((b) => b.type === 'toolCall').map((b) => b.id!) : [],
  );
  const results = lines.flatMap((l) => (l.message?.role === 'toolResult' ? [l.message.toolCallId!] : []));
  expect(results.sort()).toEqual(calls.sort());
}

describe('airlock run on a terminal, interactive', { timeout: scaledMs(60_000) }, () => {
  it('two turns typed at the prompt, streamed text, an ask answered at the dialog, Ctrl-C mid-turn, then leave', async () => {
    const s = askingProject();
    s.write(
      'project/s.jsonl',
      jsonl(
        'First answer streamed.',
        { content: [{ type: 'text', text: 'Let me check the folder.' }, bashCall('call_ask', 'echo approved-output')] },
        'Second turn done.',
        { content: [bashCall('call_sleep', 'sleep 30')] },
        'never sent',
      ),
    );
    const out = await inPty(s, ['run', '--model', 'scripted:s.jsonl'], [
      { expect: 'Type a message' },
      { expect: '> ' },
      { send: `hello${ENTER}` },
      { expect: 'First answer streamed\\.' },
      { expect: '\n> ' },
      { send: `list it${ENTER}` },
      // The text before the call streams before the dialog comes up.
      { expect: 'Let me check the folder\\.' },
      { expect: 'Allow bash\\?' },
      { expect: 'Allow once' },
      // Arrow keys belong to the dialog alone: the prompt line (paused) must not take DOWN as
      // history nor ENTER as a line to send.
      { send: DOWN },
      { send: ENTER },
      { expect: 'approved-output' },
      { expect: 'bash \\(call_ask\\) → ok' },
      { expect: 'Second turn done\\.' },
      { expect: '\n> ' },
      { send: `wait a bit${ENTER}` },
      { expect: 'Allow bash\\?' },
      { send: ENTER },
      { sleep: 0.8 },
      { send: CTRL_C },
      { expect: 'aborting the current turn' },
      { expect: 'bash \\(call_sleep\\) → aborted' },
      { expect: '\n> ' },
      { send: CTRL_D },
      { expect: 'transcript \\S+\\.jsonl' },
    ]);
    expect(out.exitCode, out.transcript).toBe(0);
    const t = out.transcript;
    // The dialog showed after the streamed text and before the call's outcome.
    expect(t.indexOf('Let me check the folder.')).toBeLessThan(t.indexOf('Allow bash?'));
    expect(t).not.toContain('never sent');

    const lines = transcriptOf(t);
    const roles = lines.filter((l) => l.type === 'message').map((l) => l.message!.role);
    expect(roles).toEqual(['user', 'assistant', 'user', 'assistant', 'toolResult', 'assistant', 'user', 'assistant', 'toolResult']);
    const results = lines.filter((l) => l.message?.role === 'toolResult').map((l) => l.message!.outcome);
    expect(results).toEqual(['ok', 'aborted']);
    expectNoHoles(lines);
  });

  it('a message typed while the agent works is sent after the batch, and the screen says so', async () => {
    const s = sandbox();
    s.write('project/.airlockrc.json', { permissions: { allow: ['bash'] } });
    s.write(
      'project/s.jsonl',
      jsonl({ content: [bashCall('call_1', 'sleep 1.5; echo slept')] }, 'Saw the batch, then your note.', 'Bye.'),
    );
    const out = await inPty(s, ['run', '--model', 'scripted:s.jsonl'], [
      { expect: '> ' },
      { send: `go${ENTER}` },
      { sleep: 0.5 },
      { send: `only src please${ENTER}` },
      { expect: 'queued: the model gets this after the tool calls running now have finished' },
      { expect: 'bash \\(call_1\\) → ok' },
      { expect: 'Saw the batch, then your note\\.' },
      { expect: '\n> ' },
      { send: `/help${ENTER}` },
      { expect: 'Commands: /help \\(this\\), /exit \\(leave\\)' },
      { send: `/nope${ENTER}` },
      { expect: 'unknown command /nope' },
      { expect: '\n> ' },
      { send: `/exit${ENTER}` },
      { expect: 'transcript \\S+\\.jsonl' },
    ]);
    expect(out.exitCode, out.transcript).toBe(0);
    const messages = transcriptOf(out.transcript).filter((l) => l.type === 'message').map((l) => l.message!);
    // The steering message went after the tool result, before the next request.
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'toolResult', 'user', 'assistant']);
    expect(JSON.stringify(messages[3]!.content)).toContain('only src please');
  });

  it('text streams as it arrives, typing mid-stream waits under it, and Ctrl-C mid-stream aborts the answer', async () => {
    const server = await startModelServer([
      { sse: openaiSSE(openaiTextChunks(['Alpha ', 'beta ', 'gamma.'])), gapMs: 500 },
      { sse: openaiSSE(openaiTextChunks(['Got your note.'])) },
      { sse: openaiSSE([openaiChunk({ role: 'assistant', content: '' }), openaiChunk({ content: 'Partial' })], { done: false }), hold: true },
    ]);
    servers.push(server);
    const s = sandbox();
    const out = await inPty(s, ['run', '--model', 'openai:m', '--base-url', `${server.baseURL}/v1`], [
      { expect: '> ' },
      { send: `hi${ENTER}` },
      { expect: 'Alpha' },
      // Typed while the answer streams: the line is drawn under the text so far and kept.
      { send: 'my note' },
      { expect: 'gamma\\.' },
      { expect: '> my note' },
      { send: ENTER },
      { expect: 'Got your note\\.' },
      { expect: '\n> ' },
      { send: `third${ENTER}` },
      { expect: 'Partial' },
      { send: CTRL_C },
      // Airlock's notice starts a line of its own, not at the end of the streamed text.
      { expect: '(?m)^airlock: aborting the current turn' },
      { expect: 'aborted while the model was answering' },
      { expect: '\n> ' },
      { send: CTRL_C },
      { expect: 'transcript \\S+\\.jsonl' },
    ], { OPENAI_API_KEY: 'sk-test' });
    expect(out.exitCode, out.transcript).toBe(0);
    const t = out.transcript;
    // Streamed: the first piece showed before the typed line, the last after it.
    expect(t.indexOf('Alpha')).toBeLessThan(t.indexOf('my note'));
    // The server saw the client hang up on the held stream.
    await server.requests[2]!.closed;
    expect(server.requests[2]!.clientHungUp).toBe(true);
    // The typed line went as the next prompt, after the whole first answer.
    const sent = (server.requests[1]!.body.messages as { role: string; content: unknown }[]).filter((m) => m.role !== 'system');
    expect(sent.map((m) => m.content)).toEqual(['hi', 'Alpha beta gamma.', 'my note']);
  });

  it('--resume continues the recorded conversation in interactive mode', async () => {
    const s = sandbox();
    s.write('project/s.jsonl', jsonl('One.', 'Two.'));
    const first = await inPty(s, ['run', '--model', 'scripted:s.jsonl'], [{ expect: '> ' }, { send: `first${ENTER}` }, { expect: 'One\\.' }, { expect: '\n> ' }, { send: CTRL_D }, { expect: 'transcript' }]);
    expect(first.exitCode, first.transcript).toBe(0);
    s.write('project/t.jsonl', jsonl('Resumed answer.'));
    const second = await inPty(s, ['run', '--resume', '--model', 'scripted:t.jsonl'], [
      { expect: 'resumed with 2 recorded messages' },
      { send: `again${ENTER}` },
      { expect: 'Resumed answer\\.' },
      { expect: '\n> ' },
      { send: CTRL_C },
      { expect: 'transcript' },
    ]);
    expect(second.exitCode, second.transcript).toBe(0);
    const roles = transcriptOf(second.transcript)
      .filter((l) => l.type === 'message')
      .map((l) => l.message!.role);
    expect(roles).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('without a terminal and without -p it is a usage error', async () => {
    const s = sandbox();
    s.write('project/s.jsonl', jsonl('x'));
    const r = await s.airlock(['run', '--model', 'scripted:s.jsonl']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('needs -p');
  });
});
