import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import Type from 'typebox';
import { defineExtension, type Frozen } from '@airlock/contract';
import { makeTempDir } from '@airlock/kernel/testing';
import { openHost, type Host, type InlineExtension } from '../../src/index.js';

/**
 * The settings an extension declares (`Extension.settings`) reach its setup as `api.settings`:
 * typed by the schema, checked against it once when it loads, frozen, and nothing else. A value
 * the schema refuses stops that extension with a message naming it, the key and the settings
 * file that set the value; a policy extension's failure blocks every tool. Real settings files in
 * a home and a project of the test's own; hosts opened as the SDK opens them.
 */

const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

function world(files: { user?: object; project?: object }) {
  const root = makeTempDir('airlock-slice-');
  const home = join(root, 'home');
  const project = join(root, 'project');
  const userFile = join(home, '.config', 'airlock', 'settings.json');
  const projectFile = join(project, '.airlockrc.json');
  mkdirSync(join(home, '.config', 'airlock'), { recursive: true });
  mkdirSync(project, { recursive: true });
  if (files.user !== undefined) writeFileSync(userFile, JSON.stringify(files.user));
  if (files.project !== undefined) writeFileSync(projectFile, JSON.stringify(files.project));
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(root, 'state'), PATH: process.env.PATH ?? '/usr/bin:/bin' };
  const open = async (modules: InlineExtension[]) => {
    const host = await openHost({ cwd: project, interactive: false, env, homeDir: home, modules });
    hosts.push(host);
    return host;
  };
  return { root, project, userFile, projectFile, open };
}

const Limits = Type.Object({ limits: Type.Object({ maxLines: Type.Integer(), maxBytes: Type.Integer() }) });

