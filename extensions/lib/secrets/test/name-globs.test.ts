import { describe, expect, it } from 'vitest';
import { nameMatcher } from '../src/index.js';

/** Issue 24 §3: bash's env allow/deny globs are settings text; many `*` must not stall on a long name. */
describe('env-name globs match in linear time', () => {
  it('globs of many stars answer on long names, and decide short ones as before', () => {
    const names = ['A'.repeat(5000), `${'A'.repeat(5000)}B`, 'AB', 'AAB', 'TOKEN', 'MY_TOKEN_X', 'B'];
    for (let stars = 1; stars <= 24; stars += 1) {
      const glob = `${'*A'.repeat(stars)}*B`;
      const m = nameMatcher([glob]);
      // What the glob means, for a name of As with or without a final B: at least `stars` As, then B.
      for (const name of names) expect(m(name), `${glob} on ${name.slice(0, 12)}`).toBe(name.endsWith('B') && (name.match(/A/g)?.length ?? 0) >= stars);
    }
    expect(nameMatcher(['*TOKEN*', 'AWS_?EY'])('MY_TOKEN_X')).toBe(true);
    expect(nameMatcher(['AWS_?EY'])('AWS_KEY')).toBe(true);
    expect(nameMatcher(['AWS_?EY'])('AWS_KKEY')).toBe(false);
  });
});
