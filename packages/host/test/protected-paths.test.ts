import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openHost, protectedPaths, type Host } from '../src/index.js';

const made: string[] = [];
const hosts: Host[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function machine() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'airlock-host-protect-')));
  made.push(base);
  const home = join(base, 'home');
  const project = join(home, 'work', 'app');
  mkdirSync(join(project, 'ext'), { recursive: true });
  const env = { HOME: home, XDG_CONFIG_HOME: join(base, 'cfg'), XDG_STATE_HOME: join(base, 'state') };
  return { base, home, project, env };
}

describe('protected paths: the one list of Airlock-owned files', () => {
  it('names the config, state and spill folders, a moved audit log, and the settings in every folder discovery reads', async () => {
    const m = machine();
    const key = `__airlockProtected_${Date.now()}`;
    writeFileSync(join(m.project, 'ext', 'package.json'), JSON.stringify({ name: 'probe', version: '1.0.0', airlock: { extension: './index.ts', kernel: '^1.0.0' } }));
    writeFileSync(join(m.project, 'ext', 'index.ts'), `export default { name: 'probe', setup(api: any) { (globalThis as any)[${JSON.stringify(key)}] = api.protectedPaths; } };\n`);
    writeFileSync(
      join(m.project, '.airlockrc.json'),
      JSON.stringify({ limits: { spillDir: '../spill' }, extensions: ['./ext', { name: '@airlock/audit-log', options: { path: 'logs/audit.jsonl' } }] }),
    );
    const { hostPackageDir } = await import('../src/index.js');
    const host = await openHost({ cwd: join(m.project), interactive: false, env: m.env, homeDir: m.home, trust: true });
    hosts.push(host);
    const p = host.protectedPaths;
    expect(p.locations.map((l) => [l.kind, l.path])).toEqual([
      ['folder', join(m.base, 'cfg', 'airlock')],
      ['folder', join(m.base, 'state', 'airlock')],
      ['folder', join(m.home, 'work', 'spill')],
      ['prefix', join(m.project, 'logs', 'audit.')],
      ['folder', join(m.project, 'ext')],
      ['folder', hostPackageDir()],
      ['folder', join(hostPackageDir(), '..', '..', 'extensions', 'tools')],
      ['folder', join(hostPackageDir(), '..', '..', 'extensions', 'policy')],
      ['folder', join(hostPackageDir(), '..', '..', 'extensions', 'lib')],
    ]);
    // Discovery reads the project folder and each folder above it up to (not including) home.
    expect(p.settingsFolders).toEqual([m.project, join(m.home, 'work')]);
    expect(p.settingsTrees).toEqual([m.project]);
    expect(p.settingsNames).toEqual(expect.arrayContaining(['.airlockrc*', 'airlock.config.*', '.airlock/**', 'airlock-lock.json', 'node_modules/@airlock/audit-log/**']));
    // The default set loads whatever settings list (they add to it), so its packages are guarded too.
    expect(p.settingsNames).toContain('node_modules/@airlock/path-policy/**');
    // Extensions get exactly this list, and cannot change it.
    const seen = (globalThis as Record<string, unknown>)[key] as typeof p;
    expect(seen).toBe(p);
    expect(Object.isFrozen(seen) && Object.isFrozen(seen.locations)).toBe(true);
    delete (globalThis as Record<string, unknown>)[key];
  });

  it('an explicit --settings file is protected too; a relative XDG folder is ignored as the spec says', () => {
    const p = protectedPaths({ cwd: '/p', homeDir: '/home/u', env: { XDG_STATE_HOME: 'rel' }, settingsFile: 'conf/a.json', spillRoot: '/tmp/s', extensions: [], extensionsListed: false, installDirs: ['/opt/airlock', '/p/vendor/airlock'] });
    expect(p.locations).toContainEqual(expect.objectContaining({ path: '/p/conf/a.json', kind: 'file' }));
    expect(p.locations).toContainEqual(expect.objectContaining({ path: '/home/u/.local/state/airlock', kind: 'folder' }));
    expect(p.locations).toContainEqual(expect.objectContaining({ path: '/home/u/.config/airlock', kind: 'folder' }));
    // Airlock's installation, unless it is inside the project (working on Airlock itself).
    expect(p.locations).toContainEqual(expect.objectContaining({ path: '/opt/airlock', kind: 'folder' }));
    expect(p.locations.map((l) => l.path)).not.toContain('/p/vendor/airlock');
    // No extensions listed: the default set loads, and a package of the same name would shadow it.
    expect(p.settingsNames).toContain('node_modules/@airlock/path-policy/**');
  });
});
