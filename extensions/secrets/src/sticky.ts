import type { Span } from './span.js';

export interface StickyOptions {
  /** Index of the capture group that is the secret (the rest is context). Default: the whole match. */
  group?: number;
  /** Reject a match on a closer look (a JSON header, an example key). */
  validate?: (secret: string) => boolean;
  /** How far before the trigger the match starts (for triggers in the middle of a token). */
  back?: number;
}

/**
 * A matcher that tries `source` at one position only (the `y` flag), so a rule costs nothing
 * until its trigger literal shows up: the scanner never runs a rule's regex over the whole text.
 */
export function sticky(source: string, options: StickyOptions = {}): (text: string, at: number) => Span | undefined {
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
