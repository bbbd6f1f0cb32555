import { existsSync, statSync } from 'node:fs';
import { chmod, chown, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findProjectSettings, projectSearchDirs, readSettingsFile, SEARCH_PLACES, SettingsError, settingsFileSafety } from '../../src/settings/index.js';
import { tree, write } from './fixtures/temp-tree.js';

/** Search from `cwd` with the tree's root as the home folder (so nothing above it is searched). */
function find(root: string, cwd: string) {
  return findProjectSettings(cwd, { homeDir: root, userConfigDir: join(root, '.config/airlock') });
}

async function failure(promise: Promise<unknown>): Promise<SettingsError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SettingsError);
  return error as SettingsError;
}

const CONTENT: Record<(typeof SEARCH_PLACES)[number], string | object> = {
  '.airlockrc': 'execution:\n  maxConcurrency: 1\n',
  '.airlockrc.json': { execution: { maxConcurrency: 2 } },
  '.airlockrc.yaml': 'execution:\n  maxConcurrency: 3\n',
  'airlock.config.ts': "import type { SettingsLayer } from '@airlock/host';\nconst n: number = 4;\nexport default { execution: { maxConcurrency: n } } satisfies SettingsLayer;\n",
  'airlock.config.js': 'export default { execution: { maxConcurrency: 5 } };\n',
  'airlock.config.mjs': 'export default { execution: { maxConcurrency: 6 } };\n',
};

describe('search places', () => {
  it.each(SEARCH_PLACES.map((place, i) => [place, i + 1] as const))('finds %s', async (place, n) => {
    const root = await tree({ [`repo/${place}`]: CONTENT[place] });
    const found = await find(root, join(root, 'repo'));
    expect(found).toMatchObject({ file: join(root, 'repo', place), dir: join(root, 'repo') });
    const values = found?.kind === 'data' ? found.values : (await readSettingsFile(found!.file, 'project')).values;
    expect(values).toEqual({ execution: { maxConcurrency: n } });
    expect(found?.kind).toBe(place.startsWith('airlock.config') ? 'code' : 'data');
  });

  it('takes the first place in order when a folder has several', async () => {
    const all = Object.fromEntries(SEARCH_PLACES.map((place) => [`repo/${place}`, CONTENT[place]]));
    const root = await tree({ ...all, 'repo/package.json': { name: 'repo' } });
    expect((await find(root, join(root, 'repo')))?.file).toBe(join(root, 'repo/.airlockrc'));
  });

  it("refuses settings in package.json's airlock field, naming the file and the move to make; a folder named like a settings file is passed over", async () => {
    const root = await tree({ 'repo/package.json': { name: 'repo', airlock: { permissions: { allow: ['bash(*)'] } } }, 'repo/.airlockrc.json': { permissions: { deny: ['fs.read(a.txt)'] } } });
    const error = await failure(find(root, join(root, 'repo')));
    expect(error).toMatchObject({ code: 'AIRLOCK_SETTINGS_IN_PACKAGE_JSON', file: join(root, 'repo/package.json') });
    expect(error.message).toContain('Move the field');
    expect(error.message).toContain('.airlockrc.json');
    // Also in a folder on the way up, and for an empty field: deny rules there are never dropped without a word.
    await write(root, { 'repo/package.json': { name: 'repo', airlock: {} }, 'repo/sub/x.txt': '' });
    expect((await failure(find(root, join(root, 'repo/sub')))).code).toBe('AIRLOCK_SETTINGS_IN_PACKAGE_JSON');
    await write(root, { 'repo/package.json': { name: 'repo' }, 'repo/sub/.airlockrc/x': '' });
    expect((await find(root, join(root, 'repo/sub')))?.file).toBe(join(root, 'repo/.airlockrc.json'));
  });

  it('takes the nearest folder that has settings', async () => {
    const root = await tree({ 'repo/.airlockrc.json': { tools: { none: true } }, 'repo/a/.airlockrc.yaml': 'tools: { noBuiltin: true }\n', 'repo/a/b/x.txt': '' });
    expect(await find(root, join(root, 'repo/a/b'))).toMatchObject({ file: join(root, 'repo/a/.airlockrc.yaml'), values: { tools: { noBuiltin: true } } });
  });

  it('counts an empty file as found, with empty settings (it stops the walk up)', async () => {
    const root = await tree({ 'repo/.airlockrc.json': { tools: { none: true } }, 'repo/pkg/.airlockrc.json': '' });
    expect(await find(root, join(root, 'repo/pkg'))).toMatchObject({ file: join(root, 'repo/pkg/.airlockrc.json'), values: {} });
  });
});

