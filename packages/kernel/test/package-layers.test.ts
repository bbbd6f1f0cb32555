import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The packages import downward only. The contract (what an extension compiles against) imports no
 * Airlock package; the toolkit only the contract; the kernel only those two. Extensions and their
 * libraries never import the kernel: the host hands them the one kernel there is (a second copy
 * would be a second mutation queue). Hosts, servers and programs sit on top, in that order.
 */

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** Lower ranks are lower layers; a package may import only packages of a lower rank. */
function rankOf(name: string, path: string): number {
  if (name === '@airlock/contract') return 0;
  if (name === '@airlock/toolkit') return 1;
  if (name === '@airlock/kernel') return 2;
  if (path.startsWith('extensions/lib/')) return 3;
  if (path.startsWith('extensions/')) return 4;
  if (name === '@airlock/agent') return 4;
  if (name === '@airlock/host') return 5;
  if (name === '@airlock/serve') return 6;
  return 7; // programs: the CLI, the SDK
}

interface Workspace {
  name: string;
  path: string;
  rank: number;
  imports: Set<string>;
}

function sources(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

function workspaces(): Workspace[] {
  const folders = (dir: string) => readdirSync(join(ROOT, dir), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => `${dir}/${e.name}`);
  const paths = [...folders('packages'), ...['extensions/lib', 'extensions/tools', 'extensions/policy'].flatMap(folders)].filter((p) => existsSync(join(ROOT, p, 'package.json')));
  return paths.map((path) => {
    const name = (JSON.parse(readFileSync(join(ROOT, path, 'package.json'), 'utf8')) as { name: string }).name;
    const imports = new Set<string>();
    for (const file of sources(join(ROOT, path, 'src'))) {
      const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
      for (const [, dep] of code.matchAll(/(?:from|import)\s*\(?\s*'(@airlock\/[a-z-]+)(?:\/[^']*)?'/g)) if (dep !== name) imports.add(dep!);
    }
    return { name, path, rank: rankOf(name, path), imports };
  });
}

describe('Airlock packages import downward only', () => {
  const all = workspaces();
  const byName = new Map(all.map((w) => [w.name, w]));

  it('finds the three core packages and the extensions (a moved folder would make the rules vacuous)', () => {
    for (const name of ['@airlock/contract', '@airlock/toolkit', '@airlock/kernel', '@airlock/host', '@airlock/tool-read', '@airlock/path-policy', '@airlock/tool-common']) expect(byName.has(name), name).toBe(true);
    expect(byName.get('@airlock/kernel')!.imports).toEqual(new Set(['@airlock/contract', '@airlock/toolkit']));
  });

  it('each package imports only packages of a lower layer', () => {
    const offenders: string[] = [];
    for (const w of all) {
      for (const dep of w.imports) {
        const target = byName.get(dep);
        if (target === undefined) continue;
        if (target.rank >= w.rank) offenders.push(`${w.name} (layer ${w.rank}) → ${dep} (layer ${target.rank})`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('no extension or extension library imports the kernel: they get it from the host', () => {
    const offenders = all.filter((w) => w.path.startsWith('extensions/') && w.imports.has('@airlock/kernel')).map((w) => w.name);
    expect(offenders).toEqual([]);
  });

  it('the contract imports no Airlock package, and the toolkit only the contract', () => {
    expect([...byName.get('@airlock/contract')!.imports]).toEqual([]);
    expect([...byName.get('@airlock/toolkit')!.imports]).toEqual(['@airlock/contract']);
  });
});
