/**
 * The surface grammar of a permission rule: `name` or `name(spec)`, where `name` is a tool name, a
 * tool-name glob (`mcp:github/*`) or a resource kind (`fs.read`, `fs.write`, `exec`, `net`), and
 * `spec` is a pattern in the dialect that name implies (a path, a command or a host). This module
 * only splits and joins the text; what a spec means is the matcher's business (path-policy).
 */

/** The resource kinds a rule may name instead of a tool. */
export const RULE_KINDS = ['fs.read', 'fs.write', 'exec', 'net'] as const;
export type RuleKind = (typeof RULE_KINDS)[number];

/**
 * Tools whose `Tool(spec)` is a command pattern (their calls run command lines). For every other
 * tool the spec is a path pattern; a command of another tool is named with the kind, `exec(spec)`.
 * Saved `bash(…)` rules depend on this, so it only grows.
 */
export const COMMAND_TOOLS: readonly string[] = Object.freeze(['bash']);

/** The pattern dialect of a rule's spec: what the name says its parentheses hold. */
export type SpecDialect = 'path' | 'command' | 'host';

/**
 * Which dialect the spec of `name(spec)` is written in.
 *
 * @example specDialect('net') // 'host'
 * @example specDialect('bash') // 'command'
 * @example specDialect('edit') // 'path'
 */
export function specDialect(name: string): SpecDialect {
  if (name === 'net') return 'host';
  if (name === 'exec' || COMMAND_TOOLS.includes(name)) return 'command';
  return 'path';
}

/**
 * The rule that allows exactly this command line of `tool` and nothing wider: `tool(command)` when
 * the tool's spec is a command pattern, else `exec(command)`. Whitespace runs count as one space
 * (command patterns compare that way), and every special character is escaped.
 *
 * @example commandRule('bash', 'ls   *.ts') // 'bash(ls \\*.ts)'
 * @example commandRule('acme:run', 'make all') // 'exec(make all)'
 */
export function commandRule(tool: string, command: string): string {
  return literalRule(specDialect(tool) === 'command' ? tool : 'exec', command.trim().replace(/\s+/g, ' '));
}

/** What may stand before the parentheses: letters, digits and `_ . : / * -` (tool names, globs, kinds). */
const NAME = /^[\p{L}\p{N}_.:/*-]+$/u;

/** A rule's surface form, split. `spec` is the pattern exactly as written between the parentheses. */
export interface RuleSurface {
  name: string;
  spec?: string;
}

/** A rule whose text does not follow the grammar; the message says what to write instead. */
export class RuleSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RuleSyntaxError';
  }
}

/** Whether `name` is one of the resource kinds (`fs.read`, `fs.write`, `exec`, `net`). */
export function isRuleKind(name: string): name is RuleKind {
  return (RULE_KINDS as readonly string[]).includes(name);
}

/**
 * Split a rule's text into its name and pattern. The pattern runs from the first `(` to the
 * final `)`, so it may hold parentheses of its own; surrounding whitespace of the whole text and
 * of the name is ignored, the pattern is kept as written.
 *
 * @example parseRule('bash(npm test *)') // { name: 'bash', spec: 'npm test *' }
 * @example parseRule('read')             // { name: 'read' }
 */
export function parseRule(text: string): RuleSurface {
  const trimmed = text.trim();
  const open = trimmed.indexOf('(');
  const name = open === -1 ? trimmed : trimmed.slice(0, open).trim();
  if (open !== -1 && !trimmed.endsWith(')')) throw new RuleSyntaxError(`"(" is never closed; a rule with a pattern ends in ")", e.g. "bash(npm test *)".`);
  checkName(name);
  if (open === -1) return { name };
  const spec = trimmed.slice(open + 1, -1);
  if (spec.trim() === '') throw new RuleSyntaxError(`the pattern in "()" is empty; leave out the parentheses to match every call of "${name}".`);
  return { name, spec };
}

/**
 * The text of a rule: `name` or `name(spec)`, the spec as a pattern (its wildcards stay
 * wildcards). Throws a RuleSyntaxError for a name or pattern {@link parseRule} would refuse, so
 * whatever it returns parses back to the same surface.
 *
 * @example formatRule({ name: 'fs.read', spec: '**\/.env' }) // 'fs.read(**\/.env)'
 */
export function formatRule(surface: RuleSurface): string {
  checkName(surface.name);
  if (surface.spec === undefined) return surface.name;
  if (surface.spec.trim() === '') throw new RuleSyntaxError(`the pattern for "${surface.name}" is empty; leave it out to match every call of "${surface.name}".`);
  return `${surface.name}(${surface.spec})`;
}

/**
 * A rule that matches exactly `text` (a command, a path, a host): every character the pattern
 * dialects treat specially is escaped. This is how "always allow" saves what a person approved.
 *
 * @example literalRule('bash', 'ls *.ts') // 'bash(ls \\*.ts)'
 */
export function literalRule(name: string, text: string): string {
  return formatRule({ name, spec: escapePattern(text) });
}

/** The characters with a meaning in some rule pattern: wildcards, classes, alternatives, parentheses, the escape. */
const SPECIAL = /[\\*?[\]{}()]/g;

/**
 * `text` as a pattern that matches only itself: a backslash before each special character
 * (`\ * ? [ ] { } ( )`). A backslash makes the next character literal in every rule dialect.
 *
 * @example escapePattern('a*(b)') // 'a\\*\\(b\\)'
 */
export function escapePattern(text: string): string {
  return text.replace(SPECIAL, '\\$&');
}

/**
 * The text a pattern matches when it is literal (every special character escaped), or undefined
 * when it has a wildcard, class or alternative (or ends in a lone backslash).
 *
 * @example literalText('ls \\*.ts') // 'ls *.ts'
 * @example literalText('ls *.ts')   // undefined
 */
export function literalText(spec: string): string | undefined {
  let out = '';
  for (let i = 0; i < spec.length; i++) {
    const c = spec[i]!;
    if (c === '\\') {
      const next = spec[i + 1];
      if (next === undefined) return undefined;
      out += next;
      i++;
    } else if ('*?[{'.includes(c)) return undefined;
    else out += c;
  }
  return out;
}

function checkName(name: string): void {
  if (!NAME.test(name)) throw new RuleSyntaxError(`"${name}" is not a tool name or a resource kind (${RULE_KINDS.join(', ')}).`);
}
