import { LinearRegExp, LinearRegExpError } from '@airlock/toolkit/util';

/**
 * Claude Code's matcher rules (hooks.md, "Matcher patterns"), tested against the `tool_name` the
 * hook receives (`Bash`, `Edit`, a third-party tool's own name):
 * - `"*"`, `""` or none: every tool;
 * - only letters, digits, `_`, `-`, blanks, `,` and `|`: an exact name, or a list split on `|`/`,`;
 * - anything else: an unanchored regular expression (`Edit.*` also matches `NotebookEdit`).
 * Case-sensitive. A pattern that is not a valid regular expression throws, naming it: a typo must
 * not silently switch a policy hook off. The pattern comes from a settings file, not from Airlock,
 * so it is matched by RE2 in linear time (LinearRegExp); one RE2 cannot run (a lookaround, a
 * backreference) throws the same way.
 *
 * @example
 * compileMatcher('Edit|Write')('Write') // true
 * compileMatcher('mcp__.*')('mcp__fs__read') // true
 */
export function compileMatcher(matcher: string | undefined): (toolName: string) => boolean {
  if (matcher === undefined || matcher === '' || matcher === '*') return () => true;
  if (/^[A-Za-z0-9_\-\s,|]+$/.test(matcher)) {
    const names = new Set(matcher.split(/[|,]/).map((n) => n.trim()).filter((n) => n !== ''));
    return (toolName) => names.has(toolName);
  }
  let re: RegExp;
  try {
    re = new LinearRegExp(matcher);
  } catch (error) {
    if (!(error instanceof LinearRegExpError)) throw error;
    throw new Error(`command-hooks: matcher ${JSON.stringify(matcher)} ${error.brief}. Write tool names separated by "|", or fix the pattern.`);
  }
  return (toolName) => re.test(toolName);
}
