/**
 * Ways bash runs a string as code that the shell analysis does not read as a script: sourcing
 * (`source`, `.`), traps, prompt and start-up variables (PS4, BASH_ENV, ENV, PROMPT_COMMAND),
 * prompt expansion `${x@P}`, callbacks (`mapfile -C`), arithmetic with command substitution in a
 * subscript, `hash -p`, loadable builtins (`enable -f`), and nameref/indirection games. With the
 * OS sandbox running these are harmless (it enforces the rules whatever runs); without it, each
 * is asked about. Matched on the command's text, so quoting cannot hide a construct from it (it
 * may ask for a harmless mention, which is the safe side).
 */
/**
 * A command word's position: the start, after a separator or a keyword, or after assignments.
 * An assignment's value stops at a separator too (not `\S*`), so a try from each separator
 * scans only to the next one: linear in the command, where `\S*` was quadratic on `;a=;a=…`.
 */
const AT = '(?:^|[;&|(`{!\\n]|\\b(?:then|do|else|time|exec|command|builtin|env)\\s)\\s*(?:\\w+=[^\\s;&|]*\\s+)*';
const at = (words: string, rest = '\\s'): RegExp => new RegExp(`${AT}(?:${words})${rest}`);

const CODE_FROM_STRINGS: readonly { pattern: { test(command: string): boolean }; what: string }[] = [
  { pattern: at('source|\\.'), what: 'sources a file or stdin as a script' },
  { pattern: at('trap'), what: 'sets a trap (a string run as code later)' },
  { pattern: /\b(PS[0-4]|BASH_ENV|ENV|PROMPT_COMMAND|BASH_FUNC_[\w%]*|SHELLOPTS|BASHOPTS)\+?=/, what: 'sets a variable bash runs as code or that changes how it runs' },
  { pattern: /@[PEAKkaQUuL]\}/, what: 'uses a ${x@…} transformation (prompt expansion runs code)' },
  { pattern: /\b(mapfile|readarray)\b[^;&|\n]*\s-C/, what: 'gives mapfile a callback' },
  // An array subscript (`a[…]`, not a `[ … ]` test) holding a command substitution.
  { pattern: { test: subscriptRunsCommand }, what: 'runs a command inside a subscript (arithmetic evaluation runs it)' },
  { pattern: at('hash', '\\s[^;&|\\n]*-p'), what: 'rebinds a command name with hash -p' },
  { pattern: at('enable'), what: 'loads or switches builtins' },
  { pattern: at('declare|typeset|local', '\\s[^;&|\\n]*-[a-zA-Z]*n'), what: 'makes a name reference' },
  { pattern: /\$\{![^}]*\}/, what: 'uses indirect expansion' },
  { pattern: /\\\n/, what: 'continues a line with a backslash-newline inside a word' },
];

/**
 * Why `command` needs a person when no OS sandbox enforces the rules, or undefined.
 *
 * @example
 * unsandboxedRisk('source /dev/stdin <<< "cat .env"') // 'sources a file or stdin as a script'
 * unsandboxedRisk('ls -la') // undefined
 */
export function unsandboxedRisk(command: string): string | undefined {
  // The checks from a trigger to the next separator (mapfile, hash, declare) may rescan a long
  // run with no separator once per trigger; callers keep commands to the parsed size
  // (path-policy's maxCommandLength: a longer one asks anyway), which bounds that.
  for (const { pattern, what } of CODE_FROM_STRINGS) if (pattern.test(command)) return what;
  return undefined;
}

/**
 * `name[… $(…) …]` or `` name[… `…` …] ``: a subscript opened right after a word character and not
 * yet closed holds a command substitution. One pass, so a long run of names (`aaaa…`) costs what
 * it is long; the regex `[A-Za-z_]\w*\[[^\]]*\$\(` retried from every letter was quadratic there.
 * Any word character before `[` counts (a digit too): asking once too often is the safe side.
 */
function subscriptRunsCommand(command: string): boolean {
  let open = false;
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (c === '[') {
      if (!open && i > 0 && /\w/.test(command[i - 1]!)) open = true;
    } else if (c === ']') open = false;
    else if (open && (c === '`' || (c === '$' && command[i + 1] === '('))) return true;
  }
  return false;
}
