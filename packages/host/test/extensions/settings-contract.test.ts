import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createKernel } from '@airlock/kernel';
import { loadSettings, type ExtensionEntry as SettingsEntry } from '../../src/settings/index.js';
import { loadExtensions, type ExtensionToLoad } from '../../src/extensions/index.js';
import { dirsIn, testHost, removeTempDirs, tempDir, toolPackage, toolSource, writePackage } from './fixtures.js';

afterAll(removeTempDirs);

// The settings code's entries must stay assignable to what the loader takes.
const assignable: (e: SettingsEntry) => ExtensionToLoad = (e) => e;

/**
 * Real settings files, read by the real settings code, loaded by the loader: the hand-off the
 * CLI makes (`loadSettings(...).extensions` → `loadExtensions({ entries })`).
 */
function world() {
  const root = tempDir('airlock-contract-');
  const home = join(root, 'home');
  const userDir = join(home, '.config', 'airlock');
  const project = join(root, 'repo');
  mkdirSync(userDir, { recursive: true });
  mkdirSync(join(project, 'packages', 'app'), { recursive: true });
  // The repository root: discovery walks up from packages/app to here and no further.
  mkdirSync(join(project, '.git'));
  const key = `__airlockContract_${Math.random().toString(36).slice(2)}`;
  writePackage(join(root, 'user-ext'), {
    name: 'user-ext',
    files: {
      'src/index.ts': `import Type from 'typebox';
export default { name: 'user-ext', options: Type.Object({ who: Type.String({ default: 'default' }) }),
  setup(_api: unknown, o: { who: string }) { (globalThis as any)[${JSON.stringify(key)}] = o.who; } };
`,
    },
  });
  writeFileSync(join(userDir, 'settings.json'), JSON.stringify({ extensions: [{ path: join(root, 'user-ext'), options: { who: 'user' } }] }));
  // The project's object form names a path without "./"; it also tries to reconfigure the user's extension.
  toolPackage(join(project, 'tools', 'hello'), 'hello', 'hello');
  writeFileSync(
    join(project, '.airlockrc.json'),
    JSON.stringify({
      extensions: [{ path: 'tools/hello' }, { path: join(root, 'user-ext'), options: { who: 'project' } }, { name: 'off-ext', enabled: false }],
    }),
  );
  const settings = () => loadSettings({ cwd: join(project, 'packages', 'app'), homeDir: home, env: {} });
  const load = async (trusted: boolean) => {
    const s = await settings();
    const result = await loadExtensions({
      entries: s.extensionsListed ? s.extensions.map(assignable) : undefined,
      ...testHost(project),
      trust: { trusted, projectDir: s.projectDir ?? project },
      dirs: dirsIn(root),
      settings: s,
    });
    return { result, who: (globalThis as any)[key] as string | undefined };
  };
  return { project, load };
}

describe('settings → loader', () => {
  it('loads a trusted project: paths from its settings file, options as the project set them, disabled entries left out', async () => {
    const { project, load } = world();
    const { result, who } = await load(true);
    expect(result.diagnostics).toEqual([]);
    expect(result.extensions.map((e) => [e.name, e.layer, e.status])).toEqual([
      ['user-ext', 'project', 'loaded'],
      ['hello', 'project', 'loaded'],
      ['off-ext', 'project', 'disabled'],
    ]);
    expect(result.loaded[1]!.source.dir).toBe(join(project, 'tools', 'hello'));
    expect(who).toBe('project');
  });

  it("keeps the user's entry and options when the project is untrusted", async () => {
    const { load } = world();
    const { result, who } = await load(false);
    expect(result.diagnostics.map((d) => [d.code, d.extension])).toEqual([
      ['AIRLOCK_EXTENSION_UNTRUSTED', expect.stringContaining('user-ext')],
      ['AIRLOCK_EXTENSION_UNTRUSTED', 'tools/hello'],
      ['AIRLOCK_EXTENSION_UNTRUSTED', 'off-ext'],
    ]);
    expect(result.diagnostics[0]!.message).toContain('Your own entry for it');
    expect(result.extensions.map((e) => [e.layer, e.status])).toEqual([
      ['project', 'skipped'],
      ['user', 'loaded'],
      ['project', 'skipped'],
      ['project', 'skipped'],
    ]);
    expect(who).toBe('user');
  });

  it('gives no "unexpected options" warning for the {} settings hand over when none are written', async () => {
    const root = tempDir('airlock-contract-');
    writePackage(join(root, 'plain'), { name: 'plain', files: { 'src/index.ts': toolSource('plain', 'plain') } });
    writeFileSync(join(root, '.airlockrc.json'), JSON.stringify({ extensions: ['./plain'] }));
    const s = await loadSettings({ cwd: root, homeDir: join(root, 'home'), env: {} });
    const result = await loadExtensions({ entries: s.extensions, ...testHost(root), trust: { trusted: true }, dirs: dirsIn(root), cwd: root });
    expect(result.diagnostics).toEqual([]);
    expect(result.loaded.map((e) => e.name)).toEqual(['plain']);
  });
});
