import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapePattern, formatRule, literalRule, literalText, parseRule, RULE_KINDS, RuleSyntaxError } from '../src/index.js';

// Characters that stress the grammar: glob syntax, parentheses, the escape, spaces, and
// non-ASCII letters (combining marks, astral characters, right-to-left text).
const tricky = fc.constantFrom('*', '?', '[', ']', '{', '}', ',', '(', ')', '\\', ' ', '/', '.', '~', 'é', 'e\u0301', '𝒳', 'ß', 'שלום', '漢', '\t');
const text = fc.array(fc.oneof(tricky, fc.string({ unit: 'grapheme', maxLength: 3 })), { maxLength: 12 }).map((parts) => parts.join(''));
const nonBlank = text.filter((t) => t.trim() !== '');
const nameChar = fc.oneof(fc.constantFrom('_', '.', ':', '/', '*', '-', 'é', '漢', '𝒳', 'ß', '7'), fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'), minLength: 1, maxLength: 3 }));
const toolName = fc.array(nameChar, { minLength: 1, maxLength: 6 }).map((p) => p.join(''));
const name = fc.oneof(toolName, fc.constantFrom(...RULE_KINDS));

describe('the rule grammar round-trips', () => {
  it('parse(format(x)) is x for any name and any non-blank pattern', () => {
    fc.assert(
      fc.property(name, nonBlank, (n, spec) => {
        expect(parseRule(formatRule({ name: n, spec }))).toEqual({ name: n, spec });
      }),
      { numRuns: 2000 },
    );
  });

  it('a bare name round-trips without parentheses', () => {
    fc.assert(
      fc.property(name, (n) => {
        expect(parseRule(formatRule({ name: n }))).toEqual({ name: n });
      }),
    );
  });

  it('a literal rule matches exactly its text: its pattern unescapes to the text, whatever it holds', () => {
    fc.assert(
      fc.property(name, nonBlank, (n, t) => {
        const parsed = parseRule(literalRule(n, t));
        expect(parsed.name).toBe(n);
        expect(literalText(parsed.spec!)).toBe(t);
      }),
      { numRuns: 2000 },
    );
  });

  it('escaping leaves no unescaped wildcard, and unescaping undoes it', () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(literalText(escapePattern(t))).toBe(t);
      }),
    );
  });
});

describe('the grammar refuses what it cannot round-trip, saying what to write', () => {
  it('an unclosed "("', () => {
    expect(() => parseRule('bash(npm test')).toThrow(/"\(" is never closed.*ends in "\)"/);
  });

  it('a name with characters no tool or kind has', () => {
    expect(() => parseRule('rm -rf(x)')).toThrow(RuleSyntaxError);
    expect(() => formatRule({ name: 'a b' })).toThrow(/"a b" is not a tool name or a resource kind \(fs\.read, fs\.write, exec, net\)/);
    expect(() => formatRule({ name: '' })).toThrow(RuleSyntaxError);
  });

  it('an empty pattern, in either direction', () => {
    expect(() => parseRule('bash( )')).toThrow(/the pattern in "\(\)" is empty; leave out the parentheses/);
    expect(() => formatRule({ name: 'bash', spec: '  ' })).toThrow(/empty; leave it out/);
  });

  it('a wildcard or a trailing lone backslash is not literal text', () => {
    expect(literalText('ls *.ts')).toBeUndefined();
    expect(literalText('a[bc]')).toBeUndefined();
    expect(literalText('{a,b}')).toBeUndefined();
    expect(literalText('x\\')).toBeUndefined();
    expect(literalText('ls \\*.ts (1)')).toBe('ls *.ts (1)');
  });
});

describe('saved rules keep their text', () => {
  it('bash commands are spelt as approval has always saved them', () => {
    expect(literalRule('bash', 'ls *.ts')).toBe('bash(ls \\*.ts)');
    expect(literalRule('bash', 'echo "(a)" \\ {b}')).toBe('bash(echo "\\(a\\)" \\\\ \\{b\\})');
  });
});
