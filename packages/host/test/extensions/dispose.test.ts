import { createTestHost } from '@airlock/kernel/testing';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createKernel } from '@airlock/kernel';
import { openHost, type Host } from '../../src/index.js';
import { loadExtensions } from '../../src/extensions/index.js';
import { dirsIn, entry, memoryLog, removeTempDirs, tempDir, writePackage } from './fixtures.js';

/**
 * Extension.dispose(api): cleanup when the host closes. Real packages whose dispose appends to a
 * real file, so the order and the `api` each one got are what the file says.
 */

const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
  removeTempDirs();
});

/** An extension whose setup keeps a token per api and whose dispose writes `name token` to `file`. */
function disposer(root: string, name: string, file: string, how: { delayMs?: number; throws?: string; setupThrows?: boolean } = {}): string {
  return writePackage(join(root, 'exts', name), {
    name,
    files: {
      'src/index.ts': `import { appendFileSync } from 'node:fs';
const tokens = new WeakMap<object, string>();
export default {
  name: ${JSON.stringify(name)},
  setup(api: any) {
    tokens.set(api, api.sessionId);
    ${how.setupThrows ? "throw new Error('setup broke');" : ''}
  },
  async dispose(api: any) {
    ${how.delayMs ? `await new Promise((r) => setTimeout(r, ${how.delayMs}));` : ''}
    appendFileSync(${JSON.stringify(file)}, ${JSON.stringify(name)} + ' ' + (tokens.get(api) === api.sessionId ? 'same-api' : 'other-api') + '\\n');
    ${how.throws ? `throw new Error(${JSON.stringify(how.throws)});` : ''}
  },
};
`,
    },
  });
}

const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : []);

describe('Extension.dispose', () => {
  it('host.close() runs each loaded extension’s dispose with its own api, newest first, one after another; a throw is logged and the rest still run', async () => {
    const root = tempDir();
    const home = join(root, 'home');
    const project = join(root, 'project');
    mkdirSync(join(home, '.config', 'airlock'), { recursive: true });
    mkdirSync(project, { recursive: true });
    const order = join(root, 'order.log');
    const first = disposer(root, 'first', order);
    // Slow: if dispose calls were not awaited one by one, "third" and "second" would come before it.
    const second = disposer(root, 'second', order, { delayMs: 80, throws: 'flush failed' });
    const third = disposer(root, 'third', order);
    const broken = disposer(root, 'broken', order, { setupThrows: true });
    writeFileSync(
      join(home, '.config', 'airlock', 'settings.json'),
      JSON.stringify({ extensions: [{ path: first }, { path: second }, { path: broken, optional: true }, { path: third }] }),
    );
    const said: string[] = [];
    const host = await openHost({ cwd: project, interactive: false, env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config') }, homeDir: home, log: (l) => void said.push(l) });
    expect(host.blocked).toBeUndefined();
    expect(lines(order)).toEqual([]);

    await host.close();
    // The one whose setup failed was rolled back; it has nothing to dispose.
    expect(lines(order)).toEqual(['third same-api', 'second same-api', 'first same-api']);
    expect(said.some((l) => l.includes('[second] dispose failed: flush failed'))).toBe(true);
  });

  it('kernel.dispose() runs them too, for an SDK user who composed createKernel and loadExtensions', async () => {
    const root = tempDir();
    const order = join(root, 'order.log');
    const { kernel, services } = createTestHost({ cwd: root, spill: { dir: join(root, 'spill') } });
    await loadExtensions({ entries: [entry(disposer(root, 'a', order), root), entry(disposer(root, 'b', order), root)], kernel, services, trust: { trusted: true, projectDir: root }, dirs: dirsIn(root), cwd: root, defaults: false, log: memoryLog() });
    await kernel.dispose();
    expect(lines(order)).toEqual(['b same-api', 'a same-api']);
  });

  it('a dispose that is not a function fails the load, saying what it must be', async () => {
    const root = tempDir();
    const pkg = writePackage(join(root, 'exts', 'odd'), { name: 'odd', files: { 'src/index.ts': `export default { name: 'odd', setup() {}, dispose: 'later' };\n` } });
    const { kernel, services } = createTestHost({ cwd: root, spill: { dir: join(root, 'spill') } });
    const result = await loadExtensions({ entries: [entry(pkg, root, { optional: true })], kernel, services, trust: { trusted: true, projectDir: root }, dirs: dirsIn(root), cwd: root, defaults: false });
    expect(result.loaded).toEqual([]);
    expect(result.diagnostics.map((d) => d.code)).toContain('AIRLOCK_EXTENSION_BAD_EXPORT');
    expect(result.diagnostics.map((d) => d.message).join('\n')).toContain('"dispose" must be a function (api) => void | Promise<void> when given, got string');
    await kernel.dispose();
  });
});
