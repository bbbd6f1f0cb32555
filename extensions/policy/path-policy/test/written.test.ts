import { describe, expect, it } from 'vitest';
import type { Resource } from '@airlock/contract';
import { machine, policyFor, toolResources, type Machine } from './fixture.js';
import type { RuleEntry } from '../src/index.js';

const deny = (rule: string): RuleEntry => ({ effect: 'deny', rule });
const allow = (rule: string): RuleEntry => ({ effect: 'allow', rule });

/**
 * Paths as a model writes them, each with a rule that only the written spelling (or only the
 * target) meets: a link's own name, a relative link, a link to a folder, `~`, a `..` hop.
 */
const CASES: { path: string; rules: RuleEntry[] }[] = [
  { path: 'link-in', rules: [deny('fs.read(/link-in)')] },
  { path: 'innocent.txt', rules: [] }, // → .env: the secret default on the target
  { path: 'rel-env', rules: [] },
  { path: 'keys/config', rules: [] }, // a folder link into ~/.ssh
  { path: 'link-out', rules: [allow('fs.read(/link-out)')] }, // allowed by name, the outside target still asks
  { path: '~/notes.txt', rules: [deny('fs.read(~/notes.txt)')] },
  { path: 'src/../link-in', rules: [deny('fs.read(/link-in)')] },
  { path: 'README.md', rules: [] },
];

function decide(m: Machine, tool: string, path: string, rules: RuleEntry[], resources: Resource[], cwd = m.root) {
  return policyFor(m, rules).decide({ tool, args: { path }, resources, cwd });
}

describe('a third-party tool that declares `written` gets the built-ins\' treatment', () => {
  it.each(CASES)('$path: same effect and rule as the read tool', async ({ path, rules }) => {
    const m = machine();
    const resources = toolResources('read', path, m);
    const builtin = await decide(m, 'read', path, rules, resources);
    // Another name, and the path in an argument policy has never heard of: only the resource counts.
    const third = await policyFor(m, rules).decide({ tool: 'acme:open', args: { target: path }, resources, cwd: m.root });
    expect({ effect: third.effect, rule: third.rule }).toEqual({ effect: builtin.effect, rule: builtin.rule });
  });

  it('the link it names is judged: a deny on the link name holds although the resolved path is harmless', async () => {
    const m = machine();
    const real = { kind: 'fs.read' as const, path: (toolResources('read', 'link-in', m)[0] as { path: string }).path };
    const rules = [deny('fs.read(/link-in)')];
    const withWritten = await policyFor(m, rules).decide({ tool: 'acme:open', args: {}, resources: [{ ...real, written: 'link-in' }], cwd: m.root });
    expect(withWritten).toMatchObject({ effect: 'deny', rule: 'fs.read(/link-in)' });
    expect(withWritten.resources).toContainEqual(expect.objectContaining({ kind: 'fs.read', path: 'link-in', from: 'written' }));
    // The resolved file alone (src/a.ts) meets no rule.
    expect((await policyFor(m, rules).decide({ tool: 'acme:open', args: {}, resources: [real], cwd: m.root })).effect).toBe('allow');
  });

  it('a write declared with `written` is judged as a write under both names', async () => {
    const m = machine();
    const resources = toolResources('write', 'link-in', m);
    expect(resources).toEqual([expect.objectContaining({ kind: 'fs.write', written: 'link-in' })]);
    const d = await policyFor(m, [deny('fs.write(/link-in)')]).decide({ tool: 'acme:save', args: {}, resources, cwd: m.root });
    expect(d).toMatchObject({ effect: 'deny', rule: 'fs.write(/link-in)' });
  });

  it('a built-in name earns nothing by itself: a "read" tool that declares no file is not judged as reading its path', async () => {
    const m = machine();
    // The fallback applies (Tool(path) rules only): an fs.read rule does not see an undeclared path.
    const d = await policyFor(m, [deny('fs.read(/link-in)')]).decide({ tool: 'read', args: { path: 'link-in' }, resources: [], cwd: m.root });
    expect(d.effect).toBe('allow');
    expect((await policyFor(m, [deny('read(/link-in)')]).decide({ tool: 'read', args: { path: 'link-in' }, resources: [], cwd: m.root })).effect).toBe('deny');
  });
});

describe('the fallback for a tool that declares no `written`', () => {
  it('its string `path` argument is judged by Tool(path) rules, under every spelling', async () => {
    const m = machine();
    const rules = [deny('acme:open(/src/**)')];
    // Named through a link: the target, src/a.ts, is what the rule covers.
    const d = await policyFor(m, rules).decide({ tool: 'acme:open', args: { path: 'link-in' }, resources: [], cwd: m.root });
    expect(d).toMatchObject({ effect: 'deny', rule: 'acme:open(/src/**)' });
  });

  it('an argument that cannot be resolved is a deny that says why', async () => {
    const m = machine();
    const d = await policyFor(m).decide({ tool: 'acme:open', args: { path: 'loop-a' }, resources: [], cwd: m.root });
    expect(d).toMatchObject({ effect: 'deny', rule: 'default:unresolvable-path' });
  });

  it('a tool that declares `written` is not judged on its argument a second time', async () => {
    const m = machine();
    const d = await policyFor(m, [deny('acme:open(/README.md)')]).decide({
      tool: 'acme:open',
      args: { path: 'README.md' },
      resources: [{ kind: 'fs.read', path: `${m.root}/src/a.ts`, written: 'src/a.ts' }],
      cwd: m.root,
    });
    expect(d.effect).toBe('allow');
  });
});
