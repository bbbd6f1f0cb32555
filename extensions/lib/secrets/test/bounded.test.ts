import { describe, expect, it } from 'vitest';
import { assertBounded, MAX_REPEAT } from '../src/bounded.js';
import { sticky } from '../src/sticky.js';

describe('a rule pattern must bound every quantifier (linear time by construction)', () => {
  it('accepts bounded quantifiers, and * + inside a class or escaped', () => {
    for (const ok of ['ghp_[A-Za-z0-9]{36,255}', 'npm_[A-Za-z0-9]{36}', 'sig=(?:[A-Za-z0-9+/*]|%2B){30,1024}', 'a\\+b\\*c', 'x(?:y)?z', `[a-z]{1,${MAX_REPEAT}}`]) {
      expect(() => assertBounded(ok), ok).not.toThrow();
    }
  });

  it('refuses *, + and open or huge ranges, saying how to fix it', () => {
    expect(() => assertBounded('sk-[A-Za-z0-9]+')).toThrow(/unbounded quantifier "\+".*bound it \(\{m,n\}\) or use token\(\)/);
    expect(() => assertBounded('a.*b')).toThrow(/unbounded quantifier "\*"/);
    expect(() => assertBounded('gl[a-z]{2,5}-[A-Za-z0-9_.-]{20,}')).toThrow(/"\{20,\}"/);
    expect(() => assertBounded(`x{1,${MAX_REPEAT + 1}}`)).toThrow(/allows more than 1024 repetitions/);
  });

  it('is checked when a rule is made, not when it first runs', () => {
    expect(() => sticky('sk-[a-z]{32,}')).toThrow(/unbounded/);
  });
});
