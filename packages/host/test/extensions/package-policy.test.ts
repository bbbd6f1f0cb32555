import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { openHost, readManifest, type Host } from '../../src/index.js';

/**
 * A package's manifest may carry rules (`airlock.rules`) and settings defaults
 * (`airlock.settings`). They apply with the trust of the settings layer that names the package:
 * the user's settings apply all of it; an untrusted project keeps only its deny and ask rules.
 * A broken set blocks every tool. Real files in a home and a project of the test's own.
 */

const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

type Airlock = { rules?: unknown; settings?: unknown };

/** A package `acme-policy` with an empty entry module and what `airlock` carries, in `nodeModules`. */
function writePack(nodeModules: string, carries: Airlock, name = 'acme-policy'): string {
  const dir = join(nodeModules, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '2.1.0', type: 'module', airlock: { extension: './index.mjs', kernel: '^1.0.0', ...carries } }));
  writeFileSync(join(dir, 'index.mjs'), `export default { name: '${name}', setup() {} };\n`);
  return dir;
}

function world(o: { user?: object; project?: object; userPack?: Airlock; projectPack?: Airlock }) {
  const root = makeTempDir('airlock-pack-policy-');
  const home = join(root, 'home');
  const project = join(root, 'project');
  const outside = join(root, 'outside');
  const config = join(home, '.config', 'airlock');
  for (const d of [config, project, outside]) mkdirSync(d, { recursive: true });
  writeFileSync(join(project, '.env'), 'TOKEN=1\n');
  writeFileSync(join(project, 'notes.txt'), 'notes\n');
  const userFile = join(config, 'settings.json');
  if (o.user !== undefined) writeFileSync(userFile, JSON.stringify(o.user));
  if (o.project !== undefined) writeFileSync(join(project, '.airlockrc.json'), JSON.stringify(o.project));
  const userPack = o.userPack === undefined ? undefined : writePack(join(config, 'extensions', 'node_modules'), o.userPack);
  if (o.projectPack !== undefined) writePack(join(project, 'node_modules'), o.projectPack);
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(root, 'state'), PATH: process.env.PATH ?? '/usr/bin:/bin' };
  const open = async (trust?: boolean) => {
    const host = await openHost({ cwd: project, interactive: false, env, homeDir: home, ...(trust === undefined ? {} : { trust }) });
    hosts.push(host);
    return host;
  };
  return { root, project, outside, userFile, userPack, open };
}

let n = 0;
const call = (host: Host, name: string, args: Record<string, unknown>) => host.execute({ id: `p${++n}`, name, arguments: args });

/** Rules a security team would ship: a deny on a notes file, an ask on a folder, an allow for writing outside the project. */
function teamRules(outside: string) {
  return {
    deny: [{ id: 'no-notes', match: 'fs.read(**/notes.txt)', reason: 'notes are private' }],
    ask: ['bash(git push *)'],
    // `//` anchors the pattern at the file system's root (a single `/` is the workspace's).
    allow: [{ id: 'outside-ok', match: `fs.write(/${outside}/**)` }],
  };
}

