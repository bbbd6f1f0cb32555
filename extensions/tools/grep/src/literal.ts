/**
 * A cheap necessary condition for a regex: ASCII text that every match must contain. The Node
 * engine looks for it in a file's raw bytes (Buffer.indexOf, a native substring search) and skips
 * the file without decoding it when it is absent, which is most files of a tree for most searches.
 *
 * Only the pattern's leading run of plain characters is used, and only when the pattern has no
 * `|` at all: an alternative anywhere could match without that run. ASCII only, because an ASCII
 * byte in UTF-8 is always that character (never part of another one, never produced by the
 * decoder's replacement of invalid bytes), so "absent in the bytes" implies "absent in the text".
 */

/** Characters that mean something in a regex outside a class. */
const META = new Set(['.', '^', '$', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '\\']);
/** Characters that make the one before them optional or repeatable zero times. */
const OPTIONAL = new Set(['*', '?', '{']);
/** Escaped characters that stand for themselves, with or without the `u` flag. */
const ESCAPED_SELF = new Set(['.', '^', '$', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '\\', '/', '-']);

/** Shorter runs find too many files to pay for the extra search. */
const MIN_LENGTH = 2;

/**
 * The text every match of `pattern` contains, or undefined when there is no usable one.
 * `ascii` (default true): only ASCII text, for a search in a file's raw bytes (see above); false
 * for a search in decoded text, where any character compares as itself.
 *
 * @example
 * requiredLiteral('needle_rare_[0-9]+', false, false); // 'needle_rare_'
 * requiredLiteral('colou?r', false, false);            // 'colo'
 * requiredLiteral('a|b', false, false);                // undefined
 */
export function requiredLiteral(pattern: string, literal: boolean, ignoreCase: boolean, { ascii = true }: { ascii?: boolean } = {}): string | undefined {
  // Case folding is not a byte comparison (and covers non-ASCII letters): no shortcut then.
  if (ignoreCase) return undefined;
  if (literal) return (!ascii || isAscii(pattern)) && pattern.length >= MIN_LENGTH ? pattern : undefined;
  if (pattern.includes('|')) return undefined;
  // an anchor matches no text: the run after it still must be there
  const { run } = leadingRun(pattern, pattern.startsWith('^') ? 1 : 0, ascii);
  return run.length >= MIN_LENGTH ? run : undefined;
}

/**
 * The text a line must contain to match, when containing it is also enough: the whole pattern
 * is plain text (or `literal`), case-sensitive, with no anchor. Undefined otherwise. A newline
 * never is part of it, as no line holds one.
 *
 * @example
 * exactLiteral('value_', false, false);      // 'value_'
 * exactLiteral('a\.b', false, false);       // 'a.b'
 * exactLiteral('value_[0-9]', false, false); // undefined
 */
export function exactLiteral(pattern: string, literal: boolean, ignoreCase: boolean): string | undefined {
  if (ignoreCase || pattern === '') return undefined;
  const text = literal ? pattern : plainRun(pattern, 0, false);
  return text !== undefined && !text.includes('\n') ? text : undefined;
}

/** The whole pattern as the text it matches, when every character of it is plain text. */
function plainRun(pattern: string, start: number, ascii: boolean): string | undefined {
  const { run, end } = leadingRun(pattern, start, ascii);
  return end === pattern.length ? run : undefined;
}

/** The plain characters of `pattern` from `start` on, up to the first that is not plain text. */
function leadingRun(pattern: string, start: number, ascii: boolean): { run: string; end: number } {
  let run = '';
  let i = start;
  while (i < pattern.length) {
    const c = pattern[i] as string;
    let char: string;
    let width: number;
    if (c === '\\') {
      const next = pattern[i + 1];
      if (next === undefined || !ESCAPED_SELF.has(next)) break; // \d, \b, \n, … are not plain text
      char = next;
      width = 2;
    } else if (META.has(c) || (ascii && c.charCodeAt(0) >= 0x80)) {
      break;
    } else {
      // A surrogate pair is one character to a quantifier after it (with the u flag).
      width = isHighSurrogate(c) && isLowSurrogate(pattern[i + 1]) ? 2 : 1;
      char = pattern.slice(i, i + width);
    }
    // "ab?" does not require the b: stop before a character that a quantifier makes optional.
    const after = pattern[i + width];
    if (after !== undefined && OPTIONAL.has(after)) break;
    run += char;
    i += width;
  }
  return { run, end: i };
}

function isHighSurrogate(c: string): boolean {
  const code = c.charCodeAt(0);
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(c: string | undefined): boolean {
  const code = c === undefined ? -1 : c.charCodeAt(0);
  return code >= 0xdc00 && code <= 0xdfff;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 0x80) return false;
  return true;
}
