import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { globTest } from '../src/index.js';

/**
 * Issue 24 §3: grep's and find's globs are the model's text. globTest answers as picomatch does
 * (dot: true) on the paths a walk produces, in linear time on globs that make picomatch's own
 * regex backtrack for seconds on one name.
 */
const GLOBS = ['*.ts', 'src/**/*.js', '**/n5/**', 'm1/**', '{a,b}/*.md', 'x?y', '[a-z]*.txt', '.env', '**', 'a/**/b', '*.{js,ts}', 'foo', '.*', '!*.md', '**/*.test.ts', 'src/*', '[!a]*'];
const PATHS = ['a.ts', '.a.ts', 'src/x/y.js', 'src/y.js', 'n5', 'x/n5/y', 'm1', 'm1/a/b', 'a/r.md', 'c/r.md', 'xzy', 'x/y', 'b.txt', 'B.txt', '.env', 'a/b', 'a/x/y/b', 'q.js', 'foo', '.foo', 'r.md', 'a/b.test.ts', 'src/a'];

describe('globTest: picomatch\'s answers, in linear time', () => {
  it('agrees with picomatch on every glob and path of a walk', () => {
    for (const glob of GLOBS) {
      const ours = globTest(glob);
      const theirs = picomatch(glob, { dot: true });
      for (const path of PATHS) expect(ours(path), `${glob} on ${path}`).toBe(theirs(path));
    }
  });

  it('answers on globs of many stars over long names (picomatch\'s regex would backtrack for ages)', () => {
    const name = `${'a'.repeat(250)}.txt`;
    for (let stars = 2; stars <= 30; stars += 4) {
      expect(globTest(`${'*a'.repeat(stars)}*b`)(name)).toBe(false);
      expect(globTest(`${'*a'.repeat(stars)}*.txt`)(name)).toBe(true);
      expect(globTest(`**/${'*a'.repeat(stars)}*b`)(`d/e/${name}`)).toBe(false);
    }
  });

  it('refuses an extglob that needs a lookaround, saying what to write instead', () => {
    expect(() => globTest('!(x).ts')).toThrow(/The glob "!\(x\)\.ts" cannot be matched in linear time .*extglob/);
  });
});
