import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  defaultSettings,
  extensionsToLoad,
  loadSettings,
  SettingsError,
  toKernelOptions,
  toSelectOptions,
  userConfigDir,
  userSettingsFile,
  type LoadSettingsOptions,
} from '../../src/settings/index.js';
import { isolated, tree } from './fixtures/temp-tree.js';
import { DEFAULT_EXTENSIONS, defaultExtensionEntries, withDefaultSet } from '../../src/extensions/index.js';

const USER = '.config/airlock/settings.json';

/** loadSettings inside a temp tree: the tree is the home folder; cwd is relative to it. */
function load(root: string, cwd: string, options: Partial<LoadSettingsOptions> = {}) {
  return loadSettings({ ...isolated(root), cwd: join(root, cwd), ...options });
}

async function failure(promise: Promise<unknown>): Promise<SettingsError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SettingsError);
  return error as SettingsError;
}

describe('layers', () => {
  it('with no files, the settings are the defaults', async () => {
    const root = await tree({ 'repo/x.txt': '' });
    const loaded = await load(root, 'repo');
    expect(loaded.settings).toEqual(defaultSettings());
    expect(loaded.layers).toEqual([{ name: 'defaults', values: defaultSettings() }]);
    expect(loaded.projectDir).toBeUndefined();
    expect(loaded.userFile).toBe(join(root, USER));
    expect(loaded.extensions).toEqual([]);
    expect(loaded.extensionsListed).toBe(false);
    expect(loaded.diagnostics).toEqual([]);
  });

  it('each layer overrides the one before: defaults < user < project < cli; objects merge key by key', async () => {
    const root = await tree({
      [USER]: { execution: { mode: 'sequential', maxConcurrency: 2, timeoutMs: 1000 }, images: { blockImages: true } },
      'repo/.airlockrc.json': { execution: { maxConcurrency: 3, timeoutMs: 2000 } },
    });
    const loaded = await load(root, 'repo', { cli: { execution: { timeoutMs: 3000 } } });
    expect(loaded.settings.execution).toEqual({ mode: 'sequential', maxConcurrency: 3, timeoutMs: 3000 });
    expect(loaded.settings.images).toEqual({ autoResize: true, blockImages: true, maxDimension: 2000, maxBytes: 4718592 });
    expect(loaded.layers.map((l) => [l.name, l.file])).toEqual([
      ['defaults', undefined],
      ['user', join(root, USER)],
      ['project', join(root, 'repo/.airlockrc.json')],
      ['cli', undefined],
    ]);
    // The project is not trusted here: it may not set a safety limit such as the call time limit.
    expect(loaded.layers[2]?.values).toEqual({ execution: { maxConcurrency: 3 } });
    expect(loaded.projectDir).toBe(join(root, 'repo'));
  });

  it('tools.allow and tools.exclude replace; booleans override', async () => {
    const root = await tree({
      [USER]: { tools: { allow: ['read', 'grep'], exclude: ['bash'], noBuiltin: true } },
      'repo/.airlockrc.json': { tools: { allow: ['ls'] } },
    });
    const loaded = await load(root, 'repo', { cli: { tools: { noBuiltin: false, exclude: [] } } });
    expect(loaded.settings.tools).toEqual({ allow: ['ls'], exclude: [], noBuiltin: false, none: false });
    expect(toSelectOptions(loaded.settings.tools)).toEqual({ tools: ['ls'], excludeTools: [], noBuiltinTools: false, noTools: false });
  });

  it('permissions are a union across layers: a deny in any layer stays', async () => {
    const root = await tree({
      [USER]: { permissions: { deny: ['fs.read(~/.ssh/**)'], allow: ['read'] } },
      'repo/.airlockrc.json': { permissions: { deny: ['fs.read(**/.env)', 'fs.read(~/.ssh/**)'], ask: ['net(*)'] } },
    });
    const loaded = await load(root, 'repo', { cli: { permissions: { allow: [{ match: 'bash(npm test*)', reason: 'tests' }] } } });
    // Kept once: as entries with their layer and file, not also as merged lists in `settings`.
    expect(loaded.settings).not.toHaveProperty('permissions');
    expect(loaded.permissions).toEqual([
      { effect: 'deny', rule: 'fs.read(~/.ssh/**)', layer: 'user', file: join(root, USER) },
      { effect: 'allow', rule: 'read', layer: 'user', file: join(root, USER) },
      { effect: 'deny', rule: 'fs.read(**/.env)', layer: 'project', file: join(root, 'repo/.airlockrc.json') },
      { effect: 'ask', rule: 'net(*)', layer: 'project', file: join(root, 'repo/.airlockrc.json') },
      { effect: 'allow', rule: { match: 'bash(npm test*)', reason: 'tests' }, layer: 'cli' },
    ]);
  });

  it('a project cannot set trust.default (a project must not trust itself); the user can', async () => {
    const root = await tree({ [USER]: { trust: { default: 'never' } }, 'repo/.airlockrc.json': { trust: { default: 'always' } } });
    const loaded = await load(root, 'repo');
    expect(loaded.settings.trust).toEqual({ default: 'never' });
    // The project's value is still in its layer, so the trust code can warn about it.
    expect(loaded.layers.find((l) => l.name === 'project')?.values).toEqual({ trust: { default: 'always' } });
  });

  it('limits.spillDir resolves against the folder of the file that sets it', async () => {
    const root = await tree({ 'repo/.airlockrc.json': { limits: { spillDir: '.airlock/spill', maxLines: 100 } } });
    const loaded = await load(root, 'repo/sub', { trustProject: () => true });
    expect(loaded.settings.limits).toEqual({ maxLines: 100, maxBytes: 51200, spillBudget: 256 * 1024 * 1024, spillRetentionDays: 7, spillTotalBudget: 1024 ** 3, spillDir: join(root, 'repo/.airlock/spill') });
    expect(toKernelOptions(loaded.settings)).toEqual({
      limits: { maxLines: 100, maxBytes: 51200 },
      spill: { budgetBytes: 256 * 1024 * 1024, retentionMs: 7 * 86_400_000, totalBudgetBytes: 1024 ** 3, dir: join(root, 'repo/.airlock/spill') },
      images: { blockImages: false, maxDimension: 2000, maxBytes: 4718592, resize: expect.any(Function) },
      execution: { mode: 'parallel', maxConcurrency: 8, timeoutMs: 600000 },
    });
    // autoResize off: no resizer, so the kernel replaces an oversized image with a note.
    expect(toKernelOptions({ ...loaded.settings, images: { ...loaded.settings.images, autoResize: false } }).images).not.toHaveProperty('resize');
  });
});

