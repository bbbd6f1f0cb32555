/**
 * Regular expressions that make a backtracking engine take exponential (or high polynomial)
 * time, each with an input that triggers it and short inputs it must still decide as
 * JavaScript does. Generated from shapes × atoms, so a test covers the class (nested
 * quantifiers, overlapping alternation, stacked `.*`), not one example. Shared by every test of
 * a surface that compiles text Airlock did not write into a regex (schemas, hook matchers,
 * redact patterns, grep …).
 *
 * @example
 * for (const c of catastrophicPatterns()) expect(new LinearRegExp(c.pattern).test(c.evil)).toBe(false);
 */
export interface CatastrophicPattern {
  /** The pattern, anchored with ^ and $, in JavaScript syntax. */
  readonly pattern: string;
  /** Thousands of characters on which a backtracking engine never finishes. */
  readonly evil: string;
  /** A short input each pattern decides as it decides `evil`: JavaScript's quick answer on it is the reference. */
  readonly twin: string;
  /** Short inputs (some matching, some not) on which JavaScript's own answer is fast and is the reference. */
  readonly short: readonly string[];
}

/** The repeated part: its source, a character it matches, a character it does not. */
const ATOMS: readonly (readonly [string, string, string])[] = [
  ['a', 'a', '!'],
  ['\\w', 'a', '!'],
  ['[a-z]', 'a', '1'],
  ['\\d', '1', 'x'],
  ['.', 'a', '\n'],
  ['\\S', 'a', ' '],
];

/** Shapes that backtrack: X is the atom. */
const SHAPES: readonly string[] = ['(X+)+', '(X|X)*', '(X|XX)+', '(X*)*', '(X+X+)+', '(X+\\s?)*', '(.*X){20}'];

/**
 * Every shape with every atom, anchored. `length` is the evil input's length (default 5,000:
 * a backtracking engine gives up around 30).
 */
export function catastrophicPatterns(length = 5_000): CatastrophicPattern[] {
  const out: CatastrophicPattern[] = [];
  for (const shape of SHAPES) {
    for (const [atom, good, bad] of ATOMS) {
      const body = shape.replace(/X/g, atom);
      const short = ['', good, good.repeat(3), good.repeat(25), good.repeat(30), `${good.repeat(4)}${bad}`, `${bad}${good}`, `${good} ${good}`];
      out.push({ pattern: `^${body}$`, evil: good.repeat(length) + bad, twin: good.repeat(4) + bad, short });
    }
  }
  return out;
}
