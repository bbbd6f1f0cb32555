import { describe, expect, it } from 'vitest';
import { homedir } from 'node:os';
import { join } from 'node:path';
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

// The rules a reason offers (issue 28: a read outside the project offered `fs.read(///**)`, the
// whole file system, before the exact rule). For every resource kind with a default that asks:
// narrowest first, each one quoted rule that really allows the call, and never one far wider
// than the call (`/`, a top-level folder, the home folder itself).
describe('the allow rules a reason suggests', () => {
  const touch = defineTool({
    name: 'touch',
    label: 'Touch',
    description: 't',
    parameters: Type.Object({ kind: Type.String(), target: Type.String() }),
    resources: (p) => [p.kind === 'net' ? { kind: 'net', host: p.target } : { kind: p.kind as 'fs.read' | 'fs.write', path: p.target }],
    execute: async () => ({ content: [{ type: 'text', text: 'ran' }] }),
  });
  async function outcome(allow: string[], kind: string, target: string, cwd: string) {
    const kernel = await load({ allow }, cwd);
    kernel.registry.register(touch, { source: 'sdk' });
    const m = await kernel.executeToolCall({ id: '1', name: 'touch', arguments: { kind, target } });
    return { outcome: m.outcome, text: m.content.map((c) => (c.type === 'text' ? c.text : '')).join('') };
  }
  const suggested = (text: string) => [...text.matchAll(/"((?:fs\.read|fs\.write|net)\([^"]*\))" \(([^)]*)\)/g)].map((x) => ({ rule: x[1]!, covers: x[2]! }));

  for (const kind of ['fs.read', 'fs.write'] as const) {
    it(`${kind} outside the roots: this file first, then its folder; each allows what it says`, async () => {
      const m = machine();
      const file = join(m.outside, 'deep', 'data.txt');
      const first = await outcome([], kind, file, m.root);
      expect(first.outcome).toBe('denied');
      const offered = suggested(first.text);
      expect(offered.map((o) => o.covers)).toEqual(['this file', 'its folder']);
      expect(offered[0]!.rule).toBe(`${kind}(/${file})`);
      // The exact rule allows this file and nothing beside it; the folder rule allows a sibling.
      expect((await outcome([offered[0]!.rule], kind, file, m.root)).outcome).toBe('ok');
      expect((await outcome([offered[0]!.rule], kind, join(m.outside, 'deep', 'other.txt'), m.root)).outcome).toBe('denied');
      expect((await outcome([offered[1]!.rule], kind, join(m.outside, 'deep', 'other.txt'), m.root)).outcome).toBe('ok');
    });
  }

  it('a file at the root, in a top-level folder or right in the home folder: only the exact rule (never "fs.read(///**)")', async () => {
    const m = machine();
    for (const file of ['/data.txt', '/etc/hosts.allow', join(homedir(), 'notes.txt')]) {
      const r = await outcome([], 'fs.read', file, m.root);
      expect(r.outcome).toBe('denied');
      expect(suggested(r.text).map((o) => o.covers), r.text).toEqual(['this file']);
      expect(r.text).not.toContain('/**)');
    }
  });

  it('a glob character in the path is escaped: the offered rule means exactly that file', async () => {
    const m = machine();
    const file = join(m.outside, 'a*b', 'x[1].txt');
    const offered = suggested((await outcome([], 'fs.read', file, m.root)).text);
    expect((await outcome([offered[0]!.rule], 'fs.read', file, m.root)).outcome).toBe('ok');
    expect((await outcome([offered[0]!.rule], 'fs.read', join(m.outside, 'aXb', 'x[1].txt'), m.root)).outcome).toBe('denied');
  });

  it('net: exactly the host, which allows it', async () => {
    const m = machine();
    const r = await outcome([], 'net', 'api.example.com', m.root);
    expect(r.outcome).toBe('denied');
    expect(suggested(r.text)).toEqual([{ rule: 'net(api.example.com)', covers: 'this host' }]);
    expect((await outcome(['net(api.example.com)'], 'net', 'api.example.com', m.root)).outcome).toBe('ok');
  });
});
