import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { basename, delimiter, join } from 'node:path';

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

/**
 * The shell that sets the resource limits before it execs `shell` (limits.ts): /bin/sh when it is
 * dash, which starts in about a third of bash's time, else `shell` itself. Only for a shell that
 * can be run: a missing one stays the spawn error it names (dash would only say exit 127).
 * Looked up once per shell.
 */
export function createPreludeResolver(): (shell: string) => string {
  let dash: boolean | undefined;
  const runnable = new Map<string, boolean>();
  return (shell) => {
    dash ??= isDash('/bin/sh');
    if (!dash) return shell;
    let ok = runnable.get(shell);
    if (ok === undefined) {
      ok = canRun(shell);
      runnable.set(shell, ok);
    }
    return ok ? '/bin/sh' : shell;
  };
}

function isDash(path: string): boolean {
  try {
    return basename(realpathSync(path)) === 'dash';
  } catch {
    return false;
  }
}

function canRun(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
