import { describe, expect, it } from 'vitest';
import { pathPattern } from '../src/rules/compile.js';
import { SECRET_PATTERNS, SECRET_SAMPLE_NAMES } from '../src/secrets.js';
import { secretUnion } from '../src/secret-union.js';

/**
 * Issue 25: verdicts test the built-in secret patterns as one alternation. It must say "secret"
 * for exactly the paths that one of the patterns, tested alone, says it for, case-blind or not.
 */
describe('the built-in secret patterns as one', () => {
  const anchors = { roots: ['/work/shop'], home: ['/home/ada'] };
  const each = SECRET_PATTERNS.map((p) => pathPattern(p, 'deny', anchors, 'airlock'));
  const union = secretUnion(each);
  const names = [...SECRET_SAMPLE_NAMES, 'notes.txt', 'env', '.environment', 'src/app.ts', 'id_rsa.pub', 'README.md', 'key', '.ENV', 'Id_Rsa', 'x.PEM', 'a.pem.bak'];
  const paths = names.flatMap((n) => [`/work/shop/${n}`, `/work/shop/deep/er/${n}`, `/home/ada/${n}`, `/home/ada/.ssh/${n}`, `/home/ada/.aws/${n}`, `/etc/${n}`]);

  it('matches exactly the paths one pattern matches (exact and case-blind)', () => {
    let secrets = 0;
    for (const path of paths) {
      for (const mode of ['exact', 'folded'] as const) {
        const alone = each.some((p) => p[mode].some((re) => re.test(path)));
        expect(union[mode][0]!.test(path), `${mode} ${path}`).toBe(alone);
        if (alone) secrets++;
      }
    }
    // The sample names are secrets: the comparison above covers both answers.
    expect(secrets).toBeGreaterThan(SECRET_SAMPLE_NAMES.length);
    expect(secrets).toBeLessThan(paths.length * 2);
  });

  it('refuses a pattern that is not one of Airlock\'s own globs', () => {
    const outside = pathPattern('*.secret', 'deny', anchors, 'outside');
    expect(() => secretUnion([outside])).toThrow(/not a built-in path glob/);
  });
});
