import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { KernelEvent } from '@airlock/contract';
import { openHost, type Host } from '../../src/index.js';
import { removeTempDirs, tempDir, toolPackage, writePackage } from './fixtures.js';

const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
  removeTempDirs();
});

/**
 * A machine with a user settings file that loads a `watch` extension (its `setup` body given; it
 * may append to `heard`) and a `tool` extension with a `ping` tool, and a host opened on it.
 */
async function hostWithWatcher(setupBody: (heard: string) => string) {
  const root = tempDir();
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(join(home, '.config', 'airlock'), { recursive: true });
  mkdirSync(project, { recursive: true });
  const heard = join(root, 'heard.log');
  const watch = writePackage(join(root, 'exts', 'watch'), {
    name: 'watch',
    files: { 'src/index.ts': `import { appendFileSync } from 'node:fs';\nexport default { name: 'watch', setup(api: any) {\n${setupBody(JSON.stringify(heard))}\n} };\n` },
  });
  const tool = toolPackage(join(root, 'exts', 'tool'), 'tool', 'ping');
  writeFileSync(join(home, '.config', 'airlock', 'settings.json'), JSON.stringify({ extensions: [{ path: watch }, { path: tool }] }));
  const warnings: string[] = [];
  const host = await openHost({ cwd: project, interactive: false, env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config') }, homeDir: home, log: (m) => void warnings.push(m) });
  hosts.push(host);
  return { host, heard, warnings };
}

describe('api.onEvent through a real host', () => {
  it('an extension hears each call once, from host.execute, host.batch and host.kernel alike; the caller’s own sink still gets its run', async () => {
    const { host, heard } = await hostWithWatcher(
      (heard) => `  api.onEvent((e: any) => { if (e.type === 'tool_execution_end') appendFileSync(${heard}, e.toolCallId + ' ' + e.result.outcome + '\\n'); });`,
    );
    expect(host.blocked).toBeUndefined();

    const mine: KernelEvent[] = [];
    await host.execute({ id: 'execute', name: 'ping', arguments: { text: 'a' } }, { onEvent: (e) => void mine.push(e) });
    await host.batch([{ id: 'batch', name: 'ping', arguments: { text: 'b' } }]);
    await host.kernel.executeToolCall({ id: 'kernel', name: 'ping', arguments: { text: 'c' } });
    await host.kernel.executeBatch([{ id: 'kernel-batch', name: 'ping', arguments: {} }]);

    expect(readFileSync(heard, 'utf8').trim().split('\n')).toEqual(['execute ok', 'batch ok', 'kernel ok', 'kernel-batch invalid']);
    expect(mine.map((e) => `${e.type} ${e.toolCallId}`)).toContain('tool_execution_end execute');
    expect(new Set(mine.map((e) => e.toolCallId))).toEqual(new Set(['execute']));
  });
});

describe('api.onAgentActivity and api.loadedExtensions through a real host', () => {
  it('an extension hears what a loop reports to the host’s kernel, and can name every loaded extension with its version', async () => {
    const { host, heard, warnings } = await hostWithWatcher(
      (heard) => `  const during = api.loadedExtensions().map((e: any) => e.name).join(',');
  api.onAgentActivity((a: any) => {
    appendFileSync(${heard}, a.type + ' ' + a.turnId + ' [' + api.loadedExtensions().map((e: any) => e.name + '@' + e.packageName + '@' + e.version).join(',') + '] during-setup=' + during + '\\n');
    if (a.type === 'turn_end') throw new Error('watch broke');
  });`,
    );
    expect(host.blocked).toBeUndefined();

    host.services.activity.emit({ type: 'turn_start', runId: 'r', turnId: 'r:1', turn: 1 });
    host.services.activity.emit({ type: 'turn_end', runId: 'r', turnId: 'r:1', turn: 1, toolCalls: 0 });

    const lines = readFileSync(heard, 'utf8').trim().split('\n');
    const versions = host.extensions.loaded.filter((e) => e.name === 'watch' || e.name === 'tool').map((e) => `${e.name}@${e.packageName}@${e.version}`);
    expect(versions).toHaveLength(2);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^turn_start r:1 \[/);
    for (const v of versions) expect(lines[0]).toContain(v);
    // During its own setup the list held only what had loaded before it.
    expect(lines[0]).not.toMatch(/during-setup=.*watch/);
    expect(warnings.some((w) => w.includes('[watch] agent activity listener failed on turn_end') && w.includes('watch broke'))).toBe(true);
  });
});
