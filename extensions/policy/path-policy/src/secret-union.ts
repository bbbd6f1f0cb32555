import type { PathPattern } from './rules/types.js';

/**
 * The built-in secret patterns as one pattern for judging: every file a call names is compared
 * with every secret pattern (seventy-odd, each once per spelling of the path), which made that
 * loop most of a small read's verdict. The built-in globs are Airlock's own, on JavaScript's
 * engine (glob.ts), each `^…$` with the same flags, so one alternation `^(?:a|b|…)$` matches
 * exactly when one of them does. Patterns from settings (RE2) stay as they are.
 *
 * @example const judged = [secretUnion(secrets.slice(0, n)), ...secrets.slice(n)]
 */
export function secretUnion(builtIn: readonly PathPattern[]): PathPattern {
  const join = (regexps: RegExp[], flags: string): RegExp => new RegExp(`^(?:${regexps.map((re) => bare(re)).join('|')})$`, flags);
  return {
    text: 'the built-in secret patterns',
    anchor: 'anywhere',
    globs: builtIn.flatMap((p) => p.globs),
    exact: [join(builtIn.flatMap((p) => p.exact), 'u')],
    folded: [join(builtIn.flatMap((p) => p.folded), 'iu')],
  };
}

function bare(re: RegExp): string {
  const { source } = re;
  // Only what pathGlob makes for Airlock's own globs: anchored at both ends, no other engine.
  if (!(re instanceof RegExp) || re.constructor !== RegExp || !source.startsWith('^') || !source.endsWith('$')) {
    throw new Error(`secretUnion: ${source} is not a built-in path glob`);
  }
  return source.slice(1, -1);
}
