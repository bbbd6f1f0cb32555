import { assertBounded } from './bounded.js';
import { WORD, type CharClass } from './char-class.js';
import type { Matcher } from './sticky.js';

export interface TokenSpec {
  /** What follows the trigger's index up to the body, as a regex source (bounded), e.g. `sk-(?!ant-)`. */
  prefix: string;
  /** The body's characters. The body is the whole run of them: a token is never cut out of a longer run. */
  body: CharClass;
  min: number;
  max?: number;
  /** Not glued to a word character before the prefix or after the body (default true). */
  boundary?: boolean;
  /** Up to two `=` of base64 padding after the body belong to the token. */
  pad?: boolean;
  /** Report only the body (`AccountKey=` is context, not secret). */
  bodyOnly?: boolean;
  /** A closer look at the whole token (prefix included). */
  validate?: (token: string) => boolean;
}

/**
 * A matcher for a token whose body is a run of one character class, in time linear in the
 * text however the triggers repeat: the run's end comes from the scan's ScanContext (each run
 * is walked once), and once a run is judged not a token, later triggers inside the same run are
 * skipped — `sk-sk-sk-…` is one run judged once, not a rescan from every `sk-`.
 *
 * @example
 * token({ prefix: 'npm_', body: charClass('A-Za-z0-9'), min: 36, max: 36 })
 */
export function token(spec: TokenSpec): Matcher {
  assertBounded(spec.prefix);
  const prefix = new RegExp(spec.prefix, 'y');
  const { body, min, validate } = spec;
  const max = spec.max ?? Infinity;
  const boundary = spec.boundary ?? true;
  const identity = {};
  return (text, at, ctx) => {
    if (ctx.seen(identity, at)) return undefined;
    if (boundary && at > 0 && WORD(text.charCodeAt(at - 1))) return undefined;
    prefix.lastIndex = at;
    if (!prefix.test(text)) return undefined;
    const bodyStart = prefix.lastIndex;
    const bodyEnd = ctx.runEnd(body, bodyStart);
    let end = bodyEnd;
    if (spec.pad) while (end < text.length && end - bodyEnd < 2 && text.charCodeAt(end) === 61) end++;
    const length = bodyEnd - bodyStart;
    const ok = length >= min && length <= max
      && !(boundary && end < text.length && WORD(text.charCodeAt(end)))
      && (validate === undefined || validate(text.slice(at, end)));
    if (!ok) {
      ctx.markSeen(identity, end);
      return undefined;
    }
    return { start: spec.bodyOnly ? bodyStart : at, end };
  };
}
