import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { fakeRegistry, PUBLISHED } from '../../packages/cli/test/fake-registry.js';
import { sandbox } from './harness.js';

/**
 * `airlock extensions search` and `extensions catalog --registry` from the real binary, as a
 * person runs them: the registry comes from the environment npm reads (npm_config_registry), and
 * the registry is a real HTTP server on 127.0.0.1 answering the search API and packuments.
 */

describe('airlock extensions search (the binary)', () => {
  it('shows what the registry has and whether this CLI loads it; --json for programs', async () => {
    const registry = await fakeRegistry(PUBLISHED, { like: 'verdaccio' });
    onTestFinished(registry.close);
    const s = sandbox();
    const env = { npm_config_registry: registry.url };
    const r = await s.airlock(['extensions', 'search', 'guard'], { env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^@acme\/airlock-guard +1\.2\.0 +policy +\^1\.0\.0 +yes /m);
    expect(r.stdout).toMatch(/^airlock-shout +0\.3\.0 +tool +\^9\.0\.0 +no: needs a newer Airlock /m);
    expect(r.stdout).not.toContain('guard-rails');

    const json = await s.airlock(['--json', 'extensions', 'search', 'guard'], { env });
    const data = JSON.parse(json.stdout) as { registry: string; packages: { name: string; loads: boolean }[] };
    expect(data.registry).toBe(registry.url);
    expect(data.packages.map((p) => [p.name, p.loads])).toEqual([['@acme/airlock-guard', true], ['airlock-shout', false], ['airlock-notes', true]]);

    const catalog = await s.airlock(['extensions', 'catalog', '--registry', 'guard'], { env });
    expect(catalog.code).toBe(0);
    expect(catalog.stdout).toContain('## @acme/airlock-guard');
  });

  it('an unreachable registry: exit 2, the registry named, the fix given', async () => {
    const registry = await fakeRegistry([]);
    await registry.close();
    const s = sandbox();
    const r = await s.airlock(['extensions', 'search', 'guard'], { env: { npm_config_registry: registry.url, npm_config_userconfig: join(s.home, '.npmrc') } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`The npm registry ${registry.url} could not be reached: ECONNREFUSED`);
    expect(r.stderr).toContain('npm config set registry');
  });
});
