import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Agent, textOf } from '../src/index.js';
import { call, fixture, recording } from './support/fixture.js';

describe('Agent', () => {
  it('keeps the conversation across prompts, delivers steer() after the batch, and abort() stops a run with no holes', async () => {
    const f = fixture();
    writeFileSync(join(f.dir, 'a.txt'), 'alpha');
    const provider = recording([
      { content: [call('cat', { path: 'a.txt' }), call('wait', { ms: 20 })] },
      'Read it.',
      { content: [call('wait', { ms: 5000 })] },
      'never',
    ]);
    const agent = new Agent({ provider, model: 'm', runner: f.runner });
    const off = agent.subscribe((e) => {
      if (e.type === 'tool_execution_start' && e.toolName === 'cat') agent.steer('only a.txt');
      if (e.type === 'tool_execution_start' && e.toolCallId === 'call_3_1') setTimeout(() => agent.abort(), 20);
    });
    const first = await agent.prompt('read a.txt');
    expect(first.status).toBe('done');
    expect(textOf(first.finalMessage!)).toBe('Read it.');
    // The steering message came after both results, before the second request.
    expect(provider.requests[1]!.map((m) => m.role)).toEqual(['user', 'assistant', 'toolResult', 'toolResult', 'user']);
    expect(agent.running).toBe(false);

    const second = await agent.prompt('now wait');
    expect(second.status).toBe('aborted');
    expect(second.messages.filter((m) => m.role === 'toolResult').map((m) => (m as { outcome: string }).outcome)).toEqual(['aborted']);
    // The second run started from the whole first conversation.
    expect(provider.requests[2]!.length).toBe(first.messages.length + 1);
    expect(agent.messages.length).toBe(first.messages.length + second.messages.length);
    off();
  });

  it('refuses a second prompt while a run is going', async () => {
    const f = fixture();
    const agent = new Agent({ provider: recording([{ content: [call('wait', { ms: 50 })] }, 'ok']), model: 'm', runner: f.runner });
    const running = agent.prompt('go');
    await expect(agent.prompt('again')).rejects.toThrow(/already going/);
    expect((await running).status).toBe('done');
  });
});
