/**
 * A set of characters as a predicate over UTF-16 code units, backed by a 128-entry table for
 * ASCII. Predicates are compared by identity, so a ScanContext can remember runs per class.
 *
 * @example
 * const B64 = charClass('A-Za-z0-9+/');
 * B64('Q'.charCodeAt(0)); // true
 */
export type CharClass = (code: number) => boolean;

/** `spec` lists characters and ranges (`A-Za-z0-9_-`; a `-` first or last is literal). With `negate`, non-ASCII is in the class. */
export function charClass(spec: string, negate = false): CharClass {
  const table = new Uint8Array(128);
  for (let i = 0; i < spec.length; i++) {
    const from = spec.charCodeAt(i);
    if (spec[i + 1] === '-' && i + 2 < spec.length) {
      const to = spec.charCodeAt(i + 2);
      for (let c = from; c <= to; c++) table[c] = 1;
      i += 2;
    } else table[from] = 1;
  }
  if (negate) {
    for (let c = 0; c < 128; c++) table[c] = 1 - table[c]!;
    return (c) => c >= 128 || table[c] === 1;
  }
  return (c) => c < 128 && table[c] === 1;
}

/** `[A-Za-z0-9_]`: what may not touch a token on either side (the regex `\w` for ASCII). */
export const WORD = charClass('A-Za-z0-9_');
