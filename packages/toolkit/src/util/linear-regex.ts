import { RE2JS } from 're2js';

/**
 * Regular expressions written by someone other than Airlock (a tool's JSON Schema, a hook
 * matcher, a settings pattern, the model's grep pattern) are matched by RE2 (re2js), whose time
 * is linear in the input whatever the pattern: `^(a+)+$`, `(a|a)*` or `(.*a){20}` cannot stall
 * the host. JavaScript's own engine backtracks and can take longer than the age of the universe
 * on a 40-character string.
 *
 * The pattern is written in JavaScript syntax and means what it means there, with these
 * exceptions, which RE2 cannot run and which are refused with a clear error instead:
 * lookarounds (`(?=`, `(?!`, `(?<=`, `(?<!`), backreferences (`\1`, `\k<name>`), repeat counts
 * above 1000, and Unicode property names RE2 does not know (`\p{L}` and `\p{Script=Greek}`
 * work, the long `\p{Letter}` does not). `\s` and `.` are translated to JavaScript's sets
 * (Unicode spaces; every character but the four line terminators). Known small differences:
 * `\w`, `\b` and case folding with `iu` follow RE2 (ASCII word characters), and without the
 * `u` flag `.` matches a whole surrogate pair rather than half of one.
 */

/** JavaScript's `\s`: WhiteSpace and LineTerminator (ECMA-262 §22.2.2.9), as RE2 class ranges. */
const SPACE_RANGES: readonly (readonly [number, number])[] = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];

const hex = (n: number) => `\\x{${n.toString(16)}}`;
const rangesText = (ranges: readonly (readonly [number, number])[]) => ranges.map(([a, b]) => (a === b ? hex(a) : `${hex(a)}-${hex(b)}`)).join('');

const SPACE = rangesText(SPACE_RANGES);
/** Everything but `\s`, for a `\S` inside a class (RE2 has no negated set inside a class). */
const NOT_SPACE = rangesText(
  SPACE_RANGES.reduce<[number, number][]>((out, [a, b], i) => {
    const from = i === 0 ? 0 : SPACE_RANGES[i - 1]![1] + 1;
    if (a > from) out.push([from, a - 1]);
    if (i === SPACE_RANGES.length - 1 && b < 0x10ffff) out.push([b + 1, 0x10ffff]);
    return out;
  }, []),
);
/** JavaScript's `.` without the `s` flag: anything but \n, \r, U+2028 and U+2029. */
const DOT = `[^\\n\\r${hex(0x2028)}${hex(0x2029)}]`;

