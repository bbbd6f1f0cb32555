import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addPermissionRule, loadSettings, localRulesFile, SettingsError, userSettingsFile } from '../../src/settings/index.js';
import { isolated, tree } from './fixtures/temp-tree.js';

function load(root: string, cwd: string) {
  return loadSettings({ ...isolated(root), cwd: join(root, cwd) });
}

describe('local rules (.airlock/settings.local.json)', () => {
  it('a saved "always allow" lands next to the project settings, is git-ignored, and loads as its own layer', async () => {
    const root = await tree({ 'repo/.airlockrc.json': { permissions: { ask: ['bash(git push *)'] } }, 'repo/src/x.ts': '' });
    const file = localRulesFile(join(root, 'repo'));
    expect(await addPermissionRule(file, 'allow', 'bash(npm test)', 'local')).toEqual({ file, added: true });
    expect(await addPermissionRule(file, 'allow', 'bash(npm test)', 'local')).toEqual({ file, added: false });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ permissions: { allow: ['bash(npm test)'] } });
    expect(await readFile(join(root, 'repo/.airlock/.gitignore'), 'utf8')).toContain('settings.local.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    // Found from a subfolder too: it belongs to the project, not to the cwd.
    const loaded = await load(root, 'repo/src');
    expect(loaded.localFile).toBe(file);
    expect(loaded.layers.map((l) => l.name)).toEqual(['defaults', 'project', 'local']);
    expect(loaded.permissions).toEqual([
      { effect: 'ask', rule: 'bash(git push *)', layer: 'project', file: join(root, 'repo/.airlockrc.json') },
      { effect: 'allow', rule: 'bash(npm test)', layer: 'local', file },
    ]);
  });

  it('holds permissions only: anything else is an error naming the key and the file', async () => {
    const root = await tree({ 'repo/.airlock/settings.local.json': { permissions: { allow: ['read'] }, extensions: ['./evil'] } });
    const error = await load(root, 'repo').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as Error).message).toContain('only "permissions" may be set');
    expect((error as Error).message).toContain(join(root, 'repo/.airlock/settings.local.json'));
  });

  it('adds to the user file without losing what else it holds, and never overwrites a broken file', async () => {
    const root = await tree({ 'repo/x': '' });
    const user = userSettingsFile({}, root);
    await addPermissionRule(user, 'deny', 'fs.read(**/.env)', 'user');
    await writeFile(user, JSON.stringify({ execution: { mode: 'sequential' }, permissions: { deny: ['fs.read(**/.env)'] } }));
    await addPermissionRule(user, 'allow', 'read', 'user');
    expect(JSON.parse(await readFile(user, 'utf8'))).toEqual({ execution: { mode: 'sequential' }, permissions: { deny: ['fs.read(**/.env)'], allow: ['read'] } });

    await writeFile(user, '{ "permissions": ');
    await expect(addPermissionRule(user, 'allow', 'ls', 'user')).rejects.toThrow(/not valid JSON/);
    expect(await readFile(user, 'utf8')).toBe('{ "permissions": ');
  });
});