describe('extensions', () => {
  it('concatenate in layer order, each with its layer, file and base folder', async () => {
    const root = await tree({
      [USER]: { extensions: ['@acme/audit', '~/ext/mine.ts'] },
      'repo/.airlockrc.json': { extensions: ['./tools/jira.ts', { name: '@acme/guard', options: { strict: true } }] },
    });
    const loaded = await load(root, 'repo/packages/app', { cli: { extensions: ['../local.ts'] } });
    const userDir = join(root, '.config/airlock');
    expect(loaded.extensions).toEqual([
      { spec: '@acme/audit', kind: 'package', options: {}, enabled: true, layer: 'user', file: join(root, USER), baseDir: userDir },
      { spec: '~/ext/mine.ts', kind: 'path', path: join(root, 'ext/mine.ts'), options: {}, enabled: true, layer: 'user', file: join(root, USER), baseDir: userDir },
      { spec: './tools/jira.ts', kind: 'path', path: join(root, 'repo/tools/jira.ts'), options: {}, enabled: true, layer: 'project', file: join(root, 'repo/.airlockrc.json'), baseDir: join(root, 'repo') },
      { spec: '@acme/guard', kind: 'package', options: { strict: true }, enabled: true, layer: 'project', file: join(root, 'repo/.airlockrc.json'), baseDir: join(root, 'repo') },
      { spec: '../local.ts', kind: 'path', path: join(root, 'repo/packages/local.ts'), options: {}, enabled: true, layer: 'cli', baseDir: join(root, 'repo/packages/app') },
    ]);
    expect(loaded.extensionsListed).toBe(true);
    expect(loaded.settings.extensions).toEqual(['@acme/audit', '~/ext/mine.ts', './tools/jira.ts', { name: '@acme/guard', options: { strict: true } }, '../local.ts']);
  });

  it("a later layer's entry for the same name or path replaces the earlier one in place, keeping it as `replaces`", async () => {
    const root = await tree({
      [USER]: { extensions: [{ name: '@acme/guard', options: { level: 1 } }, '@acme/audit', { path: '~/work/repo/tools/x.ts', options: { a: 1 } }] },
      'work/repo/.airlockrc.json': { extensions: [{ path: 'tools/x.ts', options: { a: 2 } }, { name: '@acme/guard', enabled: false }] },
    });
    const loaded = await load(root, 'work/repo');
    expect(loaded.extensions.map((e) => [e.spec, e.layer, e.options, e.enabled])).toEqual([
      ['@acme/guard', 'project', {}, false],
      ['@acme/audit', 'user', {}, true],
      ['tools/x.ts', 'project', { a: 2 }, true],
    ]);
    expect(loaded.extensions[0]?.replaces).toMatchObject({ spec: '@acme/guard', layer: 'user', options: { level: 1 }, enabled: true });
    expect(loaded.extensions[2]?.replaces).toMatchObject({ spec: '~/work/repo/tools/x.ts', layer: 'user', options: { a: 1 } });
    expect(loaded.settings.extensions).toEqual([{ name: '@acme/guard', enabled: false }, '@acme/audit', { path: 'tools/x.ts', options: { a: 2 } }]);

    // Trusted: the project's entries apply. Untrusted: the user's own entries load in their place.
    const trusted = extensionsToLoad(loaded.extensions, { projectTrusted: true });
    expect(trusted.load.map((e) => [e.spec, e.options])).toEqual([['@acme/audit', {}], ['tools/x.ts', { a: 2 }]]);
    expect(trusted.skipped.map((s) => [s.entry.spec, s.reason])).toEqual([['@acme/guard', 'disabled']]);
    const untrusted = extensionsToLoad(loaded.extensions, { projectTrusted: false });
    expect(untrusted.load.map((e) => [e.spec, e.layer, e.options])).toEqual([
      ['@acme/guard', 'user', { level: 1 }],
      ['@acme/audit', 'user', {}],
      ['~/work/repo/tools/x.ts', 'user', { a: 1 }],
    ]);
    expect(untrusted.skipped.map((s) => [s.entry.spec, s.reason])).toEqual([
      ['@acme/guard', 'untrusted-project'],
      ['tools/x.ts', 'untrusted-project'],
    ]);
  });

  it('`extensions: []` counts as listed (no default set)', async () => {
    const root = await tree({ 'repo/.airlockrc.json': { extensions: [] } });
    const loaded = await load(root, 'repo');
    expect(loaded.extensions).toEqual([]);
    expect(loaded.extensionsListed).toBe(true);
  });
});

