// The packages Airlock publishes: every folder with a package.json under packages/ and under
// extensions/<group>/ (the groups pnpm-workspace.yaml lists). Found by walking the folders, so a
// package added later is packed and checked without being named anywhere. examples/ and test/
// are workspace members that are never published.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * @param {string} root the workspace root
 * @returns {{ dir: string, path: string, manifest: Record<string, any> }[]} `path` is relative to root, with `/`
 * @example publishedPackages('/src/airlock').map((p) => p.manifest.name); // ['@airlock/agent', …, '@airlock/tool-write']
 */
export function publishedPackages(root) {
  const folders = (dir) => (existsSync(dir) ? readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort() : []);
  const paths = [
    ...folders(join(root, 'packages')).map((name) => `packages/${name}`),
    ...folders(join(root, 'extensions')).flatMap((group) => folders(join(root, 'extensions', group)).map((name) => `extensions/${group}/${name}`)),
  ];
  return paths
    .filter((path) => existsSync(join(root, path, 'package.json')))
    .map((path) => ({ dir: join(root, path), path, manifest: JSON.parse(readFileSync(join(root, path, 'package.json'), 'utf8')) }));
}
