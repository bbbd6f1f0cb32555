import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createKernel } from '@airlock/kernel';
import { type EventSink } from '@airlock/contract';
import extension, { defaultAuditPath, installAuditLog, projectRoot, resolveAuditPath, resolveOptions } from '../src/index.js';
import { apiFor, closeLoggers, echo, readRecords, tempDir, track, removeTempDirs } from './helpers.js';

afterEach(async () => {
  await closeLoggers();
  removeTempDirs();
});

describe('the extension package', () => {
  it('declares its two observe hooks in the manifest and registers exactly those', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { airlock: { provides: { hooks: string[] } } };
    expect(pkg.airlock.provides.hooks).toEqual(['tool_call:observe', 'tool_result:observe']);
    const dir = tempDir();
    const kernel = createKernel({ cwd: dir, spill: { dir: join(dir, 'spill') } });
    extension.setup(apiFor(kernel, dir, []), { ...resolvedDefaults(), path: join(dir, 'audit.jsonl') });
    expect(kernel.status().handlers.map((h) => `${h.hook}:${h.phase}:${h.name}`)).toEqual([
      'tool_call:observe:audit-log/decisions',
      'tool_result:observe:audit-log/results',
    ]);
  });

  it('options: defaults filled in, bad values refused with a message that says where to look', () => {
    expect(resolvedDefaults()).toEqual({ fsync: 'interval', fsyncIntervalMs: 1000, maxBytes: 10 * 1024 * 1024, maxFiles: 10, storeContent: false, allow: [] });
    const bad = resolveOptions({ fsync: 'sometimes' as never, maxFiles: 1 });
    expect(bad).toMatchObject({ ok: false, message: expect.stringMatching(/fsync: expected one of .*maxFiles: expected an integer ≥ 2, got 1/) });
    expect(() => installAuditLog(apiFor(createKernel(), tempDir(), []), { maxBytes: 0 })).toThrow(/Invalid audit-log options: maxBytes: expected an integer ≥ 1, got 0/);
  });

  it('the allow option keeps a listed value out of redaction', async () => {
    const dir = tempDir();
    const kernel = createKernel({ cwd: dir, spill: { dir: join(dir, 'spill') } });
    kernel.registry.register(echo, { source: 'sdk' });
    const token = `ghp_${'Z9y8X7w6V5'.repeat(4)}`;
    const path = join(dir, 'audit.jsonl');
    track(installAuditLog(apiFor(kernel, dir, []), { path, fsync: 'never', allow: [token] }, { env: {}, home: dir }));
    await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: token } });
    expect(readRecords(path)[0]).toMatchObject({ args: { text: token } });
  });
});

describe('where the log goes', () => {
  it('by default: the user state folder, one folder per project (the git root), nothing in the project', async () => {
    const home = tempDir();
    const project = join(tempDir(), 'shop');
    mkdirSync(join(project, '.git'), { recursive: true });
    mkdirSync(join(project, 'src', 'deep'), { recursive: true });
    const path = defaultAuditPath(project, { env: {}, home });
    expect(path).toMatch(new RegExp(`^${home}/\\.local/state/airlock/audit/shop-[0-9a-f]{8}/audit\\.jsonl$`));
    expect(defaultAuditPath(join(project, 'src', 'deep'), { env: {}, home })).toBe(path);
    expect(projectRoot(join(project, 'src'))).toBe(project);
    expect(defaultAuditPath(project, { env: { XDG_STATE_HOME: '/var/state' }, home })).toMatch(/^\/var\/state\/airlock\/audit\/shop-/);
    // A relative XDG_STATE_HOME is ignored, as the XDG spec says.
    expect(defaultAuditPath(project, { env: { XDG_STATE_HOME: 'rel' }, home })).toBe(path);
    expect(defaultAuditPath(join(tempDir(), 'shop'), { env: {}, home })).not.toBe(path);

    const kernel = createKernel({ cwd: project, spill: { dir: join(home, 'spill') } });
    kernel.registry.register(echo, { source: 'sdk' });
    const listeners: EventSink[] = [];
    track(installAuditLog(apiFor(kernel, project, listeners), {}, { env: {}, home }));
    await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } });
    expect(readRecords(path)).toHaveLength(2);
  });

  it('the path option: relative to the project, ~/ in the home folder', () => {
    const where = { env: {}, home: '/home/ada' };
    expect(resolveAuditPath('logs/a.jsonl', '/p', where)).toBe('/p/logs/a.jsonl');
    expect(resolveAuditPath('~/a.jsonl', '/p', where)).toBe('/home/ada/a.jsonl');
    expect(resolveAuditPath('/abs/a.jsonl', '/p', where)).toBe('/abs/a.jsonl');
  });

  it('~/ is the HOME of the host\'s environment (where `audit verify` looks), not the process\'s', async () => {
    const home = tempDir();
    const project = tempDir();
    const kernel = createKernel({ cwd: project, env: { HOME: home, XDG_STATE_HOME: join(home, 'state') }, spill: { dir: join(home, 'spill') } });
    kernel.registry.register(echo, { source: 'sdk' });
    track(installAuditLog(apiFor(kernel, project, []), { path: '~/logs/a.jsonl', fsync: 'never' }));
    await kernel.executeToolCall({ id: 'c', name: 'echo', arguments: { text: 'x' } });
    expect(readRecords(join(home, 'logs', 'a.jsonl'))).toHaveLength(2);
  });
});

function resolvedDefaults() {
  const r = resolveOptions({});
  if (!r.ok) throw new Error(r.message);
  return r.value;
}
