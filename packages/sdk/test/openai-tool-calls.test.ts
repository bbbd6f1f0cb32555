import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAirlock, openAITools, runOpenAIToolCalls, type Airlock } from '../src/index.js';
import { guard, project, shouter } from './support/project.js';

/**
 * An OpenAI function-calling loop of the program's own: a chat completion's assistant message with
 * `tool_calls` in, the `role: "tool"` messages to append out, every call through the host.
 */

const open: Airlock[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((a) => a.close()));
});

const call = (id: string, name: string, args: string) => ({ id, type: 'function', function: { name, arguments: args } });

describe('runOpenAIToolCalls', () => {
  it('answers every call in order with its id: ok, denied, invalid JSON, unknown tool, a respelled name', async () => {
    const p = project();
    const airlock = await createAirlock({ ...p.base, extensions: [guard, shouter] });
    open.push(airlock);
    const tools = openAITools(airlock);
    expect(tools.map((t) => t.function.name)).toEqual(expect.arrayContaining(['read', 'write', 'demo_shout']));

    const message = {
      role: 'assistant',
      content: null,
      tool_calls: [
        call('call_1', 'read', '{"path":"notes.txt"}'),
        call('call_2', 'read', '{"path":"secret.txt"}'),
        call('call_3', 'write', '{"path": "x.txt", "content": '),
        call('call_4', 'delete_everything', '{}'),
        call('call_5', 'demo_shout', '{"word":"hey"}'),
      ],
    };
    const { messages, results, terminate } = await runOpenAIToolCalls(airlock, message);
    expect(terminate).toBe(false);
    expect(results.map((r) => [r.toolCallId, r.toolName, r.outcome])).toEqual([
      ['call_1', 'read', 'ok'],
      ['call_2', 'read', 'denied'],
      ['call_3', 'write', 'invalid'],
      ['call_4', 'delete_everything', 'not_found'],
      ['call_5', 'demo:shout', 'ok'],
    ]);
    expect(messages.map((m) => m.role)).toEqual(['tool', 'tool', 'tool', 'tool', 'tool']);
    const byId = new Map(messages.map((m) => [(m as { tool_call_id: string }).tool_call_id, String(m.content)]));
    expect(byId.get('call_1')).toContain('hello notes');
    expect(byId.get('call_2')).toContain('secrets stay out of reach');
    expect(byId.get('call_2')).not.toContain('TOP-SECRET-VALUE');
    expect(byId.get('call_4')).toContain('delete_everything');
    expect(byId.get('call_5')).toBe('HEY');
    // Nothing was written by the call whose JSON was cut off.
    expect(() => readFileSync(join(p.dir, 'x.txt'))).toThrow();
  });

  it('keeps ids longer than OpenAI\'s own as they came, so each answer pairs with its call', async () => {
    const p = project();
    const airlock = await createAirlock({ ...p.base });
    open.push(airlock);
    const longId = `call_${'x'.repeat(60)}`;
    const { messages } = await runOpenAIToolCalls(airlock, { tool_calls: [call(longId, 'read', '{"path":"notes.txt"}')] });
    expect((messages[0] as { tool_call_id: string }).tool_call_id).toBe(longId);
  });

  it('returns nothing to append for a message without calls', async () => {
    const p = project();
    const airlock = await createAirlock({ ...p.base });
    open.push(airlock);
    expect(await runOpenAIToolCalls(airlock, { content: 'Just text.', tool_calls: null })).toEqual({ messages: [], results: [], terminate: false });
  });
});
