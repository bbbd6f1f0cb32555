import { describe, expect, it } from 'vitest';
import { runDemo } from '../src/demo.js';

describe('kernel demo', () => {
  it('gives every call of the scripted turn one result with the outcome a user would expect', async () => {
    const { messages, audit } = await runDemo();
    expect(messages.map((m) => [m.toolCallId, m.outcome])).toEqual([
      ['t1', 'ok'],
      ['t2', 'denied'],
      ['t3', 'ok'],
      ['t4', 'denied'],
      ['t5', 'not_found'],
      ['t6', 'invalid'],
      ['t7', 'ok'],
    ]);
    const text = (i: number) => messages[i]!.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
    expect(text(0)).toContain('ship the kernel');
    expect(text(1)).toContain('.env holds secrets');
    expect(text(3)).toContain('needs approval');
    expect(text(4)).toContain('Did you mean: read?');
    expect(text(5)).toContain('content: missing; expected');
    expect(text(6)).toContain('[REDACTED:github-token]');
    expect(text(6)).not.toContain('ghp_');
    expect(audit).toHaveLength(7);
  });
});
