/** The longest repetition a rule's pattern may ask for: a rule's cost at one trigger is bounded by it. */
export const MAX_REPEAT = 1024;

/**
 * Throws unless every quantifier in a regex source is bounded (`{m,n}` with n ≤ MAX_REPEAT, or
 * `?`): `*`, `+` and `{m,}` let one attempt walk the rest of the text, and an attempt from every
 * trigger then costs quadratic time. Runs of unbounded length go through `token()`, which
 * measures each run once per scan.
 *
 * @example
 * assertBounded('ghp_[A-Za-z0-9]{36,255}'); // ok
 * assertBounded('sk-[A-Za-z0-9]+');          // throws
 */
export function assertBounded(source: string): void {
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (ch === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      continue;
    }
    if (ch === '[') inClass = true;
    else if (ch === '*' || ch === '+') throw new Error(`unbounded quantifier "${ch}" at ${i} in /${source}/: bound it ({m,n}) or use token()`);
    else if (ch === '{') {
      const m = /^\{(\d+)(?:,(\d*))?\}/.exec(source.slice(i));
      if (m === null) continue;
      const max = m[2] === undefined ? Number(m[1]) : m[2] === '' ? Infinity : Number(m[2]);
      if (max === Infinity) throw new Error(`unbounded quantifier "${m[0]}" at ${i} in /${source}/: bound it ({m,n}) or use token()`);
      if (max > MAX_REPEAT) throw new Error(`quantifier "${m[0]}" at ${i} in /${source}/ allows more than ${MAX_REPEAT} repetitions: bound it or use token()`);
    }
  }
}
