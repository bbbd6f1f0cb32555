import { describe, expect, it } from 'vitest';
import { parseToolArguments, StreamedToolCalls } from '../../src/index.js';

describe('parseToolArguments', () => {
  it('accepts a JSON object, and empty text as no arguments', () => {
    expect(parseToolArguments('{"path":"a.txt","n":2}')).toEqual({ arguments: { path: 'a.txt', n: 2 } });
    expect(parseToolArguments('')).toEqual({ arguments: {} });
    expect(parseToolArguments('  \n')).toEqual({ arguments: {} });
  });

  it('refuses what is not a JSON object, saying why, and never throws', () => {
    for (const [text, why] of [
      ['{"path":', /not valid JSON/],
      ['{"a":1}}', /not valid JSON/],
      ['null', /got null/],
      ['[1]', /got an array/],
      ['"{\\"path\\":\\"a\\"}"', /got a string/],
      ['42', /got a number/],
    ] as const) {
      const parsed = parseToolArguments(text);
      expect(parsed.arguments).toBeUndefined();
      expect(parsed.parseError).toMatch(why);
    }
  });

  it('keeps a "__proto__" key as plain data', () => {
    const parsed = parseToolArguments('{"__proto__":{"polluted":true}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(parsed.arguments!)).toEqual(['__proto__']);
  });
});

describe('StreamedToolCalls', () => {
  it('joins pieces per key even when calls interleave, and maps provider names back', () => {
    const calls = new StreamedToolCalls(new Map([['github_create_issue', 'github:create_issue']]));
    calls.begin(0, 'a', 'github_create_issue');
    calls.begin(1, 'b', 'unknown_tool');
    calls.append(0, '{"title":"x');
    calls.append(1, '{"q":');
    calls.append(0, '\\u00e9"}');
    calls.append(1, '1}');
    expect(calls.finish(1)).toEqual({ index: 1, call: { type: 'toolCall', id: 'b', name: 'unknown_tool', arguments: { q: 1 } } });
    expect(calls.finish(0)).toEqual({ index: 0, call: { type: 'toolCall', id: 'a', name: 'github:create_issue', arguments: { title: 'xé' } } });
    expect(calls.finish(0)).toBeUndefined();
  });

  it('makes ids unique within a message and invents one when missing', () => {
    const calls = new StreamedToolCalls(new Map());
    expect(calls.begin('k1', 'same', 'read').id).toBe('same');
    expect(calls.begin('k2', 'same', 'read').id).toBe('same_2');
    expect(calls.begin('k3', undefined, 'read').id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(calls.begin('k4', '', 'read').id).toMatch(/^call_[0-9a-f]{24}$/);
  });

  it('uses a complete input object when no pieces were streamed', () => {
    const calls = new StreamedToolCalls(new Map());
    calls.begin(0, 'a', 'read');
    expect(calls.finish(0, { path: 'x' })!.call.arguments).toEqual({ path: 'x' });
  });
});