describe('walking up', () => {
  it('finds the repository root config from a nested subfolder that has its own package.json', async () => {
    const root = await tree({
      'repo/package.json': { name: 'repo', private: true },
      'repo/.airlockrc.json': { execution: { mode: 'sequential' } },
      'repo/packages/app/package.json': { name: 'app' },
      'repo/packages/app/src/index.ts': '',
    });
    const found = await find(root, join(root, 'repo/packages/app/src'));
    expect(found).toMatchObject({ file: join(root, 'repo/.airlockrc.json'), dir: join(root, 'repo'), values: { execution: { mode: 'sequential' } } });
  });

  it("passes over an extension package's manifest in package.json#airlock", async () => {
    const root = await tree({
      'repo/airlock.config.ts': 'export default { tools: { none: true } };\n',
      'repo/extensions/guard/package.json': { name: 'guard', airlock: { extension: './src/index.ts', kernel: '^1.0.0' } },
    });
    expect((await find(root, join(root, 'repo/extensions/guard')))?.file).toBe(join(root, 'repo/airlock.config.ts'));
  });

  it('stops at the home folder, and never treats the user config folder as a project', async () => {
    const root = await tree({ '.airlockrc.json': { tools: { none: true } }, '.config/airlock/.airlockrc.json': {}, '.config/airlock/extensions/x/y.txt': '' });
    expect(await find(root, join(root, 'repo'))).toBeUndefined();
    expect(await find(root, join(root, '.config/airlock/extensions/x'))).toBeUndefined();
    expect(projectSearchDirs('/h/u/repo/pkg', { homeDir: '/h/u', userConfigDir: '/h/u/.config/airlock' })).toEqual(['/h/u/repo/pkg', '/h/u/repo']);
    expect(projectSearchDirs('/h/u/.config/airlock/ext', { homeDir: '/h/u', userConfigDir: '/h/u/.config/airlock' })).toEqual(['/h/u/.config/airlock/ext', '/h/u/.config']);
    // Outside the home folder and outside any repository: only the folder itself.
    expect(projectSearchDirs('/srv/repo', { homeDir: '/h/u', userConfigDir: '/h/u/.config/airlock' })).toEqual(['/srv/repo']);
  });

  it('runs no code while finding: a TS config only runs when read', async () => {
    const root = await tree({
      'repo/airlock.config.ts': "import { writeFileSync } from 'node:fs';\nwriteFileSync(new URL('./ran.txt', import.meta.url), 'yes');\nexport default {};\n",
    });
    const found = await find(root, join(root, 'repo'));
    expect(found).toMatchObject({ kind: 'code', file: join(root, 'repo/airlock.config.ts') });
    expect(found?.values).toBeUndefined();
    expect(existsSync(join(root, 'repo/ran.txt'))).toBe(false);
    await readSettingsFile(found!.file, 'project');
    expect(existsSync(join(root, 'repo/ran.txt'))).toBe(true);
  });

  it('marks a data file that $imports a code file as code', async () => {
    const root = await tree({ 'repo/.airlockrc.json': { $import: './base.ts', tools: { none: true } }, 'repo/base.ts': 'export default { execution: { maxConcurrency: 3 } };\n' });
    const found = await find(root, join(root, 'repo'));
    expect(found?.kind).toBe('code');
    expect((await readSettingsFile(found!.file, 'project')).values).toEqual({ execution: { maxConcurrency: 3 }, tools: { none: true } });
  });
});

