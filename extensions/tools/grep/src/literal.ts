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
 *
 * @example
 * requiredLiteral('needle_rare_[0-9]+', false, false); // 'needle_rare_'
 * requiredLiteral('colou?r', false, false);            // 'colo'
 * requiredLiteral('a|b', false, false);                // undefined
 */
export function requiredLiteral(pattern: string, literal: boolean, ignoreCase: boolean): string | undefined {
  // Case folding is not a byte comparison (and covers non-ASCII letters): no shortcut then.
  if (ignoreCase) return undefined;
  if (literal) return isAscii(pattern) && pattern.length >= MIN_LENGTH ? pattern : undefined;
  if (pattern.includes('|')) return undefined;
  let run = '';
  let i = pattern.startsWith('^') ? 1 : 0; // an anchor matches no text: the run after it still must be there
  while (i < pattern.length) {
    const c = pattern[i] as string;
    let char: string;
    let width: number;
    if (c === '\\') {
      const next = pattern[i + 1];
      if (next === undefined || !ESCAPED_SELF.has(next)) break; // \d, \b, \n, … are not plain text
      char = next;
      width = 2;
    } else if (META.has(c) || c.charCodeAt(0) >= 0x80) {
      break;
    } else {
      char = c;
      width = 1;
    }
    // "ab?" does not require the b: stop before a character that a quantifier makes optional.
    const after = pattern[i + width];
    if (after !== undefined && OPTIONAL.has(after)) break;
    run += char;
    i += width;
  }
  return run.length >= MIN_LENGTH ? run : undefined;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 0x80) return false;
  return true;
}