describe('airlock.rules and airlock.settings in a manifest', () => {
  it('are checked by the settings schema: a rule of the wrong shape, a key a package may not set, each named as the manifest writes it', () => {
    const root = makeTempDir('airlock-pack-manifest-');
    const bad = writePack(root, { rules: { deny: ['fs.read(.env)', { match: '' }], allow: 'read' }, settings: { trust: { default: 'always' }, limits: { maxLines: 'many' } } }, 'bad-pack');
    const m = readManifest(bad, { extension: 'bad-pack', layer: 'user' });
    expect(m.ok).toBe(false);
    if (m.ok) return;
    const text = m.diagnostic.message;
    expect(text).toContain('"airlock.settings.trust" may not be set by a package');
    expect(m.policy).toBe(true);
    // The schema's own checks, once the forbidden key is out.
    const typo = readManifest(writePack(root, { rules: { deny: [{ match: '' }], alow: [] }, settings: { limits: { maxLines: 'many' } } }, 'typo-pack'), { extension: 'typo-pack', layer: 'user' });
    expect(typo.ok).toBe(false);
    if (typo.ok) return;
    expect(typo.diagnostic.message).toMatch(/"airlock\.rules\.deny\[0\]\.match"/);
    expect(typo.diagnostic.message).toMatch(/"airlock\.rules\.alow".*Did you mean "allow"/);
    expect(typo.diagnostic.message).toMatch(/"airlock\.settings\.limits\.maxLines"/);
    expect(typo.diagnostic.fix).toContain('"airlock.rules"');

    const good = readManifest(writePack(root, { rules: { deny: ['fs.read(**/.env)'] }, settings: { limits: { maxLines: 50 }, telemetry: { note: '{{package}}/x' } } }, 'good-pack'), { extension: 'good-pack', layer: 'user' });
    expect(good.ok).toBe(true);
    if (!good.ok) return;
    expect(good.carries?.rules).toEqual({ deny: ['fs.read(**/.env)'] });
    // {{package}} is the folder the package is installed in.
    expect(good.carries?.settings?.telemetry).toEqual({ note: `${join(root, 'good-pack')}/x` });
  });

  it('named by the user settings: every rule applies (deny, ask and allow) and the settings are defaults under the user\'s own', async () => {
    const outside = makeTempDir('airlock-pack-out-');
    const w = world({ user: { extensions: ['acme-policy'], limits: { maxBytes: 9000 } }, userPack: { rules: teamRules(outside), settings: { limits: { maxLines: 7, maxBytes: 1234 } } } });
    const host = await w.open();
    expect(host.blocked).toBeUndefined();
    expect(host.extensions.extensions.find((e) => e.packageName === 'acme-policy')).toMatchObject({ status: 'loaded', layer: 'user', version: '2.1.0' });

    const denied = await call(host, 'read', { path: 'notes.txt' });
    expect(denied.outcome).toBe('denied');
    expect(JSON.stringify(denied.content)).toContain('notes are private');
    // Without the package's allow, a write outside the workspace asks, and with nobody to ask it is denied.
    const written = await call(host, 'write', { path: join(outside, 'out.txt'), content: 'x' });
    expect(written.outcome, JSON.stringify(written.content)).toBe('ok');
    expect(readFileSync(join(outside, 'out.txt'), 'utf8')).toBe('x');

    // Settings: the package's default, except where the user's own file sets the key.
    expect(host.settings.settings.limits.maxLines).toBe(7);
    expect(host.settings.settings.limits.maxBytes).toBe(9000);
    const fromPack = host.settings.permissions.filter((p) => p.package !== undefined);
    expect(fromPack.map((p) => p.effect).sort()).toEqual(['allow', 'ask', 'deny']);
    expect(fromPack[0]).toMatchObject({ layer: 'user', file: w.userFile, package: { name: 'acme-policy', version: '2.1.0', dir: w.userPack } });
  }, scaledMs(30_000));

  it('named by an untrusted project: its deny and ask rules hold, its allow rules and settings are dropped with a diagnostic saying what to do', async () => {
    const w = world({ project: { extensions: ['acme-policy'] } });
    writePack(join(w.project, 'node_modules'), { rules: teamRules(w.outside), settings: { limits: { maxLines: 7 } } });
    const host = await w.open(false);
    expect(host.blocked).toBeUndefined();
    // The package's code is not loaded (an untrusted project's), but its restrictions are.
    expect(host.extensions.extensions.find((e) => e.packageName === 'acme-policy')?.status).toBe('skipped');
    const denied = await call(host, 'read', { path: 'notes.txt' });
    expect(denied.outcome).toBe('denied');
    expect(JSON.stringify(denied.content)).toContain('notes are private');
    const written = await call(host, 'write', { path: join(w.outside, 'out.txt'), content: 'x' });
    expect(written.outcome).toBe('denied');

    expect(host.settings.settings.limits.maxLines).not.toBe(7);
    expect(host.settings.permissions.filter((p) => p.package !== undefined).map((p) => p.effect).sort()).toEqual(['ask', 'deny']);
    const said = host.diagnostics.find((d) => d.code === 'AIRLOCK_PACKAGE_POLICY_UNTRUSTED');
    expect(said?.message).toContain('1 allow rule and its settings (limits) of package acme-policy 2.1.0');
    expect(said?.message).toContain('Its deny and ask rules apply');
    expect(said?.fix).toContain('airlock trust');
    expect(said?.fix).toContain('airlock extensions add --user acme-policy');

    // Trusted, the same project's package applies in full.
    const trusted = await w.open(true);
    expect(trusted.settings.settings.limits.maxLines).toBe(7);
    expect((await call(trusted, 'write', { path: join(w.outside, 'out.txt'), content: 'y' })).outcome).toBe('ok');
  }, scaledMs(30_000));

  it('fails closed: a package named by the user, or by an untrusted project, whose rules are invalid blocks every tool and names the package and the fix', async () => {
    const broken = { rules: { deny: [{ match: 'fs.read(x)', effect: 'allow' }] } };
    const mine = world({ user: { extensions: ['acme-policy'] }, userPack: broken });
    const host = await mine.open();
    expect(host.blocked?.extension).toBe('acme-policy');
    expect(host.blocked?.message).toContain('"acme-policy"');
    expect(host.diagnostics.find((d) => d.code === 'AIRLOCK_EXTENSION_MANIFEST_INVALID')?.message).toContain('"airlock.rules.deny[0].effect"');
    expect(host.blocked?.fix).toContain('package.json');
    expect((await call(host, 'read', { path: 'README.md' })).outcome).toBe('denied');

    const theirs = world({ project: { extensions: ['acme-policy'] }, projectPack: broken });
    const blocked = await theirs.open(false);
    expect(blocked.blocked?.extension).toBe('acme-policy');
    expect((await call(blocked, 'read', { path: 'notes.txt' })).outcome).toBe('denied');
  }, scaledMs(30_000));
});
