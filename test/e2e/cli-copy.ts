import { chmodSync, cpSync, mkdirSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '@airlock/kernel/testing';
import { skipUnlessNobodyCanReach } from '../../extensions/lib/tool-common/test/support/reachable.js';

const CLI = realpathSync(fileURLToPath(new URL('../../packages/cli', import.meta.url)));

/**
 * What the CLI bundle loads at run time from outside itself, for the file tools and the bash
 * parser: the package folders (whole) or single files to copy next to the bundle. jiti, sharp,
 * typescript and the prompt library load only for TypeScript settings, images and dialogs.
 */
const RUNTIME_FILES = ['web-tree-sitter', '@vscode/tree-sitter-wasm/package.json', '@vscode/tree-sitter-wasm/wasm/tree-sitter-bash.wasm'];

/**
 * The built CLI copied into a temp folder another user can enter (mode 0755), with what it loads
 * at run time; returns its `bin/airlock.mjs`. Another user may not be able to enter the checkout
 * (a 0700 home, /root), so a test running the CLI as that user must not run it from there.
 * Skips the running test, saying why, when the temp folder itself is out of that user's reach.
 * Call it inside a test: the copy is removed when the test finishes.
 *
 * @example spawn(process.execPath, [copyCliForAnotherUser(), 'tools'], { uid: 65534, gid: 65534 })
 */
export function copyCliForAnotherUser(): string {
  const root = makeTempDir('airlock-cli-copy-');
  chmodSync(root, 0o755);
  skipUnlessNobodyCanReach(root);
  const bin = join(root, 'cli/bin/airlock.mjs');
  // The host finds its version in the package.json above the bundle.
  place(join(CLI, 'package.json'), join(root, 'cli/package.json'));
  place(join(CLI, 'bin/airlock.mjs'), bin);
  place(join(CLI, 'dist/airlock.mjs'), join(root, 'cli/dist/airlock.mjs'));
  place(join(CLI, 'dist/chunks'), join(root, 'cli/dist/chunks'));
  for (const path of RUNTIME_FILES) place(realpathSync(join(CLI, 'node_modules', path)), join(root, 'node_modules', path));
  // The default extensions are compiled into the bundle, but the host still finds each by its
  // manifest among the CLI's installed packages, as it would in an install.
  for (const name of readdirSync(join(CLI, 'node_modules/@airlock'))) {
    const dir = realpathSync(join(CLI, 'node_modules/@airlock', name));
    if (!isExtension(join(dir, 'package.json'))) continue;
    for (const part of ['package.json', 'src']) place(join(dir, part), join(root, 'cli/node_modules/@airlock', name, part));
  }
  return bin;
}

function isExtension(manifest: string): boolean {
  return typeof (JSON.parse(readFileSync(manifest, 'utf8')) as { airlock?: unknown }).airlock === 'object';
}

function place(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true, mode: 0o755 });
  cpSync(from, to, { recursive: true, dereference: true });
}