describe('TypeScript and JavaScript configs load through jiti', () => {
  it('follows a relative import to a .ts file', async () => {
    const root = await tree({
      'repo/airlock.config.ts': "import { deny } from './policy/helper.js';\nexport default { permissions: { deny } };\n",
      'repo/policy/helper.ts': "export const deny: string[] = ['fs.read(**/.env)'];\n",
    });
    const { values } = await readSettingsFile(join(root, 'repo/airlock.config.ts'), 'project');
    expect(values).toEqual({ permissions: { deny: ['fs.read(**/.env)'] } });
  });

  it.each([
    ['airlock.config.ts', 'commonjs'],
    ['airlock.config.js', 'commonjs'],
    ['airlock.config.js', 'module'],
    ['airlock.config.mjs', 'module'],
  ])('sees edits to %s (package type %s) and its imports on a second load in the same process', async (name, type) => {
    const ext = name.slice(name.lastIndexOf('.'));
    const root = await tree({
      'repo/package.json': { name: 'repo', type },
      [`repo/${name}`]: `import { n } from './n${ext}';\nexport default { execution: { maxConcurrency: n } };\n`,
      [`repo/n${ext}`]: 'export const n = 1;\n',
    });
    const file = join(root, 'repo', name);
    expect((await readSettingsFile(file, 'project')).values).toEqual({ execution: { maxConcurrency: 1 } });
    await write(root, { [`repo/n${ext}`]: 'export const n = 2;\n' });
    expect((await readSettingsFile(file, 'project')).values).toEqual({ execution: { maxConcurrency: 2 } });
    await write(root, { [`repo/${name}`]: 'export default { execution: { mode: "sequential" } };\n' });
    expect((await readSettingsFile(file, 'project')).values).toEqual({ execution: { mode: 'sequential' } });
  });

  it('loads an ES-module config that uses top-level await', async () => {
    const root = await tree({ 'repo/airlock.config.mjs': 'const n = await Promise.resolve(4);\nexport default { execution: { maxConcurrency: n } };\n' });
    expect((await readSettingsFile(join(root, 'repo/airlock.config.mjs'), 'project')).values).toEqual({ execution: { maxConcurrency: 4 } });
  });

  it('a module with no default export is an error saying what to export', async () => {
    const root = await tree({ 'repo/airlock.config.ts': 'export const execution = { mode: "sequential" };\n' });
    const error = await failure(readSettingsFile(join(root, 'repo/airlock.config.ts'), 'project'));
    expect(error.code).toBe('AIRLOCK_SETTINGS_INVALID');
    expect(error.problems).toEqual([{ path: '', message: 'the module has no default export; expected `export default { … }`' }]);
  });

  it('a module that throws, or whose import fails, names the file', async () => {
    const root = await tree({ 'repo/a.config.ts': 'throw new Error("no API key");\n', 'repo/b.config.ts': "import { x } from './missing.js';\nexport default { x };\n" });
    const thrown = await failure(readSettingsFile(join(root, 'repo/a.config.ts'), 'project'));
    expect(thrown.code).toBe('AIRLOCK_SETTINGS_LOAD_FAILED');
    expect(thrown.file).toBe(join(root, 'repo/a.config.ts'));
    expect(thrown.message).toContain('no API key');
    const missing = await failure(readSettingsFile(join(root, 'repo/b.config.ts'), 'project'));
    expect(missing.code).toBe('AIRLOCK_SETTINGS_LOAD_FAILED');
    expect(missing.message).toContain("Cannot find module './missing.js'");
  });
});

describe('syntax errors name the file and the line', () => {
  it('JSON', async () => {
    const root = await tree({ 'repo/.airlockrc.json': '{\n  "execution": {\n    "mode": "parallel",,\n  }\n}\n' });
    const error = await failure(find(root, join(root, 'repo')));
    expect(error).toMatchObject({ code: 'AIRLOCK_SETTINGS_SYNTAX', file: join(root, 'repo/.airlockrc.json'), line: 3, column: 24 });
    expect(error.message).toContain(`${join(root, 'repo/.airlockrc.json')} (project settings) at line 3, column 24: Expected double-quoted property name`);
  });

  it('JSON that ends too early', async () => {
    const root = await tree({ 'repo/.airlockrc.json': '{\n  "tools": {' });
    expect(await failure(find(root, join(root, 'repo')))).toMatchObject({ code: 'AIRLOCK_SETTINGS_SYNTAX', line: 2 });
  });

  it('YAML (also .airlockrc without an extension)', async () => {
    const root = await tree({ 'repo/.airlockrc': 'tools:\n  allow: [read\nexecution: {}\n' });
    const error = await failure(find(root, join(root, 'repo')));
    expect(error).toMatchObject({ code: 'AIRLOCK_SETTINGS_SYNTAX', file: join(root, 'repo/.airlockrc'), line: 3 });
  });

  it('TypeScript', async () => {
    const root = await tree({ 'repo/airlock.config.ts': 'export default {\n  tools: { allow: [1, }\n};\n' });
    const error = await failure(readSettingsFile(join(root, 'repo/airlock.config.ts'), 'project'));
    expect(error).toMatchObject({ code: 'AIRLOCK_SETTINGS_SYNTAX', file: join(root, 'repo/airlock.config.ts'), line: 2, column: 23 });
  });

  it('a broken package.json is not settings (npm will say what is wrong with it): the search goes on', async () => {
    const root = await tree({ 'repo/package.json': '{ "name": "x", }', 'repo/.airlockrc.json': { tools: { none: true } } });
    expect((await find(root, join(root, 'repo')))?.file).toBe(join(root, 'repo/.airlockrc.json'));
  });
});