describe('the user file', () => {
  it('honours an absolute XDG_CONFIG_HOME and ignores a relative one', async () => {
    const root = await tree({ 'xdg/airlock/settings.json': { tools: { none: true } }, 'repo/x.txt': '' });
    const loaded = await load(root, 'repo', { env: { XDG_CONFIG_HOME: join(root, 'xdg') } });
    expect(loaded.settings.tools.none).toBe(true);
    expect(loaded.layers[1]).toEqual({ name: 'user', file: join(root, 'xdg/airlock/settings.json'), values: { tools: { none: true } } });
    expect(userSettingsFile({ XDG_CONFIG_HOME: 'rel/dir' }, '/home/u')).toBe('/home/u/.config/airlock/settings.json');
    expect(userConfigDir({}, '/home/u')).toBe('/home/u/.config/airlock');
  });

  it('an invalid user file stops loading and names the user file', async () => {
    const root = await tree({ [USER]: { limits: { maxLines: 0 } }, 'repo/.airlockrc.json': {} });
    const error = await failure(load(root, 'repo'));
    expect(error).toMatchObject({ code: 'AIRLOCK_SETTINGS_INVALID', file: join(root, USER), layer: 'user' });
    expect(error.message).toContain(`${join(root, USER)} (user settings)`);
    expect(error.message).toContain('limits.maxLines: expected an integer ≥ 1, got 0');
  });

  it('bad JSON in the user file names the file and line', async () => {
    const root = await tree({ [USER]: '{\n  "tools": { "none": true }\n  "images": {}\n}\n' });
    const error = await failure(load(root, '.'));
    expect(error).toMatchObject({ code: 'AIRLOCK_SETTINGS_SYNTAX', file: join(root, USER), line: 3 });
  });
});

