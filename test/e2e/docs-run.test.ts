import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runProgram, type Run } from './harness.js';
import { pathWithoutPnpm } from './no-pnpm-path.js';
import { markdownFiles, runnableBlocks } from './runnable-blocks.js';
import { scaledMs } from '@airlock/kernel/testing';

/**
 * The docs' runnable blocks (```sh runnable), run as written, in order, one bash per file, as a
 * newcomer would: in a copy of the clone (the files git would have: tracked and not ignored, so
 * no node_modules and no build), with a new HOME, npm's global folder inside it, a TMPDIR of its
 * own and a PATH with no pnpm on it (a machine with only Node and npm). Only the download caches
 * are the machine's (npm's cache, which also keeps what npx fetched, pnpm's store and pnpm's
 * cache of registry documents), so nothing is fetched twice, and npm prefers what is cached (`--prefer-offline`: the npm registry is the
 * only network they may need); the install and the build run in full.
 *
 * The README's first block is the quick start's promise: two commands. `npm start` runs as
 * written and must bring pnpm, install, build and take the tour; `npm test` runs the suite this
 * file is part of, so it runs here with one test file named (`npm test -- <file>`): that proves
 * the command, its bootstrap and vitest work in a fresh copy (CI runs the whole suite through the
 * same bootstrap, .ci/run).
 *
 * README.md runs first; a page under docs/ starts at the clone's root with only what the README's
 * quick start leaves a reader with: the `airlock` that `npm i -g` installed, not the clone's bin/.
 * That makes README → getting-started the newcomer's whole path, pinned: install the CLI, the
 * tour, a first tool, then a package scaffolded by the installed CLI (its kernel), tested, packed
 * and loaded with `extensions add`.
 */

/** The README's first block, command by command (comments aside). */
const QUICK_START = ['npm start', 'npm test'];
/** The test file `npm test` runs here: the README's own hello tool, through a real kernel. */
const ONE_TEST_FILE = 'examples/hello-tool/test/hello.test.ts';

/** A block's commands: its lines without comments and blank lines. */
function commands(block: string): string[] {
  return block
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, '').trim())
    .filter((line) => line !== '');
}


function bash(script: string, cwd: string, env: Record<string, string>): Promise<Run> {
  return runProgram('bash', ['-c', `set -euo pipefail\n${script}`], { cwd, env });
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
  // pnpm's cache: the registry's package documents and the lockfile checks pnpm already made
  // against them. With a fresh one each install checked the 594 lockfile entries again (10 s,
  // against 1 s with the cache).
  const configured = execFileSync('pnpm', ['config', 'get', 'cache-dir'], { encoding: 'utf8' }).trim();
  const pnpmCache = configured !== '' && configured !== 'undefined' ? configured : join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'pnpm');
  // `pnpm store path` names the versioned folder inside the store directory.
  return { npm_config_cache: npmCache, pnpm_config_store_dir: dirname(store), pnpm_config_cache_dir: pnpmCache };
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
    // Exactly the two commands: a third, or a changed one, breaks the quick start's promise.
    expect(commands(runnableBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'))[0]!)).toEqual(QUICK_START);
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
    PATH: `${join(npmPrefix, 'bin')}:${pathWithoutPnpm(process.env.PATH ?? '/usr/bin:/bin', join(base, 'path'))}`,
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
  expect((await bash('command -v pnpm || echo none', clone, env)).stdout.trim(), 'the PATH of a machine without pnpm').toBe('none');

  const seen: Record<string, string> = {};
  const run = async (name: string, script: string): Promise<Run> => {
    const started = Date.now();
    const result = await bash(script, clone, env);
    expect(result.code, `${name} failed (exit ${result.code}):\n${result.stderr.slice(-4000)}\n${result.stdout.slice(-2000)}`).toBe(0);
    console.log(`docs-run: ${name} ran in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return result;
  };

  // The quick start: the first `npm start` brings pnpm, installs and builds, then takes the tour.
  const [quickStart, ...readmeRest] = runnableBlocks(readFileSync(join(clone, 'README.md'), 'utf8'));
  expect(commands(quickStart!)).toEqual(QUICK_START);
  const start = await run('README.md: npm start', 'npm start');
  expect(start.stderr).toContain('bootstrap: pnpm 12.21.0 is not on the PATH: fetching it with npx');
  expect(start.stderr).toContain('bootstrap: installing the workspace: no node_modules yet');
  expect(start.stderr).toMatch(/bootstrap: building: not built yet/);
  expect(start.stdout).toMatch(/audit verify/);
  // `npm test`, with one file: everything is in place now, so it starts the tests at once.
  const test = await run(`README.md: npm test -- ${ONE_TEST_FILE}`, `npm test -- ${ONE_TEST_FILE}`);
  expect(test.stdout).toMatch(/Tests\s+\d+ passed \(/); // "Tests  1 failed | 2 passed (3)" when one fails
  expect(test.stderr).not.toContain('bootstrap:');
  seen['README.md'] = (await run('README.md (after the quick start)', readmeRest.join('\n'))).stdout;

  for (const file of markdownFiles(clone).slice(1)) {
    const blocks = runnableBlocks(readFileSync(file, 'utf8'));
    if (blocks.length === 0) continue;
    const name = relative(clone, file);
    seen[name] = (await run(name, blocks.join('\n'))).stdout;
  }
  // What a reader is told to expect.
  expect(seen['README.md']).toContain('Hello, Ada!');
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
