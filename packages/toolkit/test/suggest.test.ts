import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { closestNames, editDistance } from '../src/suggest.js';

describe('editDistance (optimal string alignment)', () => {
  test.each([
    ['', '', 0],
    ['', 'abc', 3],
    ['abc', '', 3],
    ['read', 'read', 0],
    ['read', 'raed', 1], // one adjacent transposition, not two substitutions
    ['bash', 'bsh', 1],
    ['grep', 'grepp', 1],
    ['kitten', 'sitting', 3],
    ['ca', 'abc', 3], // OSA, unlike unrestricted Damerau–Levenshtein (2), does not edit a transposed pair again
  ])('%j ↔ %j = %i', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
  });

  test('is symmetric, zero only for equal strings, and never exceeds the longer length', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (a, b) => {
        const d = editDistance(a, b);
        expect(editDistance(b, a)).toBe(d);
        expect(d === 0).toBe(a === b);
        expect(d).toBeLessThanOrEqual(Math.max(a.length, b.length));
        expect(d).toBeGreaterThanOrEqual(Math.abs(a.length - b.length));
      }),
    );
  });
});

describe('closestNames', () => {
  const tools = ['read', 'write', 'edit', 'bash', 'grep', 'find', 'ls', 'github:create_issue', 'mcp:files/read_file'];

  test('typos and transpositions find the intended tool', () => {
    expect(closestNames('raed', tools)).toEqual(['read']);
    expect(closestNames('bsh', tools)).toEqual(['bash']);
    expect(closestNames('grepp', tools)).toEqual(['grep']);
    expect(closestNames('fnd', tools)).toEqual(['find']);
  });

  test('a name typed composed finds the same name stored decomposed (macOS file names), however short', () => {
    const decomposed = 'e\u0301e\u0301.md';
    expect(closestNames('\u00e9\u00e9.md', ['other.md', decomposed])).toEqual([decomposed]);
    expect(closestNames('\u00e9\u00e9', ['e\u0301e\u0301'])).toEqual(['e\u0301e\u0301']);
  });

  test('is case-insensitive and ranks a case-only difference first', () => {
    expect(closestNames('READ', tools)[0]).toBe('read');
    expect(closestNames('Bash', tools)).toEqual(['bash']);
  });

  test('treats _ - : / . as one separator and matches the last segment of a namespaced name', () => {
    expect(closestNames('create-issue', tools)).toEqual(['github:create_issue']);
    expect(closestNames('create_issue', tools)).toEqual(['github:create_issue']);
    expect(closestNames('read_file', tools)[0]).toBe('mcp:files/read_file');
    expect(closestNames('github.create.issue', tools)).toEqual(['github:create_issue']);
  });

  test('a prefix of at least three characters counts; a prefix beats a one-letter edit', () => {
    expect(closestNames('edit', ['exit', 'edit_file', 'edt'])).toEqual(['edit_file', 'edt', 'exit']);
    expect(closestNames('gith', tools)).toEqual(['github:create_issue']);
  });

  test('unrelated names get no suggestion', () => {
    expect(closestNames('ls', ['cd'])).toEqual([]);
    expect(closestNames('task', ['bash'])).toEqual([]);
    expect(closestNames('x', tools)).toEqual([]);
    expect(closestNames('deploy', tools)).toEqual([]);
    expect(closestNames('e', tools)).toEqual([]); // a one-letter prefix of "edit" says nothing
    expect(closestNames('', tools)).toEqual([]);
  });

  test('respects max, dedupes candidates, accepts any iterable, and is deterministic', () => {
    const many = ['read1', 'read2', 'read3', 'read4', 'read1'];
    expect(closestNames('read', many)).toEqual(['read1', 'read2', 'read3']);
    expect(closestNames('read', many, 2)).toEqual(['read1', 'read2']);
    expect(closestNames('read', many, 0)).toEqual([]);
    expect(closestNames('read', new Set(many), 10)).toEqual(['read1', 'read2', 'read3', 'read4']);
    expect(closestNames('read', [...many].reverse(), 10)).toEqual(['read1', 'read2', 'read3', 'read4']);
  });

  test('only ever returns given candidates, at most max of them', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 10 }), fc.array(fc.string({ maxLength: 10 }), { maxLength: 8 }), fc.nat(5), (q, cs, max) => {
        const out = closestNames(q, cs, max);
        expect(out.length).toBeLessThanOrEqual(max);
        expect(new Set(out).size).toBe(out.length);
        for (const name of out) expect(cs).toContain(name);
      }),
    );
  });
});