describe('the project layer', () => {
  it('finds a root config from a nested package and validates it, naming file, path and expectation', async () => {
    const root = await tree({
      'repo/package.json': { name: 'repo' },
      'repo/.airlockrc.json': { execution: { maxConcurrency: 'lots' } },
      'repo/packages/app/package.json': { name: 'app' },
    });
    const error = await failure(load(root, 'repo/packages/app'));
    expect(error).toMatchObject({ code: 'AIRLOCK_SETTINGS_INVALID', file: join(root, 'repo/.airlockrc.json') });
    expect(error.problems).toEqual([{ path: 'execution.maxConcurrency', message: 'expected an integer ≥ 1, got "lots"' }]);
  });

  it('an unknown key in a project file suggests the right one', async () => {
    const root = await tree({ 'repo/.airlockrc.yaml': 'extentions:\n  - "@acme/jira"\n' });
    const error = await failure(load(root, 'repo'));
    expect(error.message).toContain('extentions: unknown setting "extentions". Did you mean "extensions"?');
    expect(error.message).toContain(join(root, 'repo/.airlockrc.yaml'));
  });

  it('a TS config with a relative import loads as the project layer', async () => {
    const root = await tree({
      'repo/airlock.config.ts': "import { rules } from './helper.js';\nexport default { permissions: { deny: rules }, extensions: ['./ext/index.ts'] };\n",
      'repo/helper.ts': "export const rules = ['fs.read(**/.env)'];\n",
    });
    const loaded = await load(root, 'repo', { trustProject: () => true });
    expect(loaded.permissions.filter((p) => p.effect === 'deny').map((p) => p.rule)).toEqual(['fs.read(**/.env)']);
    expect(loaded.extensions[0]).toMatchObject({ layer: 'project', file: join(root, 'repo/airlock.config.ts'), path: join(root, 'repo/ext/index.ts') });
  });

  it('a code config runs only if trustProject allows it; otherwise it is reported and skipped', async () => {
    const root = await tree({ 'repo/airlock.config.ts': 'export default { tools: { none: true } };\n' });
    const asked: unknown[] = [];
    const skipped = await load(root, 'repo', { trustProject: (p) => (asked.push(p), false) });
    expect(asked).toEqual([{ file: join(root, 'repo/airlock.config.ts'), dir: join(root, 'repo'), needs: [] }]);
    expect(skipped.settings.tools.none).toBe(false);
    expect(skipped.layers.map((l) => l.name)).toEqual(['defaults']);
    expect(skipped.projectDir).toBe(join(root, 'repo'));
    expect(skipped.diagnostics).toEqual([expect.objectContaining({ code: 'AIRLOCK_SETTINGS_CODE_NOT_RUN', file: join(root, 'repo/airlock.config.ts') })]);

    const allowed = await load(root, 'repo', { trustProject: async () => true });
    expect(allowed.settings.tools.none).toBe(true);
    expect(allowed.diagnostics).toEqual([]);
  });

  it('a data config is never asked about: reading it runs nothing', async () => {
    const root = await tree({ 'repo/.airlockrc.json': { tools: { none: true } } });
    const loaded = await load(root, 'repo', { trustProject: () => expect.unreachable('asked for a data file') });
    expect(loaded.settings.tools.none).toBe(true);
  });
});

describe('an explicit --settings file', () => {
  it('skips discovery and is the project layer', async () => {
    const root = await tree({
      'repo/.airlockrc.json': { tools: { none: true } },
      'elsewhere/team.yaml': 'execution:\n  mode: sequential\n',
    });
    const loaded = await load(root, 'repo', { settingsFile: '../elsewhere/team.yaml' });
    expect(loaded.settings.tools.none).toBe(false);
    expect(loaded.settings.execution.mode).toBe('sequential');
    expect(loaded.layers.map((l) => [l.name, l.file])).toEqual([
      ['defaults', undefined],
      ['project', join(root, 'elsewhere/team.yaml')],
    ]);
    expect(loaded.projectDir).toBe(join(root, 'elsewhere'));
  });

  it('a missing explicit file is a clear error, never a fallback to discovery', async () => {
    const root = await tree({ 'repo/.airlockrc.json': {} });
    const error = await failure(load(root, 'repo', { settingsFile: 'nope.json' }));
    expect(error).toMatchObject({ code: 'AIRLOCK_SETTINGS_NOT_FOUND', file: join(root, 'repo/nope.json') });
    expect(error.message).toContain('--settings');
  });
});