/** The long forms of a Unicode property escape whose value RE2 takes alone. */
const PROPERTY_PREFIX = /^\{(?:Script|sc|General_Category|gc)=/;

const FLAGS = new Set(['g', 'i', 'm', 's', 'u', 'y']);

/** Why a pattern cannot be matched in linear time (or is not a regular expression at all). */
export class LinearRegExpError extends SyntaxError {
  constructor(
    /** The pattern as written. */
    readonly pattern: string,
    /** What is wrong, without the pattern: `it uses a lookahead "(?="`. */
    readonly reason: string,
    /** Whether JavaScript itself refuses the pattern (a typo), rather than only RE2. */
    readonly invalid = false,
  ) {
    super(
      invalid
        ? `/${pattern}/ is not a valid regular expression: ${reason}`
        : `/${pattern}/ cannot be matched in linear time: ${reason}. Airlock matches patterns it did not write with a linear-time engine (RE2), ` +
            'which has no lookarounds and no backreferences; write the pattern without them',
    );
    this.name = 'LinearRegExpError';
  }

  /**
   * What is wrong, to follow the pattern's name in a caller's own message.
   *
   * @example `matcher ${JSON.stringify(m)} ${error.brief}. Fix the pattern.`
   * // 'matcher "(?=x)" cannot be used: it uses a lookahead "(?=", which the linear-time engine … cannot run. Fix the pattern.'
   */
  get brief(): string {
    return this.invalid
      ? `is not a valid regular expression (${this.reason})`
      : `cannot be used: ${this.reason}, which the linear-time engine Airlock matches patterns from outside with (RE2) cannot run`;
  }
}

/**
 * A `RegExp` whose matching is done by RE2 in linear time. `test` and `exec` (so `match`,
 * `matchAll`, `replace` and `search` too) honour `g`, `y` and `lastIndex` as a RegExp does;
 * `source` and `flags` are the pattern and flags as written. The native engine never runs: the
 * object's own native program is one that matches nothing, so a copy made the native way fails
 * closed.
 *
 * @example
 * const re = new LinearRegExp('^(a+)+$', 'u');
 * re.test('a'.repeat(100_000) + '!'); // false, in milliseconds
 * new LinearRegExp('(?=x)y'); // throws LinearRegExpError: … uses a lookahead "(?=" …
 */
export class LinearRegExp extends RegExp {
  static override get [Symbol.species](): RegExpConstructor {
    return LinearRegExp as unknown as RegExpConstructor;
  }

  readonly #source: string;
  readonly #re2: RE2JS;
  readonly #groupNames: readonly [string, number][];

  constructor(pattern: string | RegExp, flags?: string) {
    const source = typeof pattern === 'string' ? pattern : pattern.source;
    const given = flags ?? (typeof pattern === 'string' ? '' : pattern.flags);
    super('[^\\s\\S]', checkFlags(source, given));
    this.#source = source;
    this.#re2 = compileRe2(source, given);
    this.#groupNames = Object.entries(this.#re2.namedGroups());
  }

  override get source(): string {
    return this.#source;
  }

  override test(input: string): boolean {
    if (!this.global && !this.sticky) return this.#re2.test(String(input));
    return this.exec(input) !== null;
  }

  override exec(input: string): RegExpExecArray | null {
    const text = String(input);
    const moving = this.global || this.sticky;
    const from = moving ? this.lastIndex : 0;
    if (from > text.length) {
      this.lastIndex = 0;
      return null;
    }
    const m = this.#re2.matcher(text);
    if (!m.find(from) || (this.sticky && m.start() !== from)) {
      if (moving) this.lastIndex = 0;
      return null;
    }
    const found: (string | undefined)[] = [];
    for (let g = 0; g <= m.groupCount(); g++) found.push(m.group(g) ?? undefined);
    const groups = this.#groupNames.length === 0 ? undefined : Object.fromEntries(this.#groupNames.map(([name, i]) => [name, found[i]]));
    if (moving) this.lastIndex = m.end();
    return Object.assign(found as string[], { index: m.start(), input: text, groups }) as RegExpExecArray;
  }
}

const cache = new Map<string, LinearRegExp>();
const CACHE_MAX = 512;

/**
 * A shared `LinearRegExp` for a pattern without `g` or `y` (those keep a `lastIndex`, so each
 * caller gets its own): compiled once per pattern and flags, not once per use.
 *
 * @example linearRegExp('^[a-z]+$', 'u').test('abc') // true
 */
export function linearRegExp(pattern: string, flags = ''): LinearRegExp {
  if (/[gy]/.test(flags)) return new LinearRegExp(pattern, flags);
  const key = `${flags}/${pattern}`;
  let re = cache.get(key);
  if (re === undefined) {
    re = new LinearRegExp(pattern, flags);
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(key, re);
  }
  return re;
}

/**
 * Why `pattern` cannot be a `LinearRegExp`, in words (`it uses a lookahead "(?="`), or undefined
 * when it can.
 *
 * @example linearRegExpProblem('(a)\\1') // 'it uses a backreference "\\1"'
 */
export function linearRegExpProblem(pattern: string, flags = ''): string | undefined {
  try {
    linearRegExp(pattern, flags);
    return undefined;
  } catch (error) {
    if (error instanceof LinearRegExpError) return error.invalid ? `it is not a valid regular expression: ${error.reason}` : error.reason;
    throw error;
  }
}

function checkFlags(source: string, flags: string): string {
  for (const f of flags) {
    if (!FLAGS.has(f)) throw new LinearRegExpError(source, `the flag "${f}" is not supported (use g, i, m, s, u or y)`);
  }
  // JavaScript's own parser says whether this is a regular expression at all (it parses in
  // linear time and matches nothing here).
  try {
    new RegExp(source, flags);
  } catch (error) {
    throw new LinearRegExpError(source, (error as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, ''), true);
  }
  return flags;
}

function compileRe2(source: string, flags: string): RE2JS {
  const translated = RE2JS.translateRegExp(toRe2(source, flags.includes('s')));
  let bits = 0;
  if (flags.includes('i')) bits |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes('m')) bits |= RE2JS.MULTILINE;
  if (flags.includes('s')) bits |= RE2JS.DOTALL;
  try {
    return RE2JS.compile(translated, bits);
  } catch (error) {
    throw new LinearRegExpError(source, re2Reason((error as Error).message));
  }
}

