import { LinearRegExp } from '@airlock/toolkit/util';

/**
 * Glob → RegExp for the four things rules match: paths, commands, hosts and tool names. Each
 * dialect is small and anchored at both ends, so a pattern never matches "somewhere inside".
 * A rule is settings text (or a remembered answer built from the model's command): many `*`s
 * are many `.*`s, which a backtracking engine takes time to the power of their number over, so
 * every glob is matched by RE2 in linear time (LinearRegExp). The exception is a path glob whose
 * wildcards Airlock wrote itself (the built-in secret and executable-config patterns, protected
 * places, with every piece from outside escaped): JavaScript's engine runs those, since compiling
 * the hundred-odd built-in patterns with RE2 cost about 100 ms at every start.
 */

/** Who wrote a glob's wildcards: Airlock itself (`'airlock'`), or settings, a person or the model. */
export type GlobOrigin = 'airlock' | 'outside';

// "/" needs no escape in a RegExp built from a string, and keeping it bare lets "a/**" find its slash.
const SPECIAL = /[.*+?^${}()|[\]\\]/g;

function escape(text: string): string {
  return text.replace(SPECIAL, '\\$&');
}

/** A problem in a pattern, said so the rule's author can fix it. */
export class GlobError extends Error {}

/**
 * A path glob: `**` crosses folders, `*` and `?` stay inside one name (and match a leading dot:
 * a deny on `*.pem` must cover `.secret.pem`), `[a-z]` is a class, `{a,b}` alternatives, `\x` a
 * literal. A trailing `/**` also matches the folder itself, so `~/.ssh/**` covers listing `~/.ssh`.
 *
 * @example pathGlob('/home/u/**\/.env').test('/home/u/a/b/.env') // true
 */
