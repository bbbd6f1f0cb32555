import { linearRegExp } from '@airlock/kernel/util';
import { exactLiteral, requiredLiteral } from './literal.js';

/**
 * The lines of a text a pattern matches, without running the regex on every line.
 *
 * RE2 (re2js, pure JavaScript) costs several microseconds per call before it looks at a single
 * character, so testing each line of a tree where the pattern is common cost more than reading
 * the files. Instead the search jumps from one candidate line to the next and tests only those:
 *
 * - a pattern that is plain text (`literal`, or a regex of plain characters) is found with
 *   `indexOf`, and a line that contains it matches: no regex runs at all;
 * - a pattern with a required piece of plain text (see requiredLiteral) runs the regex only on
 *   the lines that contain that text;
 * - any other pattern is searched in the whole text with a multiline copy, which jumps to the
 *   next line that can match; the line is tested alone only when that match runs past its end.
 *
 * Every step stays linear in the text: `indexOf` and RE2 both are, and each line is tested at
 * most once. The multiline search cannot skip a matching line: a match of the line alone is also
 * a match at the same place in the whole text (with the `m` flag `^`, `$` and `\b` behave at a
 * line's ends as at the ends of a text, and RE2 has no lookarounds to see past them), so the
 * leftmost match from a line's start is in that line or an earlier one.
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
  // Shared and without `g`: it searches a slice starting at a line's start, which is that line's
  // start in the whole text too (see above), so no lastIndex is kept between calls.
  const multiline = linearRegExp(regex.source, `${regex.flags}m`);
  return (text, max) => {
    let end = 0;
    return scan(
      text,
      max,
      (from) => {
        const m = multiline.exec(from === 0 ? text : text.slice(from));
        if (m === null) return -1;
        end = from + m.index + m[0].length;
        return from + m.index;
      },
      (line, lineEnd) => end <= lineEnd || regex.test(line),
    );
  };
}

/**
 * Line numbers (1-based) of up to `max` lines that `verify` accepts, among those `next` points
 * into. `next(from)` gives a position ≥ from in a line that may match (from is always a line's
 * start), or -1 when no later line can. A trailing newline ends the last line; it does not start
 * an empty one.
 */
function scan(text: string, max: number, next: (from: number) => number, verify: (line: string, lineEnd: number) => boolean): number[] {
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
    if (verify(text.slice(lineStart, lineEnd), lineEnd)) found.push(lineNo);
    lineStart = lineEnd + 1;
    lineNo++;
  }
  return found;
}
