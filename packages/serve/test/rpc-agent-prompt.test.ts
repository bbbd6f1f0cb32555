import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rpcSessions, type Message } from './support/rpc-session.js';
import { scaledMs } from '@airlock/kernel/testing';

/**
 * agent/prompt: the agent loop on the server's host, with the scripted provider (a script file
 * in the project, named by the server's own model setting), a real host and real files.
 */

const session = rpcSessions('airlock-rpc-agent-');

const script = (lines: unknown[]) => lines.map((l) => JSON.stringify(l)).join('\n');
const eventsOf = (received: Message[], requestId: string | number) =>
  received.filter((m) => m.method === 'agent/event' && m.params.requestId === requestId).map((m) => m.params.event as { type: string; [k: string]: unknown });

describe('agent/prompt', () => {
  it('runs the loop through the pipeline, streams its events and answers with the final message', async () => {
    const s = await session({
      settings: { permissions: { deny: ['fs.read(**/secret.txt)'] } },
      files: {
        'a.txt': 'hi from a\n',
        'secret.txt': 'TOP-SECRET-VALUE\n',
        'play.jsonl': script([
          { content: [{ type: 'toolCall', name: 'read', arguments: { path: 'a.txt' } }, { type: 'toolCall', name: 'read', arguments: { path: 'secret.txt' } }] },
          'a.txt says hi; secret.txt is off limits.',
        ]),
      },
      server: { agent: { defaultModel: 'scripted:play.jsonl' } },
    });
    const answer = await s.request('agent/prompt', { prompt: 'Read a.txt and secret.txt' }, 'run-1');
    expect(answer.error).toBeUndefined();
    expect(answer.result.status).toBe('done');
    expect(answer.result.finalMessage.content).toEqual([{ type: 'text', text: 'a.txt says hi; secret.txt is off limits.' }]);
    const results = answer.result.messages.filter((m: { role: string }) => m.role === 'toolResult');
    expect(results.map((m: { outcome: string }) => m.outcome)).toEqual(['ok', 'denied']);

    const events = eventsOf(s.received, 'run-1');
    expect(events[0]!.type).toBe('agent_start');
    expect(events.at(-1)!.type).toBe('agent_end');
    expect(events.filter((e) => e.type === 'tool_execution_end')).toHaveLength(2);
    expect(new Set(events.map((e) => e.runId))).toEqual(new Set([answer.result.runId]));
    // Deltas travel without the message so far (which would make a long answer quadratic on the wire).
    const updates = events.filter((e) => e.type === 'message_update') as unknown as { delta: { type: string; delta?: string; message?: unknown }; message?: unknown }[];
    expect(updates.some((u) => u.delta.type === 'text_delta')).toBe(true);
    expect(updates.every((u) => u.message === undefined && u.delta.message === undefined)).toBe(true);
    const streamed = updates.filter((u) => u.delta.type === 'text_delta').map((u) => u.delta.delta).join('');
    expect(streamed).toBe('a.txt says hi; secret.txt is off limits.');
    // The events (all sent before the answer) and the answer never carry the denied file's text.
    expect(s.received.findIndex((m) => m.id === 'run-1')).toBeGreaterThan(s.received.findIndex((m) => m.method === 'agent/event' && m.params.event.type === 'agent_end'));
    expect(JSON.stringify(s.received)).not.toContain('TOP-SECRET-VALUE');
  });

  it('stops on abort: the running command ends and the answer says aborted', async () => {
    const s = await session({
      files: { 'wait.jsonl': script([{ content: [{ type: 'toolCall', name: 'bash', arguments: { command: 'sleep 30; echo late > late.txt' } }] }, 'never reached']) },
      server: { agent: { defaultModel: 'scripted:wait.jsonl' } },
    });
    const started = Date.now();
    s.send('agent/prompt', { prompt: 'wait' }, 'slow');
    await s.waitFor((m) => m.method === 'agent/event' && m.params.requestId === 'slow' && m.params.event.type === 'tool_execution_start');
    expect((await s.request('abort', { id: 'slow' })).result).toEqual({ aborted: 1 });
    const answer = await s.answerTo('slow');
    expect(answer.result.status).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(scaledMs(15_000, { below: 30_000 }));
    const results = answer.result.messages.filter((m: { role: string }) => m.role === 'toolResult');
    expect(results.map((m: { outcome: string }) => m.outcome)).toEqual(['aborted']);
    // Still answering afterwards.
    expect((await s.request('tools/list', {})).result.enabled).toContain('read');
  });

  it('refuses, as invalid params, a missing model, a script chosen by the client and an unknown provider', async () => {
    const s = await session({ files: { 'x.jsonl': script(['hello']) } });
    const none = await s.request('agent/prompt', { prompt: 'hi' });
    expect(none.error?.code).toBe(-32602);
    expect(none.error?.message).toContain('needs a model');

    const scripted = await s.request('agent/prompt', { prompt: 'hi', model: 'scripted:x.jsonl' });
    expect(scripted.error?.code).toBe(-32602);
    expect(scripted.error?.message).toContain('--model scripted:FILE');

    const unknown = await s.request('agent/prompt', { prompt: 'hi', model: 'nosuch:model' });
    expect(unknown.error?.code).toBe(-32602);
    expect(unknown.error?.message).toContain('nosuch');

    const empty = await s.request('agent/prompt', { prompt: '' });
    expect(empty.error?.code).toBe(-32602);
  });

  it('runs no agent on a host that refuses every call (a listed extension is missing)', async () => {
    const s = await session({ settings: { extensions: ['@acme/not-installed-guard'] }, files: { 'x.jsonl': script(['hello']) }, server: { agent: { defaultModel: 'scripted:x.jsonl' } } });
    const answer = await s.request('agent/prompt', { prompt: 'hi' });
    expect(answer.error?.code).toBe(-32002);
    expect(answer.error?.message).toContain('@acme/not-installed-guard');
  });

  it('answers a model failure as a failed run, not a protocol error', async () => {
    const s = await session({ files: { 'short.jsonl': script([{ content: [{ type: 'toolCall', name: 'ls', arguments: {} }] }]) }, server: { agent: { defaultModel: 'scripted:short.jsonl' } } });
    writeFileSync(join(s.project, 'b.txt'), 'b');
    const answer = await s.request('agent/prompt', { prompt: 'list' });
    expect(answer.result.status).toBe('failed');
    expect(answer.result.reason).toBeTruthy();
  });
});
