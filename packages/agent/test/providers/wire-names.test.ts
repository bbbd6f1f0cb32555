import { describe, expect, it } from 'vitest';
import { wireToolCallId, wireToolName } from '../../src/index.js';

describe('wireToolCallId', () => {
  it('keeps ids the API accepts and respells the rest the same way every time', () => {
    expect(wireToolCallId('toolu_01AbC-9', 'anthropic')).toBe('toolu_01AbC-9');
    expect(wireToolCallId('call|x', 'anthropic')).toBe(wireToolCallId('call|x', 'anthropic'));
    expect(wireToolCallId('call|x', 'anthropic')).toMatch(/^id_[0-9a-f]{24}$/);
    expect(wireToolCallId('call|x', 'openai')).toBe('call|x');
    expect(wireToolCallId('x'.repeat(41), 'openai')).toMatch(/^id_[0-9a-f]{24}$/);
    expect(wireToolCallId('a', 'openai')).not.toBe(wireToolCallId('b', 'openai'));
  });
});

describe('wireToolName', () => {
  it('sends back any name a model wrote in a shape the API takes', () => {
    expect(wireToolName('read', 'openai')).toBe('read');
    expect(wireToolName('github:create_issue', 'anthropic')).toBe('github_create_issue');
    expect(wireToolName('', 'openai')).toBe('unnamed_tool');
    const long = wireToolName('x'.repeat(100), 'anthropic');
    expect(long).toMatch(/^[a-zA-Z0-9_-]{64}$/);
    expect(long).not.toBe(wireToolName(`${'x'.repeat(99)}y`, 'anthropic'));
  });
});
