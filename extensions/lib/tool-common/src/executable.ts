import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * The first executable `name` on PATH, or undefined. Callers look it up once per process
 * (grep's rg, find's fd): PATH does not change under a running agent.
 *
 * @example findExecutable('rg') // '/usr/bin/rg'
 */
export function findExecutable(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
