import { chmodSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanUpAutomatically } from './test-runner-hooks.js';

/**
 * A fresh, empty temp folder (mode 0700, its real path: /tmp may be a symlink) that removes itself.
 * Made inside a vitest test or `beforeEach`, it is removed when that test finishes. Made anywhere
 * else (`beforeAll`, a file's top level), remove it yourself in `afterAll`: vitest ends its
 * workers without an exit event, so the process-exit fallback does not run there.
 *
 * @example
 * it('writes the file', async () => {
 *   const dir = makeTempDir('my-tool-');
 *   await myTool.execute('id', { path: 'a.txt' }, undefined, undefined, createTestContext({ cwd: dir }));
 * }); // dir is gone now
 */
export function makeTempDir(prefix = 'airlock-test-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  cleanUpAutomatically(() => removeTree(dir));
  return dir;
}

/**
 * Remove a folder tree, also when a test left parts of it unreadable or unsearchable (the
 * permission tests chmod things to 000): modes are restored first where needed. Throws what rm
 * throws when even that fails.
 *
 * @example afterAll(() => removeTree(sharedDir)); // a folder made in beforeAll
 */
export function removeTree(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    // A folder whose mode forbids listing or deleting (chmod 000 as non-root): open it up and retry.
    restoreModes(dir);
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  }
}

/** Make every folder under `dir` (symlinks not followed) listable and writable by its owner again. */
function restoreModes(dir: string): void {
  try {
    chmodSync(dir, 0o700);
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) restoreModes(join(dir, entry.name));
  } catch {
    // Not ours to open up (another owner): rm reports what it cannot remove.
  }
}
