import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { makeTempDir } from '@airlock/kernel/testing';

/**
 * A fresh folder `tree` (inside a temp `base` that is removed when the test ends) holding
 * `files`, path → content; parent folders are made as needed. For the tree-walking tools' tests.
 *
 * @example const { root } = tree({ 'a.txt': 'x', 'sub/.env': 'SECRET=1' });
 */
export function tree(files: Record<string, string>, prefix = 'airlock-tree-'): { base: string; root: string } {
  const base = realpathSync(makeTempDir(prefix));
  const root = join(base, 'tree');
  mkdirSync(root);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), content);
  }
  return { base, root };
}
