import { LinearRegExp, LinearRegExpError } from '@airlock/toolkit/util';
import picomatch from 'picomatch';

/**
 * The lookarounds picomatch puts in every regex it makes with `dot: true`: guards against "."
 * and ".." segments and against an empty name. RE2 cannot run lookarounds, and a walk's relative
 * paths and names never hold such segments nor are empty, so leaving the guards out changes no
 * answer here.
 */
const GUARDS = ['(?!(?:^|\\/)\\.{1,2}(?:\\/|$))', '(?!\\.{1,2}(?:\\/|$))', '(?=.)'];

/**
 * A glob matcher with picomatch's syntax and answers (`dot: true`) whose regex runs in linear
 * time. The glob is the model's (grep's and find's `glob`/`pattern`), and picomatch turns
 * `*a*a*a*a*a*a*a*a*a*a*a*b` into ten lazy `[^/]*?` that JavaScript's backtracking engine takes
 * seconds over on one 30-character name. An extglob that needs a lookaround (`!(x)`) is refused
 * with a clear error; rg's and fd's globs have none either.
 *
 * @example
 * const test = globTest('src/**\/*.ts');
 * test('src/a/b.ts'); // true
 */
export function globTest(glob: string): (path: string) => boolean {
  const options = { dot: true };
  const made = picomatch.makeRe(glob, options, false, true) as RegExp & { state?: { negated?: boolean } };
  const negated = made.state?.negated === true;
  let source = `^(?:${picomatch.makeRe(glob, options, true) as unknown as string})$`;
  for (const guard of GUARDS) source = source.split(guard).join('');
  let re: LinearRegExp;
  try {
    re = new LinearRegExp(source, made.flags);
  } catch (error) {
    if (!(error instanceof LinearRegExpError)) throw error;
    throw new Error(`The glob ${JSON.stringify(glob)} cannot be matched in linear time (${error.reason}). Write it without extglob patterns such as !(…), or use "!" before the whole glob.`);
  }
  // picomatch: an empty path never matches, the glob itself always does.
  return (path) => path !== '' && (path === glob || re.test(path) !== negated);
}
