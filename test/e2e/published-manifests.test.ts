import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_EXTENSIONS } from '@airlock/host';
import { publishedPackages } from '../../scripts/workspace-packages.mjs';
import { ROOT } from './harness.js';

/**
 * What every published package's package.json must say, checked on whatever packages exist under
 * packages/ and extensions/ (a package added later is checked without being listed here). The
 * tarballs themselves are installed and run in install-packed.test.ts.
 */
const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { license: string; repository: { url: string }; engines: { node: string } };
const packages = publishedPackages(ROOT);

/** Whether a path inside the package is among the files `files` publishes. */
function published(files: string[], target: string): boolean {
  const path = target.replace(/^\.\//, '');
  return path === 'package.json' || files.some((f) => path === f || path.startsWith(`${f.replace(/\/$/, '')}/`));
}

function targets(exports: unknown): string[] {
  if (typeof exports === 'string') return [exports];
  if (exports === null || typeof exports !== 'object') return [];
  return Object.values(exports).flatMap(targets);
}

describe('published package manifests', () => {
  it('finds the packages under packages/ and extensions/', () => {
    const names = packages.map((p) => p.manifest.name as string);
    expect(names).toEqual(expect.arrayContaining(['@airlock/kernel', '@airlock/host', '@airlock/cli', '@airlock/tool-read', '@airlock/path-policy', '@airlock/secrets']));
    expect(existsSync(join(ROOT, 'LICENSE'))).toBe(true);
  });

  it.each(packages.map((p) => [p.path, p] as const))('%s is ready to publish', (path, { dir, manifest }) => {
    const problems: string[] = [];
    if (manifest.private !== undefined) problems.push('"private" is set; every package here is published');
    if (manifest.license !== root.license) problems.push(`license is ${JSON.stringify(manifest.license)}, not the repository's ${root.license}`);
    if (manifest.repository?.url !== root.repository.url || manifest.repository?.directory !== path) problems.push(`repository must be { url: ${root.repository.url}, directory: ${path} }`);
    if (manifest.engines?.node !== root.engines.node) problems.push(`engines.node must be ${root.engines.node}`);
    if (!existsSync(join(dir, 'README.md'))) problems.push('no README.md');
    if (typeof manifest.version !== 'string' || typeof manifest.description !== 'string') problems.push('version and description are required');

    const files: unknown = manifest.files;
    if (!Array.isArray(files) || files.length === 0) problems.push('no "files": the tarball would carry tests and build leftovers');
    const list = Array.isArray(files) ? (files as string[]) : [];
    for (const file of list) if (/(^|\/)test(\/|$)/.test(file)) problems.push(`"files" publishes tests (${file})`);

    const exports = manifest.exports as Record<string, unknown> | undefined;
    if (exports === undefined || typeof exports !== 'object') problems.push('no "exports" map');
    for (const [subpath, entry] of Object.entries(exports ?? {})) {
      if (subpath === './package.json') continue;
      const conditions = typeof entry === 'object' && entry !== null ? Object.keys(entry) : [];
      if (!conditions.includes('types') || !conditions.includes('default')) problems.push(`exports["${subpath}"] needs "types" and "default" conditions`);
      // Plain Node ignores "source"; the last condition is what it loads.
      if (conditions.at(-1) !== 'default') problems.push(`exports["${subpath}"]: "default" must come last`);
    }
    const shipped = [...targets(exports), ...Object.values((manifest.bin as Record<string, string> | undefined) ?? {})];
    if (manifest.airlock?.extension !== undefined) shipped.push(manifest.airlock.extension as string);
    // Command modules are imported from the package when their command runs.
    for (const command of (manifest.airlock?.commands as { module: string }[] | undefined) ?? []) shipped.push(command.module);
    for (const target of shipped) if (!published(list, target)) problems.push(`${target} is named by the manifest but not in "files"`);
    // Source files a published package loads must exist in the checkout (dist/ appears at build).
    for (const target of shipped) if (!target.includes('dist/') && !existsSync(join(dir, target))) problems.push(`${target} does not exist`);

    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies'] as const) {
      for (const [name, range] of Object.entries((manifest[field] as Record<string, string> | undefined) ?? {})) {
        if (range.startsWith('workspace:') && !packages.some((p) => p.manifest.name === name)) problems.push(`${field} ${name} is a workspace package that is never published`);
        if (range.startsWith('file:') || range.startsWith('link:')) problems.push(`${field} ${name} points at a local folder (${range})`);
      }
    }
    expect(problems).toEqual([]);
  });

  // The host finds its default set among the installed packages; one missing is only a warning at run time.
  it('@airlock/sdk depends on every extension the host loads by default, so an install finds them', () => {
    const manifest = packages.find((p) => p.manifest.name === '@airlock/sdk')!.manifest;
    const missing = DEFAULT_EXTENSIONS.filter((ext) => manifest.dependencies?.[ext] === undefined);
    expect(missing).toEqual([]);
  });

  // The CLI's code imports no extension (they bring their commands themselves, issue 12): its own
  // manifest names none, and scripts/pack.mjs bundles the default set into the installable
  // tarball from the host's list (install-packed.test.ts checks all of them load from an install).
  it('@airlock/cli depends on no extension in its own manifest', () => {
    const manifest = packages.find((p) => p.manifest.name === '@airlock/cli')!.manifest;
    expect(DEFAULT_EXTENSIONS.filter((ext) => manifest.dependencies?.[ext] !== undefined)).toEqual([]);
  });
});
