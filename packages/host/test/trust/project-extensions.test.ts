import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createKernel } from '@airlock/kernel';
import { loadExtensions, resolveTrust, setTrust } from '../../src/extensions/index.js';
import { dirsIn, testHost, entry, removeTempDirs, tempDir, toolPackage, writePackage } from '../extensions/fixtures.js';

afterAll(removeTempDirs);

/**
 * A project whose settings name two extensions (a path and a bare name from its node_modules),
 * plus one user-layer and one CLI-layer extension. Importing a project extension would throw,
 * so an untrusted run proves its code never ran.
 */
function world() {
  const root = tempDir('airlock-trust-');
  const project = join(root, 'work', 'repo');
  const file = join(project, '.airlockrc.json');
  const trustFile = join(root, 'config', 'trust.json');
  const planted = `globalThis.__airlockPlanted = true;\nthrow new Error('project code ran');\nexport default {};\n`;
  writePackage(join(project, 'tools', 'local'), { name: 'local-ext', files: { 'src/index.ts': planted } });
  writePackage(join(project, 'node_modules', 'proj-ext'), {
    name: 'proj-ext',
    provides: { hooks: ['tool_call:authorize'] },
    files: { 'src/index.ts': planted },
  });
  toolPackage(join(root, 'user', 'node_modules', 'user-ext'), 'user-ext', 'user_tool');
  toolPackage(join(root, 'elsewhere', 'cli-ext'), 'cli-ext', 'cli_tool');
  const entries = [
    entry('./tools/local', project, { layer: 'project', file }),
    entry('proj-ext', project, { layer: 'project', file }),
    entry('user-ext', join(root, 'config'), { layer: 'user', file: join(root, 'config', 'settings.json') }),
    entry(join(root, 'elsewhere', 'cli-ext'), root, { layer: 'cli' }),
  ];
  const load = (trusted: boolean) =>
    loadExtensions({ entries, ...testHost(project), trust: { trusted, projectDir: project }, dirs: dirsIn(root), cwd: project });
  return { root, project, trustFile, load };
}

describe('project extensions and trust', () => {
  it('skips and reports each untrusted project extension, and still loads user and CLI ones', async () => {
    const { project, load } = world();
    const result = await load(false);
    expect((globalThis as Record<string, unknown>).__airlockPlanted).toBeUndefined();
    expect(result.diagnostics.map((d) => [d.code, d.extension])).toEqual([
      ['AIRLOCK_EXTENSION_UNTRUSTED', './tools/local'],
      ['AIRLOCK_EXTENSION_UNTRUSTED', 'proj-ext'],
    ]);
    for (const d of result.diagnostics) {
      expect(d.severity).toBe('warning');
      expect(d.fix).toContain(`airlock trust ${project}`);
      expect(d.fix).toContain('--trust');
    }
    // The policy it would have enforced is said to be off; an untrusted project cannot force a lockdown.
    expect(result.diagnostics[1]!.message).toContain('NOT in force');
    expect(result.blocked).toBeUndefined();
    expect(result.extensions.map((e) => [e.spec.split('/').pop(), e.status])).toEqual([
      ['local', 'skipped'],
      ['proj-ext', 'skipped'],
      ['user-ext', 'loaded'],
      ['cli-ext', 'loaded'],
    ]);
  });

  it('loads project extensions once the project (or a parent) is trusted', async () => {
    const { root, project, trustFile, load } = world();
    await setTrust(join(root, 'work'), true, { trustFile });
    const trust = await resolveTrust({ projectDir: project, interactive: false, trustFile });
    expect(trust.trusted).toBe(true);
    const result = await load(trust.trusted);
    // Now the planted code runs (and fails): proof that trust is what stood in the way.
    expect(result.diagnostics.map((d) => d.code)).toEqual(['AIRLOCK_EXTENSION_IMPORT_FAILED', 'AIRLOCK_EXTENSION_IMPORT_FAILED']);
    expect(result.blocked?.extensions).toContain('proj-ext');
    delete (globalThis as Record<string, unknown>).__airlockPlanted;
  });

  it('does not trust a project without a TTY by default, whatever its own settings say', async () => {
    const { project, trustFile } = world();
    mkdirSync(join(project, 'sub'), { recursive: true });
    const trust = await resolveTrust({ projectDir: join(project, 'sub'), interactive: false, trustFile });
    expect(trust.trusted).toBe(false);
  });
});