describe('reading an explicit file', () => {
  it('a missing file is NOT_FOUND, a folder is UNREADABLE, an unknown type is refused', async () => {
    const root = await tree({ 'repo/dir/x.txt': '', 'repo/s.toml': 'a = 1' });
    expect(await failure(readSettingsFile(join(root, 'repo/nope.json'), 'project'))).toMatchObject({ code: 'AIRLOCK_SETTINGS_NOT_FOUND', file: join(root, 'repo/nope.json') });
    expect(await failure(readSettingsFile(join(root, 'repo/dir'), 'project'))).toMatchObject({ code: 'AIRLOCK_SETTINGS_UNREADABLE' });
    const toml = await failure(readSettingsFile(join(root, 'repo/s.toml'), 'project'));
    expect(toml.message).toContain('".toml" files are not settings files');
  });

  it('a package.json without an "airlock" field is NOT_FOUND', async () => {
    const root = await tree({ 'repo/package.json': { name: 'x' } });
    const error = await failure(readSettingsFile(join(root, 'repo/package.json'), 'project'));
    expect(error.code).toBe('AIRLOCK_SETTINGS_NOT_FOUND');
    expect(error.message).toContain('has no "airlock" field');
  });
});

describe('boundaries: settings are never read from above the project', () => {
  /** Search with a home folder elsewhere, as for a project under /tmp. */
  const findAway = async (root: string, cwd: string) => findProjectSettings(cwd, { homeDir: join(root, 'home'), userConfigDir: join(root, 'home/.config/airlock') });

  it('without a repository root or the home folder above it, only the working folder counts (a planted /tmp/.airlockrc.json is not read)', async () => {
    const root = await tree({ 'shared/.airlockrc.json': { tools: { none: true } }, 'shared/project/x.txt': '', 'home/.keep': '' });
    expect(await findAway(root, join(root, 'shared/project'))).toBeUndefined();
    expect(projectSearchDirs(join(root, 'shared/project'), { homeDir: join(root, 'home'), userConfigDir: join(root, 'home/.config/airlock') })).toEqual([
      join(root, 'shared/project'),
    ]);
  });

  it('walks up to the repository root (the nearest folder holding .git, a folder or a file) and stops there', async () => {
    const root = await tree({
      'shared/.airlockrc.json': { tools: { none: true } },
      'shared/repo/.git/HEAD': 'ref: refs/heads/main\n',
      'shared/repo/src/deep/x.txt': '',
      'shared/worktree/.git': 'gitdir: /elsewhere\n',
      'shared/worktree/.airlockrc.json': { tools: { noBuiltin: true } },
      'shared/worktree/pkg/x.txt': '',
      'home/.keep': '',
    });
    expect(await findAway(root, join(root, 'shared/repo/src/deep'))).toBeUndefined();
    expect(await findAway(root, join(root, 'shared/worktree/pkg'))).toMatchObject({ file: join(root, 'shared/worktree/.airlockrc.json') });
    // A repository inside the home folder stops the walk before the home folder does.
    expect(projectSearchDirs(join(root, 'shared/repo/src/deep'), { homeDir: root, userConfigDir: join(root, '.config/airlock') })).toEqual([
      join(root, 'shared/repo/src/deep'),
      join(root, 'shared/repo/src'),
      join(root, 'shared/repo'),
    ]);
  });
});