describe('the CLI layer', () => {
  it('is validated like a file, and its errors say "command-line flags"', async () => {
    const root = await tree({ 'repo/x.txt': '' });
    const error = await failure(load(root, 'repo', { cli: { execution: { maxConcurrency: 0 } } }));
    expect(error).toMatchObject({ code: 'AIRLOCK_SETTINGS_INVALID', layer: 'cli', file: undefined });
    expect(error.message).toContain('command-line flags');
    expect(error.message).toContain('execution.maxConcurrency: expected an integer ≥ 1, got 0');
  });
});

describe('an untrusted project cannot set a path, a program or code', () => {
  const SPILL = { limits: { spillDir: '..', maxBytes: 200 }, permissions: { deny: ['bash(rm *)'] } };

  it('ignores limits.spillDir with one warning naming it (no trust callback: untrusted); its other values apply', async () => {
    const root = await tree({ 'repo/.airlockrc.json': SPILL });
    const loaded = await load(root, 'repo');
    expect(loaded.settings.limits.spillDir).toBeUndefined();
    expect(toKernelOptions(loaded.settings).spill).toEqual({ budgetBytes: 256 * 1024 * 1024, retentionMs: 7 * 86_400_000, totalBudgetBytes: 1024 ** 3 });
    expect(loaded.settings.limits.maxBytes).toBe(200);
    expect(loaded.permissions.filter((p) => p.effect === 'deny').map((p) => p.rule)).toEqual(['bash(rm *)']);
    expect(loaded.diagnostics).toEqual([
      {
        code: 'AIRLOCK_SETTINGS_UNTRUSTED_VALUES',
        severity: 'warning',
        file: join(root, 'repo/.airlockrc.json'),
        message: expect.stringMatching(/^Ignored limits\.spillDir in .*\.airlockrc\.json: .* is not trusted.*airlock trust /),
        details: { ignored: ['limits.spillDir'], projectDir: join(root, 'repo') },
      },
    ]);
  });

  it('asks once, naming what needs trust, and keeps the values of a trusted project', async () => {
    const root = await tree({ 'repo/.airlockrc.json': SPILL });
    const asked: unknown[] = [];
    const trusted = await load(root, 'repo', { trustProject: (p) => (asked.push(p), true) });
    expect(asked).toEqual([{ file: join(root, 'repo/.airlockrc.json'), dir: join(root, 'repo'), needs: ['limits.spillDir'] }]);
    expect(trusted.settings.limits.spillDir).toBe(root);
    expect(trusted.diagnostics).toEqual([]);
    const refused = await load(root, 'repo', { trustProject: () => false });
    expect(refused.settings.limits.spillDir).toBeUndefined();
  });

  it('the user file sets spillDir without being asked: it is the user', async () => {
    const root = await tree({ [USER]: { limits: { spillDir: '/var/tmp/mine' } }, 'repo/x.txt': '' });
    const loaded = await load(root, 'repo', { trustProject: () => expect.unreachable('asked about the user file') });
    expect(loaded.settings.limits.spillDir).toBe('/var/tmp/mine');
  });

  it("an untrusted project's extensions stay listed for the loader to skip and report; a default it leaves out falls back to the default", async () => {
    const root = await tree({ 'repo/.airlockrc.json': { extensions: ['-@airlock/path-policy', 'x'] } });
    const loaded = await load(root, 'repo', { trustProject: () => expect.unreachable('extensions are judged by the loader') });
    expect(loaded.extensionsListed).toBe(true);
    const entries = withDefaultSet(loaded.extensions, defaultExtensionEntries('/opt/airlock'));
    expect(entries.map((e) => e.spec)).toEqual([...DEFAULT_EXTENSIONS, 'x']);
    const policy = entries.find((e) => e.spec === '@airlock/path-policy')!;
    expect(policy).toMatchObject({ enabled: false, layer: 'project', replaces: { layer: 'defaults', spec: '@airlock/path-policy' } });
  });

  it('a `$import` in the local rules file never runs code', async () => {
    const root = await tree({
      'repo/.airlockrc.json': {},
      'repo/.airlock/settings.local.json': { $import: '../evil.mjs', permissions: { allow: ['read'] } },
      'repo/evil.mjs': `import { writeFileSync } from 'node:fs';\nwriteFileSync(new URL('./ran.txt', import.meta.url), 'yes');\nexport default {};\n`,
    });
    const error = await failure(load(root, 'repo', { trustProject: () => true }));
    expect(error.message).toContain('evil.mjs is code; this settings file may only hold data');
    expect(existsSync(join(root, 'repo/ran.txt'))).toBe(false);
  });
});
