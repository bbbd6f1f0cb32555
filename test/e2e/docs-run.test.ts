import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './harness.js';
import { markdownFiles, runnableBlocks } from './runnable-blocks.js';
import { scaledMs } from '@airlock/kernel/testing';

/**
 * The docs' runnable blocks (```sh runnable), run as written, in order, one bash per file, as a
 * newcomer would: in a copy of the clone (the files git would have: tracked and not ignored, so
 * no node_modules and no build), with a new HOME, npm's global folder inside it and a TMPDIR of its
 * own. Only the download caches are the machine's (npm's cache and pnpm's store), so nothing is
 * fetched twice, and npm prefers what is cached (`--prefer-offline`: the npm registry is the only
 * network they may need); `pnpm install --frozen-lockfile` and `pnpm pack:all` run in full.
 * README.md runs first; a page under docs/ starts at the clone's root with only what the README's
 * quick start leaves a reader with: the `airlock` that `npm i -g` installed, not the clone's bin/.
 * That makes README → getting-started the newcomer's whole path, pinned: install the CLI, the
 * tour, a first tool, then a package scaffolded by the installed CLI (its kernel), tested, packed
 * and loaded with `extensions add`.
 */

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function bash(script: string, cwd: string, env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `set -euo pipefail\n${script}`], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The working tree as a fresh clone has it, with a .git folder so discovery and the tour see a repository. */
function cloneLike(into: string): void {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of files) {
    mkdirSync(dirname(join(into, file)), { recursive: true });
    // A deleted but still tracked file is not in the working tree: a clone of the next commit lacks it too.
    try {
      cpSync(join(ROOT, file), join(into, file), { verbatimSymlinks: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  execFileSync('git', ['init', '-q'], { cwd: into });
}

/** Where this machine keeps downloads, asked with the machine's own environment. */
function caches(): Record<string, string> {
  const npmCache = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
  const store = execFileSync('pnpm', ['store', 'path'], { encoding: 'utf8' }).trim();
  // `pnpm store path` names the versioned folder inside the store directory.
  return { npm_config_cache: npmCache, pnpm_config_store_dir: dirname(store) };
}

/**
 * The machine's network settings (CA bundles, proxies) and npm's user config, which names the
 * registry and its certificates: a newcomer's shell has them too. Nothing else of this process's
 * environment (vitest's own variables, the developer's XDG folders) reaches the scripts.
 */
function networkSettings(): Record<string, string> {
  const kept = Object.entries(process.env).filter(([name, value]) => value !== undefined && /CA_?CERT|CA_BUNDLE|SSL|PROXY/i.test(name) && !name.startsWith('npm_'));
  const userconfig = execFileSync('npm', ['config', 'get', 'userconfig'], { encoding: 'utf8' }).trim();
  return { ...(Object.fromEntries(kept) as Record<string, string>), npm_config_userconfig: userconfig };
}

describe('the docs run as written', () => {
  it('finds the runnable blocks: the README quick start, getting started and the guides', () => {
    const withBlocks = markdownFiles(ROOT).filter((f) => runnableBlocks(readFileSync(f, 'utf8')).length > 0);
    expect(withBlocks.map((f) => relative(ROOT, f))).toEqual(['README.md', 'docs/getting-started.md', 'docs/guides/packaging.md', 'docs/guides/permissions.md']);
    expect(runnableBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8')).join('')).toContain('pnpm install --frozen-lockfile');
  });

  it('README.md, then every page under docs/: each block exits 0 and shows what the page says', async () => {
    // Removed below, inside the test's own time limit: a clone with node_modules takes longer to
    // delete than the 10 s a cleanup hook gets.
    const base = mkdtempSync(join(tmpdir(), 'airlock-docs-run-'));
    try {
      await runDocs(base);
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  }, scaledMs(600_000));
});

/** Copies the clone, then runs each page's runnable blocks in it; throws (an expect) on the first that fails. */
async function runDocs(base: string): Promise<void> {
  const clone = join(base, 'clone');
  const home = join(base, 'home');
  const tmp = join(base, 'tmp');
  const npmPrefix = join(base, 'npm-global');
  for (const dir of [clone, home, tmp, npmPrefix]) mkdirSync(dir, { recursive: true });
  cloneLike(clone);
  const env: Record<string, string> = {
    ...networkSettings(),
    ...caches(),
    PATH: `${join(npmPrefix, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    TMPDIR: tmp,
    npm_config_prefix: npmPrefix,
    npm_config_update_notifier: 'false',
    npm_config_prefer_offline: 'true',
    CI: 'true',
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
  };

  const seen: Record<string, string> = {};
  for (const file of markdownFiles(clone)) {
    const blocks = runnableBlocks(readFileSync(file, 'utf8'));
    if (blocks.length === 0) continue;
    const name = relative(clone, file);
    const started = Date.now();
    const run = await bash(blocks.join('\n'), clone, env);
    expect(run.code, `${name}'s runnable blocks failed (exit ${run.code}):\n${run.stderr.slice(-4000)}\n${run.stdout.slice(-2000)}`).toBe(0);
    seen[name] = run.stdout;
    console.log(`docs-run: ${name} ran in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  // What a reader is told to expect.
  expect(seen['README.md']).toContain('Hello, Ada!');
  expect(seen['README.md']).toMatch(/audit verify/);
  expect(seen['docs/getting-started.md']).toContain('3 words');
  expect(seen['docs/getting-started.md']).toContain('1 lines, 3 words, 13 characters');
  expect(seen['docs/getting-started.md']).toMatch(/tools:\s+text_stats/);
  expect(seen['docs/getting-started.md']).toMatch(/Tests\s+2 passed/);
  expect(seen['docs/getting-started.md']).toContain('the kernel of this airlock');
  // The scaffold's kernel is the installed CLI's, not the clone's packages/kernel.
  const scaffold = join(home, 'airlock-text-stats');
  const kernel = (JSON.parse(readFileSync(join(scaffold, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies['@airlock/kernel']!;
  expect(kernel).toMatch(/^file:/);
  expect(resolve(scaffold, kernel.slice('file:'.length))).toBe(join(npmPrefix, 'lib', 'node_modules', '@airlock', 'cli', 'node_modules', '@airlock', 'kernel'));
  expect(existsSync(join(home, 'my-project', 'node_modules', 'airlock-text-stats', 'src', 'index.ts'))).toBe(true);
  expect(seen['docs/guides/permissions.md']).toContain('decision: deny (no-force-push)');
  expect(seen['docs/guides/packaging.md']).toContain('Hello, Grace!');
  // The registry flows: Airlock's own package offline, then a third party's through a private registry.
  expect(seen['docs/guides/packaging.md']).toContain("Added @airlock/command-hooks 1.0.0 from Airlock's own copy (nothing was downloaded)");
  expect(seen['docs/guides/packaging.md']).toMatch(/@acme\/airlock-guard\s+0\.1\.0\s+tool/);
  expect(seen['docs/guides/packaging.md']).toContain('@acme/airlock-guard 0.1.0 (tool), on the registry');
  expect(seen['docs/guides/packaging.md']).toContain('3 words');
  expect(seen['docs/guides/packaging.md']).toContain('@acme/airlock-guard: 0.1.0 → 0.2.0');
  expect(seen['docs/guides/packaging.md']).toContain('+ uses network');
  expect(seen['docs/guides/packaging.md']).toContain('Removed @acme/airlock-guard');
}