describe('an extension that declares the settings it reads', () => {
  it('gets exactly that slice, merged across layers, typed and frozen; one that declares none gets {}', async () => {
    const w = world({ user: { limits: { maxLines: 300 }, execution: { mode: 'sequential' } }, project: { limits: { maxBytes: 4096 } } });
    const seen: { reader?: Frozen<{ limits: { maxLines: number; maxBytes: number } }>; plain?: object } = {};
    const reader = defineExtension({
      name: 'reader',
      settings: Limits,
      setup(api) {
        // Typed from the schema: a number, read-only all the way down.
        const lines: number = api.settings.limits.maxLines;
        expect(lines).toBe(300);
        seen.reader = api.settings;
      },
    });
    const plain = defineExtension({
      name: 'plain',
      setup(api) {
        seen.plain = api.settings;
      },
    });
    const host = await w.open([{ extension: reader }, { extension: plain }]);
    expect(host.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(Object.keys(seen.reader!)).toEqual(['limits']);
    expect(seen.reader!.limits).toMatchObject({ maxLines: 300, maxBytes: 4096 });
    expect(Object.isFrozen(seen.reader) && Object.isFrozen(seen.reader!.limits)).toBe(true);
    expect(() => {
      (seen.reader!.limits as { maxLines: number }).maxLines = 1;
    }).toThrow(TypeError);
    // What the host keeps is untouched, and what it did not declare never reached it.
    expect(host.settings.settings.limits.maxLines).toBe(300);
    expect(seen.plain).toEqual({});
    expect(Object.isFrozen(seen.plain)).toBe(true);
  });

  it('gets permissions as the one list the host keeps: each rule with its list, layer and file, without the allow rules an untrusted project brought', async () => {
    const outside = makeTempDir('airlock-slice-outside-');
    writeFileSync(join(outside, 'notes.txt'), 'outside\n');
    const w = world({
      // `//` anchors the pattern at the filesystem root (a single `/` is the workspace root).
      user: { permissions: { allow: [`fs.read(/${outside}/**)`] } },
      project: { permissions: { allow: ['bash(*)'], ask: ['net(*)'] } },
    });
    let rules: unknown;
    const Rules = Type.Object({ permissions: Type.Array(Type.Object({ effect: Type.String(), rule: Type.Unknown(), layer: Type.String(), file: Type.Optional(Type.String()) })) });
    const reader = defineExtension({
      name: 'rules-reader',
      settings: Rules,
      setup(api) {
        rules = api.settings.permissions;
      },
    });
    const host = await w.open([{ extension: reader }]);
    expect(host.diagnostics.map((d) => d.code)).toContain('AIRLOCK_UNTRUSTED_ALLOW_RULES');
    const kept = [
      { effect: 'allow', rule: `fs.read(/${outside}/**)`, layer: 'user', file: w.userFile },
      { effect: 'ask', rule: 'net(*)', layer: 'project', file: w.projectFile },
    ];
    expect(rules).toEqual(kept);
    expect(host.settings.permissions).toEqual(kept);
    // The user's own allow rule still decides (path-policy reads the same list): reading outside
    // the project would otherwise ask.
    const report = await host.kernel.preflight({ id: 'p1', name: 'read', arguments: { path: join(outside, 'notes.txt') } }, { tools: host.selection });
    expect(report.effect).toBe('allow');
  });

  it('a value its schema refuses stops it, naming the extension, the key and the file; a policy extension then blocks every tool', async () => {
    const w = world({ user: { limits: { maxLines: 5000 } } });
    let ran = false;
    const strict = defineExtension({
      name: 'strict-guard',
      settings: Type.Object({ limits: Type.Object({ maxLines: Type.Integer({ maximum: 1000 }) }) }),
      setup(api) {
        ran = true;
        api.on('tool_call', () => undefined, { name: 'guard', phase: 'authorize' });
      },
    });
    const host = await w.open([{ extension: strict, provides: { hooks: ['tool_call:authorize'] } }]);
    expect(ran).toBe(false);
    const d = host.diagnostics.find((x) => x.code === 'AIRLOCK_EXTENSION_SETTINGS_INVALID');
    expect(d?.extension).toBe('strict-guard');
    expect(d?.message).toContain('"strict-guard"');
    expect(d?.message).toContain(`limits.maxLines in ${w.userFile} (user settings): expected an integer ≤ 1000, got 5000`);
    // Fail closed, and the fix is the settings file, not dropping the guard.
    expect(host.blocked?.extension).toBe('strict-guard');
    expect(host.blocked?.fix).toContain(`correct limits.maxLines in ${w.userFile}`);
    expect(host.blocked?.fix).not.toContain('remove');
    const refused = await host.execute({ id: 'c1', name: 'ls', arguments: {} });
    expect(refused.outcome).toBe('denied');
  });

  it('a rule its schema refuses is named by its list and place in the file that holds it', async () => {
    const w = world({ project: { permissions: { deny: ['fs.read(**/.env)', { match: 'bash(rm *)', reason: 'no' }] } } });
    const stringsOnly = defineExtension({
      name: 'strings-only',
      settings: Type.Object({ permissions: Type.Array(Type.Object({ effect: Type.String(), rule: Type.String(), layer: Type.String(), file: Type.Optional(Type.String()) })) }),
      setup() {},
    });
    const host = await w.open([{ extension: stringsOnly, optional: true }]);
    const d = host.diagnostics.find((x) => x.code === 'AIRLOCK_EXTENSION_SETTINGS_INVALID');
    expect(d?.message).toContain(`permissions.deny[1] in ${w.projectFile} (project settings): expected a string`);
    expect(host.blocked).toBeUndefined();
  });

  it('a value no settings file sets, which its schema requires, says so', async () => {
    const w = world({});
    const needsEndpoint = defineExtension({
      name: 'needs-endpoint',
      settings: Type.Object({ telemetry: Type.Object({ endpoint: Type.String() }) }),
      setup() {},
    });
    const host = await w.open([{ extension: needsEndpoint, optional: true }]);
    const d = host.diagnostics.find((x) => x.code === 'AIRLOCK_EXTENSION_SETTINGS_INVALID');
    expect(d?.message).toContain('telemetry.endpoint (not set in any settings file): missing');
    expect(d?.fix).toContain('set telemetry.endpoint in your settings, or update the extension');
  });

  it('a declaration naming a key that is not a setting is the extension’s error, with the key it meant', async () => {
    const w = world({});
    const typo = { name: 'typo', settings: Type.Object({ permisions: Type.Array(Type.Unknown()) }), setup() {} };
    const host = await w.open([{ extension: typo, optional: true }]);
    const d = host.diagnostics.find((x) => x.code === 'AIRLOCK_EXTENSION_BAD_EXPORT');
    expect(d?.message).toContain('"settings" names "permisions", which is not a settings key. Did you mean "permissions"?');
  });
});
