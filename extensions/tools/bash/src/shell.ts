import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * The shell to run commands with: the settings' `shellPath`, else `bash` on PATH, else `sh`.
 * PATH is searched once per tool (per PATH value), not per call.
 */
export function createShellResolver(shellPath: string | undefined): (path: string | undefined) => string {
  if (shellPath !== undefined && shellPath !== '') return () => shellPath;
  const cache = new Map<string, string>();
  return (path) => {
    const key = path ?? '';
    let shell = cache.get(key);
    if (shell === undefined) {
      shell = findOnPath('bash', key) ?? 'sh';
      cache.set(key, shell);
    }
    return shell;
  };
}

export function findOnPath(name: string, path: string): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
