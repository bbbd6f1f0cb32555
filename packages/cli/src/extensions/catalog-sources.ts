import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runPackageManager } from './package-manager.js';
import { hasExtensionKeyword } from './extension-keyword.js';

/**
 * The package folders a folder holds, for `airlock extensions catalog <folder>`: the folder
 * itself when its package.json has an `airlock` manifest (a package being written); otherwise
 * every child and `@scope/child` with one (a folder of packages, a node_modules), and the same in
 * its node_modules (a project: what it has installed). A package with the `airlock-extension`
 * keyword but no manifest is listed too, so its broken manifest shows. Sorted by folder.
 *
 * @example extensionFolders('/p/node_modules') // ['/p/node_modules/@acme/guard', '/p/node_modules/airlock-shout']
 */
export function extensionFolders(folder: string): string[] {
  if (isExtension(folder)) return [folder];
  const found: string[] = [];
  for (const parent of [folder, join(folder, 'node_modules')]) {
    for (const name of children(parent)) {
      const dir = join(parent, name);
      if (name.startsWith('@')) for (const inner of children(dir)) isExtension(join(dir, inner)) && found.push(join(dir, inner));
      else if (isExtension(dir)) found.push(dir);
    }
  }
  return found;
}

/**
 * Unpack a tarball made by `npm pack` into `scratch` with the system's `tar` (no install, no
 * script, no registry: the manifest is all the catalog needs without trust) and return the
 * package folder inside (npm's tarballs hold one top folder, `package/`). Errors are values.
 *
 * @example const r = await unpackTarball('/tmp/acme-guard-1.0.0.tgz', scratch); if (r.ok) extensionFolders(r.dir)
 */
export async function unpackTarball(tarball: string, scratch: string, env: NodeJS.ProcessEnv): Promise<{ ok: true; dir: string } | { ok: false; problem: string }> {
  const into = join(scratch, 'unpacked');
  mkdirSync(into, { recursive: true });
  // --no-same-owner/permissions: as root, tar would otherwise keep the packer's owner and modes.
  const run = await runPackageManager('tar', ['-xzf', tarball, '-C', into, '--no-same-owner', '--no-same-permissions'], into, env);
  if (run.code !== 0) return { ok: false, problem: `tar could not unpack it (exit ${run.code}): ${run.output.trim().split('\n').slice(-3).join(' ')}` };
  const top = children(into);
  const dir = top.length === 1 ? join(into, top[0]!) : into;
  if (!existsSync(join(dir, 'package.json'))) return { ok: false, problem: 'it holds no package.json (a tarball made by `npm pack` has package/package.json)' };
  return { ok: true, dir };
}

function isExtension(dir: string): boolean {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { airlock?: unknown; keywords?: unknown };
    return pkg.airlock !== undefined || hasExtensionKeyword(pkg.keywords);
  } catch {
    return false;
  }
}

/** Sorted folder names (dot folders left out: .bin, .pnpm, .cache); none for a missing folder. */
function children(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => (e.isDirectory() || e.isSymbolicLink()) && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}
