import { describe, expect, it } from 'vitest';
import Type from 'typebox';
import { createTestHost } from '@airlock/kernel/testing';
import { defineTool, type AccessCheck, type ExtensionAPI } from '@airlock/contract';
import extension, { OptionsSchema, type Settings } from '../src/index.js';
import Value from 'typebox/value';
import { machine } from './fixture.js';

type Lists = { [E in 'deny' | 'ask' | 'allow']?: Settings['permissions'][number]['rule'][] };

/**
 * Set the extension up on a real kernel with the given rules, handed as the host hands them (one
 * list of entries, here all from the command line); returns the kernel.
 */
async function load(lists: Lists, cwd: string) {
  const { kernel, services } = createTestHost({ cwd });
  const permissions = (['deny', 'ask', 'allow'] as const).flatMap((effect) => (lists[effect] ?? []).map((rule) => ({ effect, rule, layer: 'cli' })));
  const api = {
    on: kernel.on.bind(kernel),
    registerAccessCheck: (check: AccessCheck, o?: { name?: string }) => void services.access.add(o?.name ?? 'path-policy', check),
    settings: Object.freeze({ permissions }),
    cwd,
  } as unknown as ExtensionAPI<Settings>;
  const options = Value.Default(OptionsSchema, {}) as never;
  await extension.setup(api, options);
  return kernel;
}

describe('path-policy as an extension', () => {
  it('votes deny with the reason and the rule id on a real kernel', async () => {
    const m = machine();
    const kernel = await load({ deny: [{ match: 'echo', id: 'no-echo', reason: 'echo is off' }] }, m.root);
    kernel.registry.register(defineTool({ name: 'echo', label: 'Echo', description: 'e', parameters: Type.Object({}), execute: async () => ({ content: [] }) }), { source: 'sdk' });
    const { messages } = await kernel.executeBatch([{ id: '1', name: 'echo', arguments: {} }]);
    expect(messages[0]!.outcome).toBe('denied');
    expect(JSON.stringify(messages[0]!.content)).toContain('echo is off');
    expect(JSON.stringify(messages[0]!.content)).toContain('no-echo');
  });

  it('a malformed rule is a load error naming the rule, its list and the problem', async () => {
    const m = machine();
    await expect(load({ ask: ['read', 'bash(git push'] }, m.root)).rejects.toThrow(/The rule "bash\(git push" in permissions\.ask\[1\] \(cli\) is malformed: "\(" is never closed/);
    await expect(load({ deny: [{ match: 'read', effect: 'allow' }] }, m.root)).rejects.toThrow(/sits in the deny list/);
    await expect(load({ allow: ['*'] }, m.root)).rejects.toThrow(/bare "\*" in allow/);
    await expect(load({ deny: ['fs.read'] }, m.root)).rejects.toThrow(/needs a pattern/);
    await expect(load({ deny: ['net()'] }, m.root)).rejects.toThrow(/pattern in "\(\)" is empty/);
  });

  it('a failing inline example is a load error naming the rule and the example', async () => {
    const m = machine();
    const rule = { match: 'bash(git push --force*)', id: 'no-force', examples: { match: ['bash(git push --force origin)'], notMatch: ['bash(git push --force-with-lease)'] } };
    await expect(load({ deny: [rule] }, m.root)).rejects.toThrow(/no-force.*should not match its example "bash\(git push --force-with-lease\)"/);
    const good = { match: 'fs.read(~/.ssh/**)', examples: { match: ['read(~/.ssh/id_rsa)', 'fs.read(~/.ssh/config)'], notMatch: ['read(/etc/passwd)'] } };
    await expect(load({ deny: [good] }, m.root)).resolves.toBeDefined();
  });

  it('gives extensions no way to add allow rules: only settings feed the rules', () => {
    const keys = Object.keys(extension).sort();
    expect(keys).toEqual(['name', 'options', 'settings', 'setup']);
  });
});
