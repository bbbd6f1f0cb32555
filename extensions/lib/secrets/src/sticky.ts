import { assertBounded } from './bounded.js';
import type { ScanContext } from './scan-context.js';
import type { Span } from './span.js';

export interface StickyOptions {
  /** Index of the capture group that is the secret (the rest is context). Default: the whole match. */
  group?: number;
  /** Reject a match on a closer look (a JSON header, an example key). */
  validate?: (secret: string) => boolean;
  /** How far before the trigger the match starts (for triggers in the middle of a token). */
  back?: number;
}

/** A rule's matcher: the secret's span at a trigger, or undefined. */
export type Matcher = (text: string, at: number, ctx: ScanContext) => Span | undefined;

/**
 * A matcher that tries `source` at one position only (the `y` flag), so a rule costs nothing
 * until its trigger literal shows up: the scanner never runs a rule's regex over the whole text.
 * Every quantifier must be bounded (checked here, at load), so one attempt costs at most a
 * fixed number of steps whatever follows the trigger.
 */
export function sticky(source: string, options: StickyOptions = {}): Matcher {
  assertBounded(source);
  const re = new RegExp(source, options.group === undefined ? 'y' : 'yd');
  const back = options.back ?? 0;
  return (text, at) => {
    const from = at - back;
    if (from < 0) return undefined;
    re.lastIndex = from;
    const m = re.exec(text);
    if (m === null) return undefined;
    const pair: readonly [number, number] | undefined =
      options.group === undefined ? [m.index, m.index + m[0].length] : m.indices?.[options.group];
    if (pair === undefined) return undefined;
    const span = { start: pair[0], end: pair[1] };
    if (options.validate && !options.validate(text.slice(span.start, span.end))) return undefined;
    return span;
  };
}
