import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { run } from '../src/index.js';
import { fakeRegistry, PUBLISHED } from './fake-registry.js';
import { testIO } from './test-io.js';

/**
 * `airlock extensions search`: a real HTTP registry on 127.0.0.1 (search API and packuments),
 * named by npm_config_registry as a person's environment would, and what the person sees.
 */

vi.setConfig({ testTimeout: scaledMs(20_000) });

async function airlock(args: string[], env: Record<string, string>) {
  const base = makeTempDir('airlock-search-');
  const io = testIO(base, join(base, 'home'));
  io.env = { ...io.env, PATH: process.env.PATH, ...env };
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

describe('airlock extensions search', () => {
  for (const like of ['npm', 'verdaccio'] as const) {
    it(`shows name, version, kind, kernel range and whether this CLI loads each package (a registry like ${like})`, async () => {
      const registry = await fakeRegistry(PUBLISHED, { like });
      onTestFinished(registry.close);
      const r = await airlock(['extensions', 'search', 'guard'], { npm_config_registry: registry.url });
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      if (process.env.SHOW_OUTPUT) console.log(r.out);
      expect(r.out).toContain(`Extension packages matching "guard" in ${registry.url}:`);
      expect(r.out).toMatch(/^NAME +VERSION +KIND +KERNEL +LOADS \(kernel 1\.0\.0\) +DESCRIPTION$/m);
      expect(r.out).toMatch(/^@acme\/airlock-guard +1\.2\.0 +policy +\^1\.0\.0 +yes +Denies pushes to main: a guard for git\.$/m);
      expect(r.out).toMatch(/^airlock-shout +0\.3\.0 +tool +\^9\.0\.0 +no: needs a newer Airlock +A tool that shouts/m);
      // Why, in the host's own words (the same check `extensions add` makes), under the table.
      expect(r.out).toContain('airlock-shout: Extension "airlock-shout" (airlock-shout@0.3.0) needs kernel "^9.0.0", but this Airlock runs kernel 1.0.0.');
      expect(r.out).not.toContain('guard-rails');
      // npm's form of the query first; a registry that takes `keywords:` as text gets the words alone next.
      expect(registry.requests[0]).toBe('/-/v1/search?text=keywords%3Aairlock-extension+guard&size=20');
      if (like === 'verdaccio') {
        expect(registry.requests[1]).toBe('/-/v1/search?text=guard&size=20');
        expect(r.out).toMatch(/^airlock-notes +2\.0\.0 +tool +>=1\.0\.0 +yes/m);
        expect(r.out).toContain('3 packages.');
      } else expect(r.out).toContain('2 packages.');
    });
  }

  it('--json: the same as data, scoped packuments asked for as npm does', async () => {
    const registry = await fakeRegistry(PUBLISHED);
    onTestFinished(registry.close);
    const r = await airlock(['--json', 'extensions', 'search', 'guard', '--limit', '5'], { npm_config_registry: registry.url.slice(0, -1) });
    expect(r.code).toBe(0);
    const data = JSON.parse(r.out) as { registry: string; kernelVersion: string; packages: { name: string; kind: string; kernel: string; loads: boolean; why?: string }[] };
    expect(data.registry).toBe(registry.url);
    expect(data.kernelVersion).toBe('1.0.0');
    expect(data.packages.map((p) => [p.name, p.kind, p.kernel, p.loads])).toEqual([
      ['@acme/airlock-guard', 'policy', '^1.0.0', true],
      ['airlock-shout', 'tool', '^9.0.0', false],
    ]);
    expect(data.packages[1]!.why).toContain('^9.0.0');
    expect(registry.requests).toContain('/@acme%2Fairlock-guard');
    expect(registry.requests[0]).toContain('size=5');
  });

  it('nothing found: says so, exit 0', async () => {
    const registry = await fakeRegistry(PUBLISHED);
    onTestFinished(registry.close);
    const r = await airlock(['extensions', 'search', 'kubernetes'], { npm_config_registry: registry.url });
    expect(r.code).toBe(0);
    expect(r.out).toContain('No extension packages match "kubernetes"');
  });

  it('an unreachable registry: names it and the fix, exit 2', async () => {
    const registry = await fakeRegistry([]);
    await registry.close(); // the port is free again: nothing listens there
    const r = await airlock(['extensions', 'search', 'guard'], { npm_config_registry: registry.url });
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toContain(`The npm registry ${registry.url} could not be reached: ECONNREFUSED`);
    expect(r.err).toContain('npm config get registry');
  });

  it('a bad --limit is a usage error', async () => {
    const r = await airlock(['extensions', 'search', 'guard', '--limit', '0'], { npm_config_registry: 'http://127.0.0.1:9/' });
    expect(r.code).toBe(2);
    expect(r.err).toContain('--limit must be a whole number from 1 to 250');
  });
});