describe('a settings file someone else could have written is refused', () => {
  it.each([
    [0o664, 'its group'],
    [0o646, 'every user'],
  ])('mode %s: refused, saying who may write it and how to fix it', async (mode, who) => {
    const root = await tree({ 'repo/.airlockrc.json': { permissions: { deny: ['bash'] } } });
    const file = join(root, 'repo/.airlockrc.json');
    await chmod(file, mode);
    for (const attempt of [() => find(root, join(root, 'repo')), () => readSettingsFile(file, 'project')]) {
      const error = await failure(attempt());
      expect(error.code).toBe('AIRLOCK_SETTINGS_UNSAFE_FILE');
      expect(error.message).toContain(`Refusing ${file}`);
      expect(error.message).toContain(`${who} may write to it (mode ${mode.toString(8)})`);
      expect(error.message).toContain(`chmod go-w ${file}`);
    }
    await chmod(file, 0o644);
    expect(await find(root, join(root, 'repo'))).toMatchObject({ values: { permissions: { deny: ['bash'] } } });
  });

  it('every file counts: one a settings file `$import`s, and an empty one (it hides the settings above it)', async () => {
    const root = await tree({
      'repo/.git/HEAD': '',
      'repo/.airlockrc.json': { $import: './base.yaml', tools: { none: true } },
      'repo/base.yaml': 'execution:\n  maxConcurrency: 2\n',
      'repo/sub/.airlockrc.json': '',
      // A package.json without settings is not settings: its mode does not matter.
      'repo/sub/deeper/package.json': { name: 'deeper' },
    });
    await chmod(join(root, 'repo/base.yaml'), 0o666);
    const imported = await failure(find(root, join(root, 'repo')));
    expect(imported.message).toContain(`Refusing ${join(root, 'repo/base.yaml')}`);
    await chmod(join(root, 'repo/base.yaml'), 0o644);
    expect(await find(root, join(root, 'repo'))).toMatchObject({ values: { execution: { maxConcurrency: 2 }, tools: { none: true } } });

    await chmod(join(root, 'repo/sub/deeper/package.json'), 0o666);
    expect(await find(root, join(root, 'repo/sub/deeper'))).toMatchObject({ file: join(root, 'repo/sub/.airlockrc.json'), values: {} });
    await chmod(join(root, 'repo/sub/.airlockrc.json'), 0o664);
    expect((await failure(find(root, join(root, 'repo/sub/deeper')))).message).toContain(`Refusing ${join(root, 'repo/sub/.airlockrc.json')}`);
  });

  it.runIf(process.getuid?.() === 0)('a file owned by another user in a world-writable folder (like /tmp) is refused', async () => {
    const root = await tree({ 'shared/.airlockrc.json': { tools: { none: true } } });
    const shared = join(root, 'shared');
    const file = join(shared, '.airlockrc.json');
    await chmod(shared, 0o1777);
    await chown(file, 65534, 65534);
    const error = await failure(find(root, shared));
    expect(error.code).toBe('AIRLOCK_SETTINGS_UNSAFE_FILE');
    expect(error.message).toContain(`it is in ${shared}, which every user may write to, and it belongs to user id 65534`);
    expect(error.message).toContain('Remove it');
    // The same file owned by the user is fine there.
    await chown(file, 0, 0);
    expect(await find(root, shared)).toMatchObject({ values: { tools: { none: true } } });
  });

  it('a symlink in a world-writable folder to a file of another owner is refused', async () => {
    const root = await tree({ 'shared/x.txt': '' });
    const shared = join(root, 'shared');
    await chmod(shared, 0o1777);
    // /etc/hostname or /etc/passwd: owned by root, so by someone else unless the tests run as root.
    const target = ['/etc/passwd', '/etc/hostname'].find((p) => existsSync(p))!;
    const owner = statSync(target).uid;
    await symlink(target, join(shared, '.airlockrc'));
    const unsafe = await settingsFileSafety(join(shared, '.airlockrc'));
    if (owner === process.getuid?.()) expect(unsafe).toBeUndefined();
    else expect(unsafe?.reason).toContain(`belongs to user id ${owner}`);
  });
});