export function pathGlob(pattern: string, fold: boolean, origin: GlobOrigin = 'outside'): RegExp {
  let out = '';
  let i = 0;
  let braces = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      const slashBefore = i === 0 || pattern[i - 1] === '/';
      const slashAfter = pattern[i + 2] === '/';
      const atEnd = i + 2 === pattern.length;
      if (!slashBefore || !(slashAfter || atEnd)) throw new GlobError(`"**" must be a whole path segment (as in "a/**/b" or "a/**"), not part of a name: ${pattern}`);
      if (slashAfter) {
        out += '(?:[^/]*/)*'; // zero or more whole folders
        i += 3;
      } else {
        // "a/**": everything below a; the "/" already emitted is made optional so "a" itself matches.
        if (out.endsWith('/')) out = `${out.slice(0, -1)}(?:/.*)?`;
        else out += '.*';
        i += 2;
      }
      continue;
    }
    if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end === -1) throw new GlobError(`"[" opens a character class that is never closed: ${pattern}`);
      let body = pattern.slice(i + 1, end);
      const negate = body.startsWith('!') || body.startsWith('^');
      if (negate) body = body.slice(1);
      out += `[${negate ? '^/' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
      i = end + 1;
      continue;
    } else if (c === '{') {
      braces++;
      out += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (c === ',' && braces > 0) out += '|';
    else if (c === '\\') {
      const next = pattern[i + 1];
      if (next === undefined) throw new GlobError(`the pattern ends in a lone "\\": ${pattern}`);
      out += escape(next);
      i += 2;
      continue;
    } else out += escape(c);
    i++;
  }
  if (braces > 0) throw new GlobError(`"{" opens alternatives that are never closed: ${pattern}`);
  const flags = fold ? 'iu' : 'u';
  return origin === 'airlock' ? new RegExp(`^${out}$`, flags) : new LinearRegExp(`^${out}$`, flags);
}

/**
 * A command glob over a simple command's words joined by single spaces: `*` is any run of
 * characters (spaces included); a trailing ` *` is a word-boundary prefix (`git push *` matches
 * `git push` and `git push origin`, not `git pushy`); a trailing `*` is a plain prefix.
 *
 * @example commandGlob('git push *').test('git push origin main') // true
 */
export function commandGlob(pattern: string): RegExp {
  const text = normalizeCommand(pattern);
  if (text === '') throw new GlobError('the command pattern is empty; write e.g. "bash(npm test*)", or just "bash" for every command');
  const wordPrefix = text.endsWith(' *') && !text.endsWith('\\ *');
  const body = wordPrefix ? text.slice(0, -2) : text;
  return new LinearRegExp(`^${wildcards(body, '.*', pattern)}${wordPrefix ? '(?: .*)?' : ''}$`, 'su');
}

/**
 * `*` becomes `star`; `\x` is a literal x (how a saved rule spells a command or name that
 * itself holds `*`, `(` or `\`); everything else is literal.
 */
function wildcards(text: string, star: string, pattern: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') {
      const next = text[i + 1];
      if (next === undefined) throw new GlobError(`the pattern ends in a lone "\\": ${pattern}`);
      out += escape(next);
      i++;
    } else out += c === '*' ? star : escape(c);
  }
  return out;
}

/** Whitespace runs become one space, so `git  push` and `git push` compare equal. */
export function normalizeCommand(text: string): string {
  return text.trim().replace(/\s+/g, ' ').normalize('NFC');
}

/**
 * A host glob, case-insensitive: `*` stays inside one label, a leading `*.` covers any number
 * of subdomains (not the bare domain), and `*` alone is every host. `domain:` may prefix it.
 *
 * @example hostGlob('*.example.com').test('a.b.example.com') // true
 */
export function hostGlob(pattern: string): RegExp {
  const text = pattern.startsWith('domain:') ? pattern.slice('domain:'.length) : pattern;
  if (text === '') throw new GlobError('the host pattern is empty; write e.g. "net(*.example.com)" or "net(*)"');
  if (text === '*') return /^.+$/su;
  const sub = text.startsWith('*.');
  const rest = sub ? text.slice(2) : text;
  const source = wildcards(rest, '[^.]*', pattern);
  return new LinearRegExp(`^${sub ? '(?:[^.]+\\.)+' : ''}${source}\\.?$`, 'iu');
}

/** A tool-name glob: `*` is any run of characters (`mcp:*`, `mcp:github/*`). */
export function toolGlob(pattern: string): RegExp {
  return new LinearRegExp(`^${wildcards(pattern, '.*', pattern)}$`, 'su');
}

/**
 * The same glob with `-` and `_` taken as one character and case ignored: what a name written by
 * hand from a server's documentation (`everything__get_sum`) means when the server spells the
 * tool `get-sum`. Deny and ask rules match through it (a guard misspelt by a separator still
 * guards); allow rules never do, so an allow opens only the tool it spells.
 *
 * @example looseToolGlob('everything__get_sum').test('everything__get-sum') // true
 */
export function looseToolGlob(pattern: string): RegExp {
  const source = wildcards(pattern, '.*', pattern).replace(/\\?[-_]/g, '[-_]');
  return new LinearRegExp(`^${source}$`, 'siu');
}

/** Whether a path glob has wildcards at all (a literal path can be compared directly). */
export function hasGlobMeta(text: string): boolean {
  return /[*?[{]/.test(text);
}

/**
 * Whether a path pattern names one path only: no unescaped wildcard, class or brace.
 *
 * @example isLiteralPattern('/.git/hooks/pre-commit') // true
 * @example isLiteralPattern('.git/**') // false
 */
export function isLiteralPattern(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if ('*?[{'.includes(text[i]!)) return false;
  }
  return true;
}

/**
 * No unescaped `*`: a command pattern that stands for one command only, as the approval
 * prompt's "always allow" saves it.
 *
 * @example isLiteral('gh auth token') // true; isLiteral('gh *') // false
 */
export function isLiteral(spec: string): boolean {
  for (let i = 0; i < spec.length; i++) {
    if (spec[i] === '\\') i++;
    else if (spec[i] === '*') return false;
  }
  return true;
}
