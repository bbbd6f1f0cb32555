import type { Resource } from '@airlock/contract';
import type { Policy, PolicyCall } from './policy.js';
import { parseRule, specDialect, type RuleSurface } from '@airlock/rules';
import type { CompiledRule } from './rules/types.js';

/** An inline example that did not come out as its rule says. */
export interface ExampleFailure {
  rule: string;
  where: string;
  example: string;
  expected: 'match' | 'notMatch';
  /** What went wrong, without the fix (setup reports the fix apart). */
  problem: string;
  /** `problem` and the fix, for `airlock policy test`. */
  message: string;
}

/**
 * How the built-in file tools declare their file, for examples written as `read(x)`: an example
 * stands for the call the tool would make, `written` included. Judging never looks at tool names;
 * an example naming another tool is a call with a `path` argument and no resources (the fallback
 * every undeclared path gets).
 */
const EXAMPLE_FILE_KINDS: Readonly<Record<string, 'fs.read' | 'fs.write'>> = { read: 'fs.read', grep: 'fs.read', find: 'fs.read', ls: 'fs.read', write: 'fs.write', edit: 'fs.write' };

/**
 * A call in surface form, as examples write it: `bash(git push --force origin)`, `read(.env)`,
 * `fs.read(~/.ssh/id_rsa)`, `net(api.example.com)`, or a bare tool name. The text between the
 * parentheses is the call's value itself, not a pattern.
 *
 * @example exampleCall('read(/etc/passwd)') // { tool: 'read', args: { path: '/etc/passwd' }, resources: [{ kind: 'fs.read', path: '/etc/passwd', written: '/etc/passwd' }] }
 */
export function exampleCall(text: string): PolicyCall {
  let surface: RuleSurface;
  try {
    surface = parseRule(text);
  } catch {
    return { tool: text.trim(), args: {}, resources: [] };
  }
  const { name, spec: arg } = surface;
  if (arg === undefined) return { tool: name, args: {}, resources: [] };
  const resource = (r: Resource): PolicyCall => ({ tool: '(example)', args: {}, resources: [r] });
  if (name === 'fs.read' || name === 'fs.write') return resource({ kind: name, path: arg });
  if (name === 'exec') return resource({ kind: 'exec', command: arg });
  if (name === 'net') return resource({ kind: 'net', host: arg });
  if (specDialect(name) === 'command') return { tool: name, args: { command: arg }, resources: [{ kind: 'exec', command: arg }] };
  const kind = EXAMPLE_FILE_KINDS[name];
  return { tool: name, args: { path: arg }, resources: kind === undefined ? [] : [{ kind, path: arg, written: arg }] };
}

/**
 * Run every rule's inline examples against the compiled policy: each `match` must be matched by
 * that rule and each `notMatch` must not be. Returns the failures (empty = all good).
 */
export async function checkExamples(policy: Policy): Promise<ExampleFailure[]> {
  const failures: ExampleFailure[] = [];
  for (const rule of policy.rules) {
    for (const [list, expected] of [
      [rule.examples.match, 'match'],
      [rule.examples.notMatch, 'notMatch'],
    ] as const) {
      for (const example of list) {
        const hit = await matches(policy, rule, example);
        if (hit === (expected === 'match')) continue;
        const problem =
          `The rule ${JSON.stringify(rule.surface)}${rule.id !== rule.surface ? ` (id ${rule.id})` : ''} in ${rule.where} ` +
          `${expected === 'match' ? 'should match' : 'should not match'} its example ${JSON.stringify(example)}, but it ` +
          `${hit ? 'does' : 'does not'}.`;
        failures.push({ rule: rule.id, where: rule.where, example, expected, problem, message: `${problem} Fix the pattern or the example.` });
      }
    }
  }
  return failures;
}

async function matches(policy: Policy, rule: CompiledRule, example: string): Promise<boolean> {
  const decision = await policy.decide(exampleCall(example));
  return decision.matched.some((m) => m.rule === rule.id && m.surface === rule.surface && m.effect === rule.effect);
}
