import { LinearRegExp, LinearRegExpError } from '@airlock/toolkit/util';
import Type from 'typebox';

/** Settings: `extensions: [{ "name": "@airlock/redact-secrets", "options": { … } }]`. */
export const RedactOptions = Type.Object({
  allow: Type.Array(Type.String(), {
    default: [],
    description: 'Never redacted: an exact value, or a regular expression source (written /like this/ or with regex characters) tested against each found secret.',
  }),
  envFrom: Type.Union([Type.Literal('process'), Type.Literal('none')], {
    default: 'process',
    description: "'process': also redact the values of the host process's secret-looking environment variables wherever they appear.",
  }),
  secretFiles: Type.Union([Type.Literal('load'), Type.Literal('none')], {
    default: 'load',
    description:
      "'load': also redact the secret-looking values found in this user's secret files (~/.aws/credentials, ~/.npmrc, ~/.netrc, … and .env* in the project folder) wherever they appear, e.g. in git history. Read once per session on the first result, kept in memory only.",
  }),
});

/**
 * An allow entry is a regex when written `/source/flags`, or when it holds regex syntax that an
 * exact token value never contains; anything else is an exact value. A bad regex is a load error
 * naming the entry, so a typo cannot silently disable the allowlist. The pattern is the user's
 * text, tested against every secret found: it is matched by RE2 in linear time (LinearRegExp), and
 * one RE2 cannot run (a lookaround, a backreference) is a load error too.
 */
export function parseAllow(entries: readonly string[]): (string | RegExp)[] {
  return entries.map((entry) => {
    const slashed = /^\/(.+)\/([a-z]*)$/s.exec(entry);
    try {
      if (slashed) return new LinearRegExp(slashed[1]!, slashed[2]);
      if (/[\\^$*+?()[\]{}|]/.test(entry)) return new LinearRegExp(entry);
    } catch (error) {
      if (!(error instanceof LinearRegExpError)) throw error;
      throw new Error(`redact-secrets: allow entry ${JSON.stringify(entry)} ${error.brief}. Write an exact value, or fix the pattern.`);
    }
    return entry;
  });
}
