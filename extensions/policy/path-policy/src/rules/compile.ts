import { closestNames } from '@airlock/toolkit/util';
import { isRuleKind, parseRule, RULE_KINDS, RuleSyntaxError, specDialect } from '@airlock/rules';
import { commandGlob, GlobError, hostGlob, looseToolGlob, pathGlob, toolGlob, type GlobOrigin } from '../glob.js';
import type { CompiledRule, Matcher, PathAnchor, PathPattern, RuleEntry } from './types.js';

/** A rule that cannot be used; the message names the rule, its list and what is wrong. */
export class RuleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RuleError';
  }
}

/** Folders a path pattern may be anchored to; each as written and as its real path. */
export interface Anchors {
  roots: readonly string[];
  home: readonly string[];
}

/**
 * Compile settings rules into matchers, once. Throws a RuleError for the first rule that is
 * malformed (a policy that silently skips a rule it cannot read would fail open).
 *
 * @example compileRules([{ effect: 'deny', rule: 'fs.read(**\/.env)' }], anchors)[0].matcher.type // 'fs'
 */
export function compileRules(entries: readonly RuleEntry[], anchors: Anchors): CompiledRule[] {
  const seen = new Map<string, number>();
  return entries.map((entry) => {
    const n = seen.get(entry.effect) ?? 0;
    seen.set(entry.effect, n + 1);
    const from = ruleOrigin(entry);
    const where = `permissions.${entry.effect}[${n}]${from}`;
    return compileRule(entry, anchors, where);
  });
}

function compileRule(entry: RuleEntry, anchors: Anchors, where: string): CompiledRule {
  const raw = entry.rule;
  const object = typeof raw === 'object' && raw !== null ? raw : undefined;
  const surface = typeof raw === 'string' ? raw : object?.match;
  const fail = (what: string): never => {
    throw new RuleError(`The rule ${JSON.stringify(surface ?? raw)} in ${where} ${what}`);
  };
  if (typeof surface !== 'string' || surface.trim() === '') fail('has no surface form: give a string such as "fs.read(**/.env)" or an object with "match".');
  if (object?.effect !== undefined && object.effect !== entry.effect) {
    fail(`says effect "${object.effect}" but sits in the ${entry.effect} list; move it to permissions.${object.effect} or drop "effect".`);
  }
  let matcher: Matcher;
  try {
    matcher = parseSurface(surface!.trim(), entry.effect, anchors);
  } catch (error) {
    if (error instanceof GlobError || error instanceof RuleError || error instanceof RuleSyntaxError) fail(`is malformed: ${error.message}`);
    throw error;
  }
  return {
    effect: entry.effect,
    id: object?.id ?? surface!.trim(),
    surface: surface!.trim(),
    matcher: matcher!,
    ...(object?.reason === undefined ? {} : { reason: object.reason }),
    ...(entry.layer === undefined ? {} : { layer: entry.layer }),
    ...(entry.file === undefined ? {} : { file: entry.file }),
    ...(entry.package === undefined ? {} : { package: entry.package }),
    examples: { match: [...(object?.examples?.match ?? [])], notMatch: [...(object?.examples?.notMatch ?? [])] },
    where,
  };
}

/**
 * `name` or `name(spec)`: a tool, a tool glob, a tool with an argument pattern, or a resource
 * kind with a pattern.
 */
