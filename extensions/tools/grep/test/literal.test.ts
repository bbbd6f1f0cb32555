import { describe, expect, it } from 'vitest';
import { exactLiteral } from '../src/literal.js';
import { requiredLiteral } from '../src/index.js';

// The Node engine skips a file whose bytes lack this text, so a wrong answer loses matches:
// every case here is one where taking more of the pattern would be unsafe.
describe('requiredLiteral', () => {
  it('takes the leading run of plain characters', () => {
    expect(requiredLiteral('needle_rare_[0-9]+', false, false)).toBe('needle_rare_');
    expect(requiredLiteral('value_[0-9]+ =', false, false)).toBe('value_');
    expect(requiredLiteral('^import x', false, false)).toBe('import x');
    expect(requiredLiteral('a\\.b\\(c', false, false)).toBe('a.b(c');
    expect(requiredLiteral('ab+c', false, false)).toBe('ab');
  });

  it('stops before a character a quantifier makes optional', () => {
    expect(requiredLiteral('colou?r', false, false)).toBe('colo');
    expect(requiredLiteral('abc*d', false, false)).toBe('ab');
    expect(requiredLiteral('abc{0,2}', false, false)).toBe('ab');
    expect(requiredLiteral('ab?', false, false)).toBeUndefined(); // "a" alone is too short to pay
  });

  it('gives nothing where a match need not contain the run', () => {
    expect(requiredLiteral('foo|bar', false, false)).toBeUndefined();
    expect(requiredLiteral('(foo)bar', false, false)).toBeUndefined();
    expect(requiredLiteral('\\bfoo', false, false)).toBeUndefined();
    expect(requiredLiteral('\\d+foo', false, false)).toBeUndefined();
    expect(requiredLiteral('.foo', false, false)).toBeUndefined();
    expect(requiredLiteral('foo', false, true)).toBeUndefined(); // ignoreCase: not a byte search
    expect(requiredLiteral('héllo', false, false)).toBeUndefined(); // stops at non-ASCII: "h" is too short
    expect(requiredLiteral('', false, false)).toBeUndefined();
  });

  it('uses a literal pattern as it is, when ASCII', () => {
    expect(requiredLiteral('a|b(c', true, false)).toBe('a|b(c');
    expect(requiredLiteral('ünï', true, false)).toBeUndefined();
  });
});

describe('requiredLiteral for decoded text', () => {
  it('keeps non-ASCII characters, and a surrogate pair whole', () => {
    expect(requiredLiteral('héllo', false, false, { ascii: false })).toBe('héllo');
    expect(requiredLiteral('ünï', true, false, { ascii: false })).toBe('ünï');
    // "😀?" makes the whole emoji optional, not only its second half
    expect(requiredLiteral('ab😀?c', false, false, { ascii: false })).toBe('ab');
  });
});

// A line that contains this text matches, with no regex run: a wrong answer invents matches.
describe('exactLiteral', () => {
  it('is the text of a pattern made only of plain characters', () => {
    expect(exactLiteral('value_', false, false)).toBe('value_');
    expect(exactLiteral('a\\.b\\(c', false, false)).toBe('a.b(c');
    expect(exactLiteral('héllo wörld', false, false)).toBe('héllo wörld');
    expect(exactLiteral('a|b(c', true, false)).toBe('a|b(c');
  });

  it('is nothing for a pattern that means more than its text', () => {
    for (const pattern of ['value_[0-9]', 'ab?', 'ab+', 'ab*', 'a{2}', '^ab', 'ab$', 'a.b', 'a|b', '\\bab', '(ab)', 'a\\d', '😀?']) {
      expect(exactLiteral(pattern, false, false), pattern).toBeUndefined();
    }
    expect(exactLiteral('ab', false, true)).toBeUndefined(); // ignoreCase
    expect(exactLiteral('', false, false)).toBeUndefined();
    expect(exactLiteral('a\nb', true, false)).toBeUndefined(); // no line holds a newline
  });
});
