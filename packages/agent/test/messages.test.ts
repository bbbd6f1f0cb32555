import { describe, expect, it } from 'vitest';
import { textOf, toolCallsOf, userMessage, type AssistantMessage } from '../src/index.js';

const reply: AssistantMessage = {
  role: 'assistant',
  content: [
    { type: 'thinking', thinking: 'look first' },
    { type: 'text', text: 'Reading both.' },
    { type: 'toolCall', id: 'c1', name: 'read', arguments: { path: 'a.txt' } },
    { type: 'text', text: 'Then listing.' },
    { type: 'toolCall', id: 'c2', name: 'ls', arguments: undefined, argumentsText: '{"path":', parseError: 'Unexpected end of JSON input' },
  ],
  stopReason: 'toolUse',
  provider: 'scripted',
  model: 'test',
  timestamp: 0,
};

describe('message helpers', () => {
  it('toolCallsOf keeps the model order, including calls whose JSON did not parse', () => {
    expect(toolCallsOf(reply).map((c) => [c.id, c.name, c.parseError !== undefined])).toEqual([
      ['c1', 'read', false],
      ['c2', 'ls', true],
    ]);
  });

  it('textOf joins the visible text and leaves thinking out', () => {
    expect(textOf(reply)).toBe('Reading both.\nThen listing.');
  });

  it('userMessage stamps the time it was made', () => {
    expect(userMessage('hi', 42)).toEqual({ role: 'user', content: 'hi', timestamp: 42 });
  });
});