export function parseSurface(text: string, effect: RuleEntry['effect'], anchors: Anchors): Matcher {
  const { name, spec } = parseRule(text);
  const kind = isRuleKind(name) ? name : undefined;
  // No tool name holds a "." (the kernel refuses one), so a dotted name can only be a resource
  // kind, misspelt: as a tool glob it would match nothing, and a deny would guard nothing.
  if (kind === undefined && name.includes('.')) {
    const near = closestNames(name, RULE_KINDS);
    throw new RuleError(
      `"${name}" is not a resource kind${near.length > 0 ? `. Did you mean "${near[0]}"?` : ''} The kinds are fs.read, fs.write, exec and net; tool names never contain a ".".`,
    );
  }
  if (kind !== undefined) {
    if (spec === undefined) throw new RuleError(`a resource kind needs a pattern, e.g. "${name}(${kind === 'net' ? '*.example.com' : kind === 'exec' ? 'git push *' : '**/.env'})".`);
    if (kind === 'exec') return { type: 'exec', command: commandGlob(spec), spec };
    if (kind === 'net') return { type: 'net', host: hostGlob(spec.trim()), spec };
    return { type: 'fs', kind, path: pathPattern(spec, effect, anchors) };
  }
  if (effect === 'allow' && spec === undefined && /^\*+$/.test(name)) {
    throw new RuleError('a bare "*" in allow would allow every tool, including ones added later; name the tools, or a namespace such as "mcp:github/*".');
  }
  const tool = toolGlob(name);
  const loose = looseToolGlob(name);
  if (spec === undefined) return { type: 'tool', text: name, tool, loose };
  if (specDialect(name) === 'command') return { type: 'tool-command', text: name, tool, loose, command: commandGlob(spec), spec };
  return { type: 'tool-path', text: name, tool, loose, path: pathPattern(spec, effect, anchors) };
}

/**
 * A path pattern and where it is anchored:
 * - `//x` — the absolute path /x;
 * - `~/x` — under the home folder;
 * - `/x`, `./x`, and `a/b` (a slash inside) — under each workspace root; in a deny or ask list
 *   `/x` also matches the absolute /x, so a rule that reads like an absolute path still protects it;
 * - `**\/x` and names without a slash (`.env`, `*.pem`) — anywhere.
 */
export function pathPattern(spec: string, effect: RuleEntry['effect'], anchors: Anchors, origin: GlobOrigin = 'outside'): PathPattern {
  const text = spec.trim().normalize('NFC');
  if (text.includes('\0')) throw new RuleError('the pattern contains a NUL byte.');
  let anchor: PathAnchor;
  let globs: string[];
  const under = (dirs: readonly string[], rest: string) => dirs.map((d) => `${escapeDir(d)}/${rest}`);
  if (text.startsWith('//')) {
    anchor = 'absolute';
    globs = [`/${text.replace(/^\/+/, '')}`];
  } else if (text === '~' || text.startsWith('~/')) {
    anchor = 'home';
    globs = text === '~' ? anchors.home.map(escapeDir) : under(anchors.home, text.slice(2));
  } else if (text.startsWith('/')) {
    anchor = 'roots';
    globs = under(anchors.roots, text.slice(1));
    if (effect !== 'allow') globs.push(text);
  } else if (text.startsWith('**/') || !text.includes('/')) {
    anchor = 'anywhere';
    globs = [text.startsWith('**/') ? `/${text}` : `/**/${text}`];
  } else {
    anchor = 'roots';
    globs = under(anchors.roots, text.startsWith('./') ? text.slice(2) : text);
  }
  globs = [...new Set(globs.map((g) => g.replace(/\/+$/, '') || '/'))];
  // The anchors are escaped (escapeDir): only the spec's own wildcards count for its origin.
  return { text, anchor, globs, exact: globs.map((g) => pathGlob(g, false, origin)), folded: globs.map((g) => pathGlob(g, true, origin)) };
}

/** A folder used as a literal prefix of a glob: its glob characters escaped. */
export function escapeDir(dir: string): string {
  return dir.normalize('NFC').replace(/[*?[\]{}\\,]/g, '\\$&').replace(/\/+$/, '');
}

/**
 * Where a rule was written, for messages: ` (user: /home/u/.config/airlock/settings.json)`, or for
 * a package's rule ` (from acme-policy 1.0.0, named by user: /home/…/settings.json)`.
 */
export function ruleOrigin(entry: Pick<RuleEntry, 'layer' | 'file' | 'package'>): string {
  const where = entry.file ? `${entry.layer ?? 'settings'}: ${entry.file}` : (entry.layer ?? '');
  if (entry.package !== undefined) return ` (from ${entry.package.name} ${entry.package.version}${where ? `, named by ${where}` : ''})`;
  return where ? ` (${where})` : '';
}
