import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import Type from 'typebox';
import { defineExtension, type ToolCallEvent } from '@airlock/contract';
import { makeTempDir } from '@airlock/kernel/testing';
import { openHost, SettingsError, type Host, type OpenHostOptions } from '../../src/index.js';

/**
 * Extension modules and settings handed to the host in code (what the SDK's createAirlock passes):
 * they load through the same path as packages named in settings files, so a denying module is
 * honoured, a failing policy module blocks every tool, and the settings object is a real layer.
 * Real files, real tools (read, write), a real home folder of the test's own.
 */

const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

function world() {
  const root = makeTempDir('airlock-inline-');
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(join(home, '.config', 'airlock'), { recursive: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'notes.txt'), 'hello notes\n');
  writeFileSync(join(project, 'secret.txt'), 'TOP-SECRET-VALUE\n');
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(root, 'state'), PATH: process.env.PATH ?? '/usr/bin:/bin' };
  const open = async (extra: Partial<OpenHostOptions>) => {
    const host = await openHost({ cwd: project, interactive: false, env, homeDir: home, ...extra });
    hosts.push(host);
    return host;
  };
  return { project, open };
}

/** Denies any call whose arguments mention "secret". */
const noSecrets = defineExtension({
  name: 'no-secrets',
  setup(api) {
    api.on(
      'tool_call',
      (event: ToolCallEvent) => (JSON.stringify(event.args).includes('secret') ? { effect: 'deny', reason: 'secrets stay out of reach' } : undefined),
      { name: 'deny-secrets', phase: 'authorize' },
    );
  },
});

const textOf = (m: { content: readonly { type: string; text?: string }[] }) => m.content.map((c) => c.text ?? '').join('');

describe('extension modules in code', () => {
  it('honours a module that denies: the secret is not read, other files still are', async () => {
    const w = world();
    const host = await w.open({ modules: [{ extension: noSecrets, provides: { hooks: ['tool_call:authorize'] } }] });
    expect(host.blocked).toBeUndefined();
    expect(host.extensions.loaded.map((e) => e.name)).toContain('no-secrets');
    const denied = await host.execute({ id: 'c1', name: 'read', arguments: { path: 'secret.txt' } });
    expect(denied.outcome).toBe('denied');
    expect(textOf(denied)).toContain('secrets stay out of reach');
    expect(textOf(denied)).not.toContain('TOP-SECRET-VALUE');
    const ok = await host.execute({ id: 'c2', name: 'read', arguments: { path: 'notes.txt' } });
    expect(ok.outcome).toBe('ok');
    expect(textOf(ok)).toContain('hello notes');
  });

  it('takes a module namespace (import * as m) as well as the object', async () => {
    const w = world();
    const host = await w.open({ modules: [{ extension: { default: noSecrets } }] });
    expect((await host.execute({ id: 'c1', name: 'read', arguments: { path: 'secret.txt' } })).outcome).toBe('denied');
  });

  it('registers a tool from a module, with its options checked against its schema', async () => {
    const w = world();
    const greeter = defineExtension({
      name: 'greeter',
      options: Type.Object({ greeting: Type.String() }),
      setup(api, options) {
        api.registerTool({
          name: 'greet',
          label: 'Greet',
          description: 'Greets someone.',
          parameters: Type.Object({ who: Type.String() }),
          execute: async (_id, p) => ({ content: [{ type: 'text', text: `${options.greeting}, ${(p as { who: string }).who}` }] }),
        });
      },
    });
    const host = await w.open({ modules: [{ extension: greeter, options: { greeting: 'Hi' } }] });
    const result = await host.execute({ id: 'c1', name: 'greet', arguments: { who: 'Ada' } });
    expect(textOf(result)).toBe('Hi, Ada');
    expect(host.selection.has('greet')).toBe(true);

    // Wrong options: the module does not load, and (listed in code, not optional) nothing runs.
    const bad = await w.open({ modules: [{ extension: greeter, options: { greeting: { text: 'Hi' } } }] });
    expect(bad.diagnostics.map((d) => d.code)).toContain('AIRLOCK_EXTENSION_OPTIONS_INVALID');
    expect(bad.blocked?.extensions).toEqual(['greeter']);
  });

  it('fails closed: a policy module whose setup throws blocks every tool, and no file is written', async () => {
    const w = world();
    const broken = defineExtension({
      name: 'broken-guard',
      setup() {
        throw new Error('cannot reach the policy server');
      },
    });
    const host = await w.open({ modules: [{ extension: broken, provides: { hooks: ['tool_call:authorize'] } }] });
    expect(host.blocked?.extension).toBe('broken-guard');
    expect(host.blocked?.message).toContain('cannot reach the policy server');
    const target = join(w.project, 'out.txt');
    const result = await host.execute({ id: 'c1', name: 'write', arguments: { path: 'out.txt', content: 'x' } });
    expect(result.outcome).toBe('denied');
    expect(textOf(result)).toContain('broken-guard');
    expect(existsSync(target)).toBe(false);
  });

  it('fails closed for a module with a malformed manifest, and goes on without an optional one', async () => {
    const w = world();
    const plain = defineExtension({ name: 'plain', setup() {} });
    const host = await w.open({ modules: [{ extension: plain, provides: { hooks: ['tool_call:authorise'] } }] });
    expect(host.diagnostics.find((d) => d.code === 'AIRLOCK_EXTENSION_MANIFEST_INVALID')?.message).toContain('authorise');
    expect((await host.execute({ id: 'c1', name: 'read', arguments: { path: 'notes.txt' } })).outcome).toBe('denied');

    const failing = defineExtension({ name: 'extra', setup: () => Promise.reject(new Error('nope')) });
    const relaxed = await w.open({ modules: [{ extension: failing, optional: true }] });
    expect(relaxed.blocked).toBeUndefined();
    expect((await relaxed.execute({ id: 'c2', name: 'read', arguments: { path: 'notes.txt' } })).outcome).toBe('ok');
  });

  it('refuses something that is not an extension, saying what was expected', async () => {
    const w = world();
    const host = await w.open({ modules: [{ extension: () => ({}), name: 'factory' }] });
    const d = host.diagnostics.find((x) => x.code === 'AIRLOCK_EXTENSION_BAD_EXPORT');
    expect(d?.message).toContain('function');
    expect(host.blocked?.extensions).toEqual(['factory']);
  });
});

describe('settings in code', () => {
  it('apply as a layer: a deny rule in code stops the read', async () => {
    const w = world();
    const host = await w.open({ settings: { permissions: { deny: ['fs.read(**/secret.txt)'] } } });
    const denied = await host.execute({ id: 'c1', name: 'read', arguments: { path: 'secret.txt' } });
    expect(denied.outcome).toBe('denied');
    expect(textOf(denied)).not.toContain('TOP-SECRET-VALUE');
    expect((await host.execute({ id: 'c2', name: 'read', arguments: { path: 'notes.txt' } })).outcome).toBe('ok');
    expect(host.settings.layers.map((l) => l.name)).toContain('code');
  });

  it('sit under the flags: a tools allowlist in code, narrowed again by a flag', async () => {
    const w = world();
    const host = await w.open({ settings: { tools: { allow: ['read', 'ls'] } }, flags: { excludeTools: ['ls'] } });
    expect([...host.selection.enabledNames]).toEqual(['read']);
  });

  it('are validated like a file: a bad value throws, naming the settings passed in code', async () => {
    const w = world();
    const error = await w.open({ settings: { execution: { maxConcurrency: 0 } } as never }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as Error).message).toContain('settings passed in code');
    expect((error as Error).message).toContain('execution.maxConcurrency');
  });
});
