import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * No extension imports another (architecture.md, issue 12): each loads, fails and is replaced on
 * its own, and what two share lives in a library under extensions/lib (or the kernel's util). A
 * package is an extension when its manifest names an `airlock.extension` entry.
 */

const ROOT = join(import.meta.dirname, '../..');
const folders = ['tools', 'policy', 'lib'].flatMap((group) => {
  const dir = join(ROOT, 'extensions', group);
  return existsSync(dir) ? readdirSync(dir).map((name) => join(dir, name)).filter((d) => existsSync(join(d, 'package.json'))) : [];
});
const manifests = folders.map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; airlock?: { extension?: string }; dependencies?: Record<string, string> } }));
const extensionNames = new Set(manifests.filter((m) => m.manifest.airlock?.extension !== undefined).map((m) => m.manifest.name));

function sources(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => /\.(ts|mts|js|mjs)$/.test(f)).map((f) => join(dir, f));
}

describe('extensions are independent of each other', () => {
  it('finds the extensions and the libraries', () => {
    expect(extensionNames).toContain('@airlock/path-policy');
    expect(extensionNames).toContain('@airlock/tool-bash');
    expect(extensionNames).not.toContain('@airlock/secrets');
  });

  it.each(manifests.map((m) => [relative(ROOT, m.dir), m] as const))('%s: no run-time dependency on, and no source import of, another extension', (_where, { dir, manifest }) => {
    const others = [...extensionNames].filter((n) => n !== manifest.name);
    expect(Object.keys(manifest.dependencies ?? {}).filter((d) => others.includes(d))).toEqual([]);
    const imports = sources(join(dir, 'src')).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/(?:from\s+|import\s*\(\s*)['"](@airlock\/[a-z0-9-]+)/g)].map((m) => `${relative(ROOT, file)}: ${m[1]}`),
    );
    expect(imports.filter((line) => others.some((n) => line.endsWith(`: ${n}`)))).toEqual([]);
  });
});
