import { linearRegExp } from '@airlock/toolkit/util';
import { exactLiteral, requiredLiteral } from './literal.js';

/**
 * The lines of a text a pattern matches, without running the regex on every line when the
 * pattern has text that every match contains.
 *
 * RE2 (re2js, pure JavaScript) costs several microseconds per call before it looks at a single
 * character, so testing each line of a tree where the pattern is common cost more than reading
 * the files. So:
 *
 * - a pattern that is plain text (`literal`, or a regex of plain characters) is found with
 *   `indexOf`, and a line that contains it matches: no regex runs at all;
 * - a pattern with a required piece of plain text (see requiredLiteral) runs the regex only on
 *   the lines that contain that text;
 * - any other pattern first tests the whole text once with a multiline copy (a line matches only
 *   if the whole text does: with the `m` flag `^`, `$` and `\b` behave at a line's ends as at the
 *   ends of a text, and RE2 has no lookarounds to see past them), then every line.
 *
 * Every step stays linear in the text: `indexOf` and RE2's test both are, and each line is tested
 * at most once. (Searching the whole text for the next match instead would not be: a greedy
 * pattern that can match a newline, `x[^y]*z`, runs to the end of the text from every candidate.)
 */
export type LineSearch = (text: string, max: number) => number[];

/**
 * @param regex the compiled pattern (compile in grep.ts), tested on one line at a time
 * @example lineSearch(/value_[0-9]+/u, 'value_[0-9]+', false, false)('a\nvalue_1\n', 10) // [2]
 */
export function lineSearch(regex: RegExp, pattern: string, literal: boolean, ignoreCase: boolean): LineSearch {
  const exact = exactLiteral(pattern, literal, ignoreCase);
  if (exact !== undefined) return (text, max) => scan(text, max, (from) => text.indexOf(exact, from), () => true);
  const required = requiredLiteral(pattern, literal, ignoreCase, { ascii: false });
  if (required !== undefined) return (text, max) => scan(text, max, (from) => text.indexOf(required, from), (line) => regex.test(line));
  // Shared and without `g`: a test keeps no state between calls.
  const multiline = linearRegExp(regex.source, `${regex.flags}m`);
  return (text, max) => (multiline.test(text) ? scan(text, max, (from) => from, (line) => regex.test(line)) : []);
}

/**
 * Line numbers (1-based) of up to `max` lines that `verify` accepts, among those `next` points
 * into. `next(from)` gives a position ≥ from in a line that may match (from is always a line's
 * start), or -1 when no later line can. A trailing newline ends the last line; it does not start
 * an empty one.
 */
function scan(text: string, max: number, next: (from: number) => number, verify: (line: string) => boolean): number[] {
  const found: number[] = [];
  let lineStart = 0;
  let lineNo = 1;
  while (found.length < max && lineStart < text.length) {
    const at = next(lineStart);
    if (at === -1) break;
    let newline = text.indexOf('\n', lineStart);
    while (newline !== -1 && newline < at) {
      lineStart = newline + 1;
      lineNo++;
      newline = text.indexOf('\n', lineStart);
    }
    if (lineStart >= text.length) break;
    const lineEnd = newline === -1 ? text.length : newline;
    if (verify(text.slice(lineStart, lineEnd))) found.push(lineNo);
    lineStart = lineEnd + 1;
    lineNo++;
  }
  return found;
}
