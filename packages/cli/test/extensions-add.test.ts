import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { machine, SHOUT } from './add-machine.js';
import { detectPackageManager, packageManagerArgs } from '../src/extensions/package-manager.js';

/**
 * `airlock extensions add` with real npm, real folders and tarballs (no registry): an untrusted
 * project and a refused kernel range change nothing; an accepted package is installed, named in
 * the settings, and its tool runs.
 */

// npm installs and a host that loads the default set per call (several seconds each on 2 cores).
vi.setConfig({ testTimeout: scaledMs(120_000) });

describe('airlock extensions add', () => {
  it('in an untrusted project says to trust it first, and installs nothing', async () => {
    const m = machine();
    const before = m.snapshot();
    const r = await m.airlock(['extensions', 'add', m.ext]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('is not trusted');
    expect(r.err).toContain('nothing was installed');
    expect(r.err).toContain('airlock trust');
    expect(m.snapshot()).toEqual(before);
  });

  it('refuses a package whose kernel range this kernel does not satisfy, and changes nothing', async () => {
    const m = machine({ kernel: '^9.0.0' });
    expect((await m.airlock(['trust'])).code).toBe(0);
    writeFileSync(join(m.project, '.airlockrc.json'), '{ "permissions": { "deny": ["bash(rm *)"] } }\n');
    const before = m.snapshot();
    const r = await m.airlock(['extensions', 'add', m.ext]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('^9.0.0');
    expect(r.err).toContain('Nothing was changed');
    expect(m.snapshot()).toEqual(before);
  });

  it('installs a folder with npm (no lockfile), adds it to the existing settings, and its tool runs', async () => {
    const m = machine();
    expect((await m.airlock(['trust'])).code).toBe(0);
    writeFileSync(join(m.project, '.airlockrc.json'), '{ "permissions": { "deny": ["bash(rm *)"] } }\n');
    const r = await m.airlock(['extensions', 'add', '../airlock-shout']);
    expect(r.err).toContain('with npm (no lockfile found)');
    expect(r.code).toBe(0);
    expect(r.out).toContain('Added airlock-shout 0.2.0');
    expect(JSON.parse(readFileSync(join(m.project, '.airlockrc.json'), 'utf8'))).toEqual({ permissions: { deny: ['bash(rm *)'] }, extensions: ['airlock-shout'] });
    expect(JSON.parse(readFileSync(join(m.project, 'package.json'), 'utf8')).dependencies).toEqual({ 'airlock-shout': 'file:../airlock-shout' });
    const call = await m.airlock(['call', 'shout', '{"text":"hi"}']);
    expect(call.out).toContain('HI!');
    expect(call.code).toBe(0);
    // Adding it again leaves the settings as they are.
    const again = await m.airlock(['extensions', 'add', m.ext]);
    expect(again.code).toBe(0);
    expect(again.out).toContain('already lists it');
    expect(JSON.parse(readFileSync(join(m.project, '.airlockrc.json'), 'utf8')).extensions).toEqual(['airlock-shout']);
  });

  it('installs a tarball made by npm pack, making .airlockrc.json when the project has no settings', async () => {
    const m = machine();
    execFileSync('npm', ['pack', '--pack-destination', m.base], { cwd: m.ext, env: { ...process.env, npm_config_cache: join(m.home, '.npm') }, stdio: 'ignore' });
    expect((await m.airlock(['trust'])).code).toBe(0);
    const r = await m.airlock(['extensions', 'add', join(m.base, 'airlock-shout-0.2.0.tgz')]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('(new)');
    expect(JSON.parse(readFileSync(join(m.project, '.airlockrc.json'), 'utf8'))).toEqual({ extensions: ['airlock-shout'] });
    expect(readFileSync(join(m.project, 'node_modules/airlock-shout/src/index.js'), 'utf8')).toBe(SHOUT);
    const info = await m.airlock(['extensions', 'info', 'airlock-shout']);
    expect(info.out).toContain('airlock-shout 0.2.0 (tool)');
    expect(info.out).toMatch(/status:\s+loaded, named by the project settings/);
    const call = await m.airlock(['call', 'shout', '{"text":"packed"}']);
    expect(call.out).toContain('PACKED!');
  });

  it("refuses a project whose package.json holds settings (an airlock field) before installing anything, saying to move them", async () => {
    const m = machine();
    expect((await m.airlock(['trust'])).code).toBe(0);
    writeFileSync(join(m.project, 'package.json'), JSON.stringify({ name: 'project', version: '1.0.0', private: true, airlock: { permissions: { deny: ['bash(rm *)'] } } }));
    const before = m.snapshot();
    const r = await m.airlock(['extensions', 'add', m.ext]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('package.json');
    expect(r.err).toContain('.airlockrc.json');
    expect(m.snapshot()).toEqual(before);
  });

  it('refuses a settings file it cannot rewrite (code) before installing anything', async () => {
    const m = machine();
    expect((await m.airlock(['trust'])).code).toBe(0);
    writeFileSync(join(m.project, 'airlock.config.ts'), 'export default { extensions: [] };\n');
    const before = m.snapshot();
    const r = await m.airlock(['extensions', 'add', m.ext]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('are code, which airlock does not rewrite');
    expect(r.err).toContain('Nothing was installed');
    expect(m.snapshot()).toEqual(before);
  });

  it('refuses a package without an airlock manifest, and changes nothing', async () => {
    const m = machine();
    expect((await m.airlock(['trust'])).code).toBe(0);
    writeFileSync(join(m.ext, 'package.json'), JSON.stringify({ name: 'airlock-shout', version: '0.2.0' }));
    const before = m.snapshot();
    const r = await m.airlock(['extensions', 'add', m.ext]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('is not an Airlock extension');
    expect(m.snapshot()).toEqual(before);
  });
});

describe('airlock extensions add --user', () => {
  it("installs into the user's extension folder and the user settings: the tool runs in a project nobody trusted", async () => {
    const m = machine();
    const r = await m.airlock(['extensions', 'add', '--user', m.ext]);
    expect(r.code, r.err).toBe(0);
    const userSettings = join(m.home, '.config', 'airlock', 'settings.json');
    expect(r.out).toContain(`Added airlock-shout 0.2.0 to the user settings ${userSettings} (new)`);
    expect(JSON.parse(readFileSync(userSettings, 'utf8'))).toEqual({ extensions: ['airlock-shout'] });
    expect(existsSync(join(m.home, '.config', 'airlock', 'extensions', 'node_modules', 'airlock-shout', 'package.json'))).toBe(true);
    // Nothing in the project: no settings file, no install.
    expect(existsSync(join(m.project, '.airlockrc.json'))).toBe(false);
    expect(existsSync(join(m.project, 'node_modules'))).toBe(false);
    const call = await m.airlock(['--no-trust', 'call', 'shout', '{"text":"everywhere"}']);
    expect(call.code, call.err).toBe(0);
    expect(call.out).toContain('EVERYWHERE!');
    const listed = JSON.parse((await m.airlock(['--no-trust', '--json', 'extensions'])).out) as { extensions: { name: string; layer: string; source?: { foundIn: string } }[] };
    expect(listed.extensions.find((e) => e.name === 'shout')).toMatchObject({ layer: 'user', source: { foundIn: 'user' } });
  });

  it('refuses a package this kernel cannot load, and leaves the user settings and folder as they were', async () => {
    const m = machine({ kernel: '^9.0.0' });
    const userSettings = join(m.home, '.config', 'airlock', 'settings.json');
    writeFileSync(userSettings, '{ "permissions": { "deny": ["bash(rm *)"] } }\n');
    const r = await m.airlock(['extensions', 'add', '--user', m.ext]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('^9.0.0');
    expect(readFileSync(userSettings, 'utf8')).toBe('{ "permissions": { "deny": ["bash(rm *)"] } }\n');
    expect(existsSync(join(m.home, '.config', 'airlock', 'extensions', 'node_modules'))).toBe(false);
  });
});

describe('the package manager of a project', () => {
  it('at the root of a pnpm workspace, installs with pnpm add -w (older pnpm refuses without it); the tool runs', async () => {
    const m = machine();
    writeFileSync(join(m.project, 'pnpm-workspace.yaml'), 'packages:\n  - "packages/*"\n');
    execFileSync('pnpm', ['install', '--offline'], { cwd: m.project, env: { ...process.env, HOME: m.home }, stdio: 'ignore' });
    expect(existsSync(join(m.project, 'pnpm-lock.yaml'))).toBe(true);
    expect(packageManagerArgs('pnpm', 'add', 'airlock-shout', m.project)).toEqual(['add', '-w', 'airlock-shout']);
    expect(packageManagerArgs('pnpm', 'add', 'airlock-shout', m.base)).toEqual(['add', 'airlock-shout']);
    expect((await m.airlock(['trust'])).code).toBe(0);
    const r = await m.airlock(['extensions', 'add', m.ext]);
    expect(r.err).toContain('with pnpm');
    expect(r.code).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(join(m.project, 'package.json'), 'utf8')).dependencies)).toEqual(['airlock-shout']);
    const call = await m.airlock(['call', 'shout', '{"text":"workspace"}']);
    expect(call.out).toContain('WORKSPACE!');
  });


  it('is read from the lockfile in its folder or the nearest above it; npm when there is none', () => {
    const base = makeTempDir('airlock-pm-');
    const sub = join(base, 'a', 'b');
    mkdirSync(sub, { recursive: true });
    expect(detectPackageManager(sub).manager).toBe('npm');
    for (const [file, manager] of [['package-lock.json', 'npm'], ['yarn.lock', 'yarn'], ['bun.lockb', 'bun'], ['pnpm-lock.yaml', 'pnpm']] as const) {
      writeFileSync(join(base, file), '');
      expect(detectPackageManager(sub)).toEqual({ manager, lockfile: join(base, file) });
    }
    writeFileSync(join(base, 'a', 'yarn.lock'), '');
    expect(detectPackageManager(sub).manager).toBe('yarn');
  });
});
