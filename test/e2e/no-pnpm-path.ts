import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const HIDDEN = ['pnpm', 'pnpx'];

/**
 * `path` as a machine without pnpm would have it: each folder that holds pnpm is replaced by a
 * folder made under `into` with links to everything else in it (node, npm, git, bash …), so a
 * command finds every tool it found before except pnpm. Shows what "only Node and npm" means
 * without uninstalling anything.
 */
export function pathWithoutPnpm(path: string, into: string): string {
  return path
    .split(delimiter)
    .filter((dir) => dir !== '')
    .map((dir, i) => {
      if (!HIDDEN.some((name) => existsSync(join(dir, name)))) return dir;
      const copy = join(into, `path-${i}`);
      mkdirSync(copy, { recursive: true });
      for (const name of readdirSync(dir)) if (!HIDDEN.includes(name)) symlinkSync(join(dir, name), join(copy, name));
      return copy;
    })
    .join(delimiter);
}
