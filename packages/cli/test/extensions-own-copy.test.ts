import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { scaledMs } from '@airlock/kernel/testing';
import { machine } from './add-machine.js';
import { declarationsOf, describeDeclarations, diffDeclarations } from '../src/extensions/declarations.js';

/**
 * Where `extensions add` takes packages from, what it pins, and `remove`: Airlock's own packages
 * come from the CLI's copy with the registry unreachable; a package depending on `@airlock/*`
 * gets them linked to that copy, never fetched; what was added is pinned beside the settings,
 * and a package changed under its pin does not load until added again.
 */

vi.setConfig({ testTimeout: scaledMs(120_000) });

/** Nothing listens on port 9 (discard): any request to this registry fails at once. */
const UNREACHABLE = 'http://127.0.0.1:9/';

interface Listed {
  extensions: { name: string; status: string; layer: string; source?: { foundIn: string } }[];
  diagnostics: { code: string; message: string }[];
}

describe('Airlock\'s own packages, from the CLI\'s copy', () => {
  it('adds command-hooks and mcp-tools to a project with the registry unreachable, and both load', async () => {
    const m = machine({ registry: UNREACHABLE });
    expect((await m.airlock(['trust'])).code).toBe(0);
    for (const name of ['@airlock/command-hooks', '@airlock/mcp-tools']) {
      const r = await m.airlock(['extensions', 'add', name]);
      expect(r.code, r.err).toBe(0);
      expect(r.out).toContain(`Added ${name} 1.0.0 from Airlock's own copy (nothing was downloaded)`);
      // What it declares is shown before it is added.
      expect(r.err).toContain(`${name} 1.0.0 declares:`);
    }
    expect(JSON.parse(readFileSync(join(m.project, '.airlockrc.json'), 'utf8'))).toEqual({ extensions: ['@airlock/command-hooks', '@airlock/mcp-tools'] });
    // Nothing was installed into the project.
    expect(existsSync(join(m.project, 'node_modules'))).toBe(false);
    expect(JSON.parse(readFileSync(join(m.project, 'airlock-lock.json'), 'utf8'))).toEqual({
      lockfileVersion: 1,
      packages: { '@airlock/command-hooks': { version: '1.0.0', source: 'airlock' }, '@airlock/mcp-tools': { version: '1.0.0', source: 'airlock' } },
    });
    const listed = JSON.parse((await m.airlock(['--json', 'extensions'])).out) as Listed;
    for (const name of ['command-hooks', 'mcp-tools']) expect(listed.extensions.find((e) => e.name === name)).toMatchObject({ status: 'loaded', layer: 'project', source: { foundIn: 'builtin' } });
    // A hook configured through command-hooks runs: the package is in force, not only listed.
    writeFileSync(
      join(m.project, '.airlockrc.json'),
      JSON.stringify({
        extensions: [{ name: '@airlock/command-hooks', options: { hooks: { PreToolUse: [{ matcher: '.*', hooks: [{ type: 'command', command: 'echo "no reading today" >&2; exit 2' }] }] } } }, '@airlock/mcp-tools'],
      }),
    );
    writeFileSync(join(m.project, 'notes.txt'), 'hello\n');
    const call = await m.airlock(['call', 'read', '{"path":"notes.txt"}']);
    expect(call.code).not.toBe(0);
    expect(call.out + call.err).toContain('no reading today');
  });

  it('adds one for the user, with no project involved', async () => {
    const m = machine({ registry: UNREACHABLE });
    const r = await m.airlock(['extensions', 'add', '--user', '@airlock/command-hooks']);
    expect(r.code, r.err).toBe(0);
    const config = join(m.home, '.config', 'airlock');
    expect(JSON.parse(readFileSync(join(config, 'settings.json'), 'utf8'))).toEqual({ extensions: ['@airlock/command-hooks'] });
    expect(JSON.parse(readFileSync(join(config, 'airlock-lock.json'), 'utf8')).packages).toEqual({ '@airlock/command-hooks': { version: '1.0.0', source: 'airlock' } });
    const listed = JSON.parse((await m.airlock(['--no-trust', '--json', 'extensions'])).out) as Listed;
    expect(listed.extensions.find((e) => e.name === 'command-hooks')).toMatchObject({ status: 'loaded', layer: 'user' });
  });

  it('refuses a name under @airlock it does not carry, or a version it does not have, naming what it has', async () => {
    const m = machine({ registry: UNREACHABLE });
    expect((await m.airlock(['trust'])).code).toBe(0);
    const unknown = await m.airlock(['extensions', 'add', '@airlock/comand-hooks']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("@airlock/comand-hooks is not one of Airlock's own packages");
    expect(unknown.err).toContain('@airlock/command-hooks');
    // Extensions only: a library is not something to add.
    expect(unknown.err).not.toContain('@airlock/kernel');
    expect(unknown.err).toContain('@airlock:registry');
    const version = await m.airlock(['extensions', 'add', '@airlock/command-hooks@^9']);
    expect(version.code).toBe(2);
    expect(version.err).toContain('This CLI carries @airlock/command-hooks 1.0.0, which is not ^9');
    expect(existsSync(join(m.project, '.airlockrc.json'))).toBe(false);
    expect(existsSync(join(m.project, 'airlock-lock.json'))).toBe(false);
  });
});

describe('a package that depends on @airlock packages', () => {
  const dependOnKernel = (m: ReturnType<typeof machine>) => {
    const pkg = JSON.parse(readFileSync(join(m.ext, 'package.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(m.ext, 'package.json'), JSON.stringify({ ...pkg, dependencies: { '@airlock/toolkit': '^1.0.0' } }));
    execFileSync('npm', ['pack', '--pack-destination', m.base], { cwd: m.ext, env: { ...process.env, npm_config_cache: join(m.home, '.npm') }, stdio: 'ignore' });
    return join(m.base, 'airlock-shout-0.2.0.tgz');
  };

  it('is refused for a project, whose package manager would fetch them from a registry; nothing changes', async () => {
    const m = machine({ registry: UNREACHABLE });
    const tarball = dependOnKernel(m);
    expect((await m.airlock(['trust'])).code).toBe(0);
    const before = m.snapshot();
    const r = await m.airlock(['extensions', 'add', tarball]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('depends on @airlock/toolkit');
    expect(r.err).toContain('--user');
    expect(m.snapshot()).toEqual(before);
  });

  it('installs for the user with them linked to the CLI\'s copy (the registry is never asked), and its tool runs', async () => {
    const m = machine({ registry: UNREACHABLE });
    const tarball = dependOnKernel(m);
    const r = await m.airlock(['extensions', 'add', '--user', tarball]);
    expect(r.code, r.err).toBe(0);
    const linked = join(m.home, '.config', 'airlock', 'extensions', 'node_modules', '@airlock', 'toolkit');
    expect(lstatSync(linked).isSymbolicLink()).toBe(true);
    expect(realpathSync(linked)).toBe(realpathSync(join(__dirname, '../../toolkit')));
    const call = await m.airlock(['--no-trust', 'call', 'shout', '{"text":"linked"}']);
    expect(call.out).toContain('LINKED!');
  });
});

describe('the pin in airlock-lock.json', () => {
  it('records what was added, and a package changed under it does not load until added again', async () => {
    const m = machine();
    execFileSync('npm', ['pack', '--pack-destination', m.base], { cwd: m.ext, env: { ...process.env, npm_config_cache: join(m.home, '.npm') }, stdio: 'ignore' });
    expect((await m.airlock(['trust'])).code).toBe(0);
    const tarball = join(m.base, 'airlock-shout-0.2.0.tgz');
    expect((await m.airlock(['extensions', 'add', tarball])).code).toBe(0);
    const pin = (JSON.parse(readFileSync(join(m.project, 'airlock-lock.json'), 'utf8')) as { packages: Record<string, Record<string, string>> }).packages['airlock-shout']!;
    expect(pin).toMatchObject({ version: '0.2.0', source: 'tarball' });
    expect(pin.integrity).toMatch(/^sha512-/);
    expect(pin.files).toMatch(/^sha512-/);

    // Someone edits the installed code in place: same version, other behaviour.
    const installed = join(m.project, 'node_modules/airlock-shout/src/index.js');
    writeFileSync(installed, readFileSync(installed, 'utf8').replace("'!'", "'?!'"));
    const call = await m.airlock(['call', 'shout', '{"text":"hi"}']);
    expect(call.code).not.toBe(0);
    expect(call.out).not.toContain('HI?!');
    // Its manifest says it brings only tools: the refused pin costs shout, and a built-in still runs.
    const builtIn = await m.airlock(['call', 'ls', '{}']);
    expect(builtIn.code, builtIn.err).toBe(0);
    expect(builtIn.err).toContain('airlock-shout');
    const listed = JSON.parse((await m.airlock(['--json', 'extensions'])).out) as Listed;
    const changed = listed.diagnostics.find((d) => d.code === 'AIRLOCK_EXTENSION_CHANGED');
    expect(changed?.message).toContain('its files changed under the same version (0.2.0)');
    expect(changed?.message).toContain('airlock extensions add airlock-shout');

    // Adding it again installs what was checked again, over the edited copy.
    expect((await m.airlock(['extensions', 'add', tarball])).code).toBe(0);
    const again = await m.airlock(['call', 'shout', '{"text":"hi"}']);
    expect(again.out).toContain('HI!');
  });

  it('a lock file that is not a lock refuses every package of its settings, until a package is added again', async () => {
    const m = machine();
    expect((await m.airlock(['trust'])).code).toBe(0);
    expect((await m.airlock(['extensions', 'add', m.ext])).code).toBe(0);
    writeFileSync(join(m.project, 'airlock-lock.json'), '{ "packages": ');
    const listed = JSON.parse((await m.airlock(['--json', 'extensions'])).out) as Listed;
    expect(listed.extensions.find((e) => e.layer === 'project')?.status).toBe('failed');
    expect(listed.diagnostics.find((d) => d.code === 'AIRLOCK_EXTENSION_CHANGED')?.message).toContain('the lock file cannot be read');
    expect((await m.airlock(['call', 'shout', '{"text":"hi"}'])).code).not.toBe(0);
    // Adding again writes a lock that holds only what was just checked.
    expect((await m.airlock(['extensions', 'add', m.ext])).code).toBe(0);
    expect(JSON.parse(readFileSync(join(m.project, 'airlock-lock.json'), 'utf8'))).toEqual({ lockfileVersion: 1, packages: { 'airlock-shout': { version: '0.2.0', source: 'folder' } } });
    expect((await m.airlock(['call', 'shout', '{"text":"hi"}'])).out).toContain('HI!');
  });
});

describe('airlock extensions remove', () => {
  it('takes the package out of the settings, the lock and node_modules; its tool is gone', async () => {
    const m = machine();
    execFileSync('npm', ['pack', '--pack-destination', m.base], { cwd: m.ext, env: { ...process.env, npm_config_cache: join(m.home, '.npm') }, stdio: 'ignore' });
    expect((await m.airlock(['trust'])).code).toBe(0);
    expect((await m.airlock(['extensions', 'add', join(m.base, 'airlock-shout-0.2.0.tgz')])).code).toBe(0);
    const r = await m.airlock(['extensions', 'remove', 'airlock-shout']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('Removed airlock-shout from');
    expect(r.out).toContain('it no longer loads');
    expect(JSON.parse(readFileSync(join(m.project, '.airlockrc.json'), 'utf8'))).toEqual({ extensions: [] });
    expect(JSON.parse(readFileSync(join(m.project, 'airlock-lock.json'), 'utf8')).packages).toEqual({});
    expect(existsSync(join(m.project, 'node_modules/airlock-shout'))).toBe(false);
    expect(JSON.parse(readFileSync(join(m.project, 'package.json'), 'utf8')).dependencies ?? {}).toEqual({});
    const call = await m.airlock(['call', 'shout', '{"text":"hi"}']);
    expect(call.code).not.toBe(0);
  });

  it('of a name nothing added says where it looked, and changes nothing', async () => {
    const m = machine();
    const r = await m.airlock(['extensions', 'remove', '--user', 'airlock-nothing']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('airlock-nothing is not added to the user settings');
    expect(existsSync(join(m.home, '.config', 'airlock', 'settings.json'))).toBe(false);
  });
});

describe('what a package declares', () => {
  it('changes between releases are listed one by one, and nothing when nothing changed', () => {
    const m = machine();
    const before = declarationsOf(m.ext);
    expect(before).toMatchObject({ name: 'airlock-shout', tools: ['shout'], hooks: [], installScripts: [] });
    expect(diffDeclarations(before, before)).toEqual([]);
    const pkg = JSON.parse(readFileSync(join(m.ext, 'package.json'), 'utf8')) as { airlock: Record<string, unknown> };
    writeFileSync(
      join(m.ext, 'package.json'),
      JSON.stringify({ ...pkg, version: '0.3.0', scripts: { postinstall: 'node x.js' }, airlock: { ...pkg.airlock, provides: { tools: ['shout', 'whisper'], hooks: ['tool_call:authorize'] }, uses: ['network'], rules: { deny: ['bash(rm *)', { match: 'read(~/.ssh/**)', id: 'no-keys' }] } } }),
    );
    const after = declarationsOf(m.ext);
    expect(diffDeclarations(before, after)).toEqual(['+ tool whisper', '+ policy phase tool_call:authorize', '+ rule deny bash(rm *)', '+ rule deny no-keys: read(~/.ssh/**)', '+ uses network', '+ install script postinstall']);
    expect(describeDeclarations(after)).toContain('  rules it carries:       deny bash(rm *), deny no-keys: read(~/.ssh/**)');
  });
});
