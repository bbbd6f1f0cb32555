import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The package managers `airlock extensions add` knows, by the lockfile each writes. */
export type PackageManager = 'pnpm' | 'npm' | 'yarn' | 'bun';

/** Lockfiles in the order they are looked for in one folder: a folder holding two is taken as the first one's. */
const LOCKFILES: readonly (readonly [string, PackageManager])[] = [
  ['pnpm-lock.yaml', 'pnpm'],
  ['bun.lock', 'bun'],
  ['bun.lockb', 'bun'],
  ['yarn.lock', 'yarn'],
  ['package-lock.json', 'npm'],
  ['npm-shrinkwrap.json', 'npm'],
];

/**
 * The package manager a project uses: the lockfile in its folder or the nearest folder above it
 * (a workspace keeps one at its root); npm when there is none.
 *
 * @example detectPackageManager('/repo/packages/app') // { manager: 'pnpm', lockfile: '/repo/pnpm-lock.yaml' }
 */
export function detectPackageManager(projectDir: string): { manager: PackageManager; lockfile?: string } {
  for (let dir = projectDir; ; dir = dirname(dir)) {
    for (const [name, manager] of LOCKFILES) if (existsSync(join(dir, name))) return { manager, lockfile: join(dir, name) };
    if (dirname(dir) === dir) return { manager: 'npm' };
  }
}

/**
 * The command line that adds `spec` to the project's dependencies, or removes package `name` again.
 * At the root of a pnpm workspace (`pnpm-workspace.yaml` in the project folder) older pnpm
 * versions refuse to add without `-w` (ERR_PNPM_ADDING_TO_ROOT); pnpm 12 accepts either.
 *
 * @example packageManagerArgs('pnpm', 'add', 'airlock-shout', '/repo') // ['add', '-w', 'airlock-shout'] when /repo/pnpm-workspace.yaml exists
 */
export function packageManagerArgs(manager: PackageManager, action: 'add' | 'remove', spec: string, projectDir?: string): string[] {
  const quiet = manager === 'npm' ? ['--no-audit', '--no-fund'] : [];
  const root = manager === 'pnpm' && projectDir !== undefined && existsSync(join(projectDir, 'pnpm-workspace.yaml')) ? ['-w'] : [];
  if (action === 'add') return manager === 'npm' ? ['install', ...quiet, spec] : ['add', ...root, spec];
  return manager === 'npm' ? ['uninstall', ...quiet, spec] : ['remove', ...root, spec];
}

export interface Spawned {
  code: number;
  output: string;
}

/**
 * Run a package manager in `cwd`, collecting what it prints (shown to the person when it fails).
 * A manager that is not installed is a failure saying so, not a crash.
 */
export function runPackageManager(manager: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Spawned> {
  return new Promise((resolve) => {
    const child = spawn(manager, [...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ code: 127, output: error.code === 'ENOENT' ? `${manager} is not installed (not found on PATH).` : String(error.message) }),
    );
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}
