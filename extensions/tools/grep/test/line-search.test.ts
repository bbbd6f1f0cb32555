import { describe, expect, it } from 'vitest';
import { compile } from '../src/index.js';
import { lineSearch } from '../src/line-search.js';

/**
 * The Node engine finds matching lines by jumping between candidates (indexOf for plain text,
 * a multiline search of the whole text otherwise) instead of testing every line. A skipped line
 * is a lost match, so each shortcut is held against the plain definition: every line of the
 * text tested alone with the pattern.
 */

function everyLine(text: string, regex: RegExp, max: number): number[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  if (text === '') return [];
  const out: number[] = [];
  for (const [i, line] of lines.entries()) if (out.length < max && regex.test(line)) out.push(i + 1);
  return out;
}

/** A seeded generator: the same texts on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = ['a', 'b', 'ab', ' ', '\n', '\n', '\r', 'x', 'A', '_', '😀', 'é'];
function text(rnd: () => number): string {
  let out = '';
  const n = Math.floor(rnd() * 40);
  for (let i = 0; i < n; i++) out += ALPHABET[Math.floor(rnd() * ALPHABET.length)];
  return out;
}

const PATTERNS: [string, boolean, boolean][] = [
  // plain text: no regex runs
  ['ab', false, false], ['a b', false, false], ['b\r', false, false], ['😀a', false, false], ['a.b', true, false], ['x', false, false],
  // a required piece of text, then the regex on that line
  ['ab+', false, false], ['ab\\s*$', false, false], ['^ab', false, false], ['a b?x', false, false], ['é.', false, false],
  // neither: the multiline search, including patterns that match across a line's end in the whole text
  ['', false, false], ['^', false, false], ['$', false, false], ['^$', false, false], ['a|x', false, false], ['\\bab\\b', false, false],
  ['b$', false, false], ['b\\s+a', false, false], ['[^x]a', false, false], ['\\s', false, false], ['^\\s*$', false, false],
  ['.\\r', false, false], ['(a|b)+x', false, false], ['ab', false, true], ['A\\s', false, true], ['😀?a', false, false],
];

describe('lineSearch', () => {
  it('finds exactly the lines that match when tested one by one', () => {
    const rnd = random(25);
    for (let round = 0; round < 150; round++) {
      const t = text(rnd);
      for (const [pattern, literal, ignoreCase] of PATTERNS) {
        const regex = compile(pattern, literal, ignoreCase);
        const max = round % 3 === 0 ? 2 : 1000;
        expect(lineSearch(regex, pattern, literal, ignoreCase)(t, max), JSON.stringify({ pattern, literal, ignoreCase, t })).toEqual(everyLine(t, regex, max));
      }
    }
  });

  it('does not count the empty piece after a trailing newline as a line', () => {
    const search = lineSearch(compile('^$', false, false), '^$', false, false);
    expect(search('a\n', 10)).toEqual([]);
    expect(search('a\n\n', 10)).toEqual([2]);
    expect(search('', 10)).toEqual([]);
  });
});