/**
 * The JavaScript-only parts of a (valid) JavaScript pattern in RE2 terms: `\s`, `\S` and `.` get
 * JavaScript's sets; lookarounds and backreferences are refused by name. RE2JS.translateRegExp
 * does the rest (named groups, `\u` escapes, `[^]`).
 */
function toRe2(source: string, dotAll: boolean): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    if (ch === '\\') {
      const next = source[i + 1] ?? '';
      if (next === 's') out += inClass ? SPACE : `[${SPACE}]`;
      else if (next === 'S') out += inClass ? NOT_SPACE : `[^${SPACE}]`;
      else if (next === 'k' && source[i + 2] === '<') throw new LinearRegExpError(source, `it uses a backreference "\\k<"`);
      else if (/[1-9]/.test(next) && !inClass) throw new LinearRegExpError(source, `it uses a backreference "\\${next}"`);
      else if ((next === 'p' || next === 'P') && PROPERTY_PREFIX.test(source.slice(i + 2))) {
        // `\p{Script=Greek}` and `\p{gc=L}` are RE2's `\p{Greek}` and `\p{L}`.
        out += `\\${next}{`;
        i += PROPERTY_PREFIX.exec(source.slice(i + 2))![0].length;
      }
      else out += ch + next;
      i++;
    } else if (inClass) {
      if (ch === ']') inClass = false;
      out += ch;
    } else if (ch === '[') {
      inClass = true;
      out += ch;
      // A "]" or "^]" right after the "[" is part of the class in RE2 but ends it in JavaScript:
      // leave those to translateRegExp, which knows `[]` and `[^]`.
      if (source[i + 1] === ']' || (source[i + 1] === '^' && source[i + 2] === ']')) {
        const n = source[i + 1] === ']' ? 1 : 2;
        out += source.slice(i + 1, i + 1 + n);
        i += n;
        inClass = false;
      }
    } else if (ch === '.' && !dotAll) out += DOT;
    else if (ch === '(' && source[i + 1] === '?') {
      const look = /^\(\?(=|!|<=|<!)/.exec(source.slice(i, i + 4));
      if (look) throw new LinearRegExpError(source, `it uses a ${look[1]!.startsWith('<') ? 'lookbehind' : 'lookahead'} "(?${look[1]}"`);
      out += ch;
    } else out += ch;
  }
  return out;
}

/** RE2's parse errors, said the way a pattern's author reads them. */
function re2Reason(message: string): string {
  const m = message.replace(/^error parsing regexp: /, '');
  if (/invalid repeat count/.test(m)) return `${m} (RE2 allows at most 1000 repetitions)`;
  if (/invalid character class range: `\\[pP]/.test(m)) return `${m} (RE2 knows general categories and scripts by their short names, such as \\p{L} or \\p{Script=Greek}, not binary properties or long names)`;
  return `RE2 cannot run it (${m})`;
}
