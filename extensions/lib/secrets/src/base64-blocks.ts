import { charClass } from './char-class.js';

/** Standard base64's alphabet (PEM bodies, `base64` output). */
export const B64 = charClass('A-Za-z0-9+/');

/** One run of base64 characters, with its `=` padding. */
export interface Base64Line {
  start: number;
  end: number;
  /** The run is all its line holds (after indentation or a `path:12:` prefix): a wrapped line of a block. */
  alone: boolean;
}

/**
 * Consecutive runs that are each alone on adjacent lines (a wrapped block: a PEM body,
 * `base64` output), or one run by itself. Lines are split at newlines and at JSON's escaped
 * `\n`, so a key body inside a JSON string groups like one in a file.
 */
export type Base64Block = Base64Line[];

/** Shorter runs are words, numbers and short ids; nothing this module looks for is shorter. */
export const MIN_RUN = 16;

/** grep's `path:12:` (`path-12-` for context lines), as `grep -n` puts before each line. */
const GREP_PREFIX = /^[^\s:]{0,200}[:-][0-9]{1,9}[:-]$/;

const isSpace = (c: number): boolean => c === 32 || c === 9;

/** How a line may begin or end: at a line break, or at the quote of a JSON string holding a PEM. */
type Edge = 'line' | 'quote' | undefined;

/** Whether a line break (newline or an escaped `\n`) ends right before `i`, after indentation or a prefix. */
function lineStartsAt(text: string, i: number): Edge {
  let p = i;
  while (p > 0 && i - p < 16 && isSpace(text.charCodeAt(p - 1))) p--;
  if (p === 0) return 'line';
  const c = text.charCodeAt(p - 1);
  if (c === 34) return 'quote';
  // `:`: grep's `path:12:` and YAML's `key: `.
  if (c === 10 || c === 58 || (c === 110 && p >= 2 && text.charCodeAt(p - 2) === 92)) return 'line';
  if (c !== 45) return undefined;
  // `path-12-`: a context line of `grep -n -A/-B/-C`.
  let lineStart = p - 1;
  while (lineStart > 0 && p - lineStart <= 220 && text.charCodeAt(lineStart - 1) !== 10) lineStart--;
  return p - lineStart <= 220 && GREP_PREFIX.test(text.slice(lineStart, p)) ? 'line' : undefined;
}

/** The line break after `i` (trailing spaces, `\r`, then a newline or an escaped `\n`): where it ends, or undefined. */
function lineBreakAfter(text: string, i: number): { at: number; edge: Edge } | undefined {
  let q = i;
  while (q < text.length && q - i < 16) {
    const c = text.charCodeAt(q);
    if (isSpace(c) || c === 13) q++;
    else if (c === 92 && text.charCodeAt(q + 1) === 114) q += 2; // JSON's `\r`
    else break;
  }
  if (q === text.length) return { at: q, edge: 'line' };
  const c = text.charCodeAt(q);
  if (c === 10) return { at: q + 1, edge: 'line' };
  if (c === 92 && text.charCodeAt(q + 1) === 110) return { at: q + 2, edge: 'line' };
  return c === 34 ? { at: q, edge: 'quote' } : undefined;
}

/** The `n` of an escaped `\n` (or `r`, `t`): part of a line break, not of the base64 after it. */
function escapedLetter(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return (c === 110 || c === 114 || c === 116) && i > 0 && text.charCodeAt(i - 1) === 92;
}

/** What may stand between a line break and the base64 on the next line: indentation, a grep prefix. */
const LINE_PREFIX = /[ \t]{0,16}(?:[^\s:]{0,200}[:-][0-9]{1,9}[:-])?/y;

/**
 * Every base64 run of at least MIN_RUN characters, grouped into blocks. One pass over the text.
 *
 * @example
 * base64Blocks('x\nQUJD…64 chars…\nREVG…\n') // [[{ start: 2, end: 66, alone: true }, { … }]]
 */
export function base64Blocks(text: string): Base64Block[] {
  const blocks: Base64Block[] = [];
  let open: Base64Block | undefined;
  let openBreak = -1; // where the line break after the open block's last line ends
  for (let i = 0; i < text.length; i++) {
    if (!B64(text.charCodeAt(i)) || escapedLetter(text, i)) continue;
    const start = i;
    while (i < text.length && B64(text.charCodeAt(i))) i++;
    let end = i;
    while (end < text.length && end - i < 2 && text.charCodeAt(end) === 61) end++;
    i = end - 1;
    if (end - start < MIN_RUN && open === undefined) continue; // a word: the common case, kept cheap
    const after = lineBreakAfter(text, end);
    const before = after === undefined ? undefined : lineStartsAt(text, start);
    // `"…"` with no line break inside is one JSON value, not a line of a wrapped block.
    const line: Base64Line = { start, end, alone: before !== undefined && !(before === 'quote' && after!.edge === 'quote') };
    const adjacent = open !== undefined && line.alone && openBreak === start;
    if (adjacent) open!.push(line); // a block's last line may be short (`w0EAAQ==`)
    else if (end - start >= MIN_RUN) {
      open = [line];
      blocks.push(open);
    } else open = undefined;
    if (!line.alone) {
      open = undefined;
      continue;
    }
    // Step over the next line's indentation or grep prefix, so its words are not taken for runs.
    LINE_PREFIX.lastIndex = after!.at;
    LINE_PREFIX.test(text);
    openBreak = LINE_PREFIX.lastIndex;
    i = openBreak - 1;
  }
  return blocks;
}
