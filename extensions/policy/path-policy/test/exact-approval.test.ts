import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { machine, policyFor, type Machine } from './fixture.js';

/** A bash call as the bash tool declares it. */
function bash(m: Machine, command: string) {
  return { tool: 'bash', args: { command }, resources: [{ kind: 'exec' as const, command }], cwd: m.root };
}

describe('an allow rule for exactly one command line (what "always allow" saves)', () => {
  it('answers the default asks of that call: the file outside the workspace it writes', async () => {
    const m = machine();
    const command = `cp README.md ${join(m.outside, 'copy (1).md')}`;
    expect((await policyFor(m).decide(bash(m, command))).effect).toBe('ask');
    const saved = `bash(cp README.md ${join(m.outside, 'copy \\(1\\).md')})`;
    const decision = await policyFor(m, [{ effect: 'allow', rule: saved }]).decide(bash(m, command));
    expect(decision.effect).toBe('allow');
    expect(decision.reason).toContain('allowed exactly as written');
  });

  it('only that line: another command, or the same one with more on it, still asks', async () => {
    const m = machine();
    const rules = [{ effect: 'allow' as const, rule: `bash(cp README.md ${join(m.outside, 'a.md')})` }];
    expect((await policyFor(m, rules).decide(bash(m, `cp README.md ${join(m.outside, 'b.md')}`))).effect).toBe('ask');
    expect((await policyFor(m, rules).decide(bash(m, `cp README.md ${join(m.outside, 'a.md')}; cp README.md ${join(m.outside, 'b.md')}`))).effect).toBe('ask');
  });

  it('a wildcard is not an exact approval: bash(cp *) does not lift the defaults', async () => {
    const m = machine();
    const decision = await policyFor(m, [{ effect: 'allow', rule: 'bash(cp *)' }]).decide(bash(m, `cp README.md ${join(m.outside, 'a.md')}`));
    expect(decision.effect).toBe('ask');
  });

  it('never outweighs an explicit ask or deny, nor a default deny (reading a secret)', async () => {
    const m = machine();
    const line = `cp ${join(m.home, '.ssh/id_rsa')} ${join(m.outside, 'k')}`;
    expect((await policyFor(m, [{ effect: 'allow', rule: `bash(${line})` }]).decide(bash(m, line))).effect).toBe('deny');
    const push = 'git push origin main';
    const explicit = await policyFor(m, [
      { effect: 'allow', rule: `bash(${push})` },
      { effect: 'ask', rule: 'bash(git push *)' },
    ]).decide(bash(m, push));
    expect(explicit.effect).toBe('ask');
    expect(explicit.rule).toBe('bash(git push *)');
  });
});
