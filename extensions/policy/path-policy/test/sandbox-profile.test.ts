import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { literalPrefix } from '../src/index.js';
import { machine, policyFor } from './fixture.js';

describe("the sandbox profile: path-policy's compiled rules, once more for the OS sandbox", () => {
  it('writable = the roots; hidden = the literal places of secret defaults and fs.read deny rules that exist; read-only = protected places', () => {
    const m = machine();
    const config = join(m.home, '.config', 'airlock');
    const policy = policyFor(m, [{ effect: 'deny', rule: `fs.read(/${m.outside}/**)` }], {
      protectedPaths: { locations: [{ path: m.outside, kind: 'folder', what: 'x' }, { path: config, kind: 'folder', what: 'missing' }], settingsNames: ['.airlockrc*'], settingsFolders: [m.root], settingsTrees: [m.root] },
    });
    const p = policy.sandboxProfile();
    expect(p.writable).toEqual([m.root]);
    expect(p.hidden).toEqual(expect.arrayContaining([join(m.home, '.ssh'), join(m.home, '.aws', 'credentials'), join(m.home, '.npmrc'), join(m.home, '.kube', 'config'), m.outside]));
    // Not a secret, and a pattern that matches anywhere is left to the walk (classify).
    expect(p.hidden).not.toContain(join(m.home, '.bashrc'));
    expect(p.hidden.some((h) => h.endsWith('.pem'))).toBe(false);
    // The protected folder that does not exist is not mounted; the home's shell start-up file
    // is executable config (the same list path-policy judges writes by), so it is read-only.
    expect(p.readOnly).toEqual([m.outside, join(m.home, '.bashrc')]);
  });

  it("read-only also holds the executable-config set: a git folder's config and hooks (not the rest of it), editor folders, the hooks folder core.hooksPath names", () => {
    const m = machine();
    execFileSync('git', ['init', '-q', m.root]);
    execFileSync('git', ['-C', m.root, 'config', 'core.hooksPath', '.githooks']);
    for (const d of ['.vscode', '.githooks']) mkdirSync(join(m.root, d));
    const p = policyFor(m, []).sandboxProfile();
    expect(p.readOnly).toEqual(expect.arrayContaining([join(m.root, '.git', 'config'), join(m.root, '.git', 'hooks'), join(m.root, '.vscode'), join(m.root, '.githooks')]));
    expect(p.readOnly).not.toContain(join(m.root, '.git'));
    expect(p.writable).toEqual([m.root]);
  });

  it('classify gives the per-file verdict: secrets hidden (links too), settings files guarded, the host\'s own places read-only, the rest untouched', () => {
    const m = machine();
    const logs = join(m.root, 'logs');
    const policy = policyFor(m, [{ effect: 'deny', rule: 'fs.read(/src/private/**)' }], {
      protectedPaths: { locations: [{ path: join(logs, 'audit.jsonl'), kind: 'prefix', what: 'the audit log' }], settingsNames: ['.airlockrc*'], settingsFolders: [m.root], settingsTrees: [m.root] },
    });
    const p = policy.sandboxProfile();
    expect(p.classify(join(m.root, '.env'))).toBe('hidden');
    expect(p.classify(join(m.root, 'src', 'server.pem'))).toBe('hidden');
    expect(p.classify(join(m.root, 'src', 'private', 'a.txt'))).toBe('hidden');
    expect(p.classify(join(m.root, '.env.example'))).toBeUndefined();
    // A settings file only a person creates: if a command creates one, the sandbox takes it back.
    expect(p.classify(join(m.root, '.airlockrc.json'))).toBe('guarded');
    // A log the host writes while commands run: read-only, never taken back.
    expect(p.classify(join(logs, 'audit.jsonl.1'))).toBe('read-only');
    expect(p.classify(join(m.root, 'src', 'a.ts'))).toBeUndefined();
  });

  it('secretRead "allow" in defaults leaves the secret places visible (one source of truth: the policy says so)', () => {
    const m = machine();
    const p = policyFor(m, [], { defaultEffect: { secretRead: 'allow' } }).sandboxProfile();
    expect(p.hidden).toEqual([]);
    expect(p.classify(join(m.root, '.env'))).toBeUndefined();
  });

  it('the hosts the sandbox lets through are the ones the net rules allow: wildcards too, and an ask or deny rule inside one wins', () => {
    const m = machine();
    const p = policyFor(m, [
      { effect: 'allow', rule: 'net(registry.npmjs.org)' },
      { effect: 'allow', rule: 'net(*.example.com)' },
      { effect: 'ask', rule: 'net(admin.example.com)' },
      { effect: 'deny', rule: 'net(evil.example.com)' },
    ]).sandboxProfile();
    expect(p.allowedHosts).toEqual(['registry.npmjs.org', '*.example.com']);
    expect(p.allowsHost!('registry.npmjs.org')).toBe(true);
    expect(p.allowsHost!('api.example.com')).toBe(true);
    expect(p.allowsHost!('admin.example.com')).toBe(false);
    expect(p.allowsHost!('evil.example.com')).toBe(false);
    expect(p.allowsHost!('example.org')).toBe(false);
    // The default decides hosts no rule covers: "allow" opens them (shown as *), "ask" does not.
    const open = policyFor(m, [{ effect: 'deny', rule: 'net(evil.test)' }], { defaultEffect: { net: 'allow' } }).sandboxProfile();
    expect(open.allowedHosts).toEqual(['*']);
    expect(open.allowsHost!('anything.test')).toBe(true);
    expect(open.allowsHost!('evil.test')).toBe(false);
  });

  it('literalPrefix keeps whole folders before the first glob character', () => {
    expect(literalPrefix('/home/u/.ssh/**')).toBe('/home/u/.ssh');
    expect(literalPrefix('/home/u/.aws/credentials')).toBe('/home/u/.aws/credentials');
    expect(literalPrefix('/w/a*.pem')).toBe('/w');
    expect(literalPrefix('/**/.env')).toBeUndefined();
    expect(literalPrefix('/w/odd\\*name/x')).toBe('/w/odd*name/x');
  });
});
