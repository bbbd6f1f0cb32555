import type { Resource } from '@airlock/kernel';
import type { Policy, PolicyCall } from './policy.js';
import { COMMAND_TOOLS } from './rules/compile.js';
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
 * A call in surface form, as examples write it: `bash(git push --force origin)`, `read(.env)`,
 * `fs.read(~/.ssh/id_rsa)`, `net(api.example.com)`, or a bare tool name.
 *
 * @example exampleCall('read(/etc/passwd)') // { tool: 'read', args: { path: '/etc/passwd' }, resources: [] }
 */
export function exampleCall(text: string): PolicyCall {
  const trimmed = text.trim();
  const open = trimmed.indexOf('(');
  if (open === -1 || !trimmed.endsWith(')')) return { tool: trimmed, args: {}, resources: [] };
  const name = trimmed.slice(0, open).trim();
  const arg = trimmed.slice(open + 1, -1);
  const resource = (r: Resource): PolicyCall => ({ tool: '(example)', args: {}, resources: [r] });
  if (name === 'fs.read' || name === 'fs.write') return resource({ kind: name, path: arg });
  if (name === 'exec') return resource({ kind: 'exec', command: arg });
  if (name === 'net') return resource({ kind: 'net', host: arg });
  if (COMMAND_TOOLS.includes(name)) return { tool: name, args: { command: arg }, resources: [{ kind: 'exec', command: arg }] };
  return { tool: name, args: { path: arg }, resources: [] };
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
