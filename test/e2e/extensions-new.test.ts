import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { ROOT, sandbox } from './harness.js';
import { scaledMs } from '@airlock/kernel/testing';

/**
 * `airlock extensions new` as an author uses it, with the built CLI: scaffold a tool and a
 * policy, install each with npm, run the test it comes with (vitest) and its typecheck (tsc),
 * then load it with `airlock` and see its tool answer and its policy deny. The scaffold's
 * `@airlock/kernel` is the workspace's own (a `file:` path, as the scaffold writes it); its other
 * dependencies are pointed at the workspace's copies so that this test needs no registry.
 */

// npm install, vitest and tsc in the new package, then airlock: tens of seconds on 2 cores.
vi.setConfig({ testTimeout: scaledMs(240_000) });

const run = promisify(execFile);

/** The workspace's copy of each dependency the templates pin (same versions), as a file: spec. */
function offline(dir: string): void {
  const file = join(dir, 'package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
  const local = (path: string) => `file:${realpathSync(join(ROOT, path))}`;
  pkg.dependencies.typebox = local('packages/kernel/node_modules/typebox');
  for (const name of ['vitest', 'typescript', '@types/node']) pkg.devDependencies[name] = local(`node_modules/${name}`);
  writeFileSync(file, JSON.stringify(pkg, null, 2));
}

/**
 * The kernel as an installed CLI carries it: its package (built) in a folder of its own, with its
 * dependencies beside it and no vitest anywhere above it, so it cannot find the project's vitest
 * from where it is (what made every harness folder outlive its test, issue 28).
 */
function kernelOutsideTheWorkspace(base: string): string {
  const modules = join(base, 'cli-install', 'node_modules');
  const kernel = join(modules, '@airlock', 'kernel');
  mkdirSync(kernel, { recursive: true });
  for (const part of ['package.json', 'dist']) cpSync(join(ROOT, 'packages/kernel', part), join(kernel, part), { recursive: true });
  for (const dep of readdirSync(join(ROOT, 'packages/kernel/node_modules/@airlock'))) symlinkSync(realpathSync(join(ROOT, 'packages/kernel/node_modules/@airlock', dep)), join(modules, '@airlock', dep));
  for (const dep of ['typebox', 'tapable']) symlinkSync(realpathSync(join(ROOT, 'packages/kernel/node_modules', dep)), join(modules, dep));
  return kernel;
}

async function installAndTest(dir: string, env: NodeJS.ProcessEnv) {
  offline(dir);
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund'], { cwd: dir, env });
  const test = await run(process.execPath, ['node_modules/vitest/vitest.mjs', 'run'], { cwd: dir, env: { ...env, NO_COLOR: '1' } });
  const typecheck = await run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', '.'], { cwd: dir, env });
  return { test: test.stdout, typecheck: typecheck.stdout + typecheck.stderr };
}

describe('airlock extensions new', () => {
  it('--tool: a package whose test passes as generated, and whose tool airlock runs', async () => {
    const s = sandbox();
    const made = await s.airlock(['extensions', 'new', '@acme/airlock-word-count', '--tool', '--dir', '../wc']);
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    const dir = join(s.base, 'wc');
    for (const f of ['package.json', 'README.md', 'tsconfig.json', '.gitignore', 'src/index.ts', 'test/index.test.ts']) expect(existsSync(join(dir, f)), f).toBe(true);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; airlock: { provides: { tools: string[] } }; devDependencies: Record<string, string> };
    expect(pkg.name).toBe('@acme/airlock-word-count');
    expect(pkg.airlock.provides.tools).toEqual(['word_count']);
    expect(pkg.devDependencies['@airlock/kernel']).toMatch(/^file:(\.\.\/)+.*packages\/kernel$/);

    const { test, typecheck } = await installAndTest(dir, { ...process.env, HOME: s.home });
    expect(test).toMatch(/Tests\s+2 passed/);
    expect(typecheck).toBe('');

    s.write('settings.json', { extensions: [{ path: dir, options: { maxChars: 50 } }] });
    const settings = ['--trust', '--settings', join(s.base, 'settings.json')];
    const call = await s.airlock([...settings, 'call', 'word_count', '{"text":"one two\\nthree"}']);
    expect(call.stdout).toContain('2 lines, 3 words, 13 characters');
    expect(call.code).toBe(0);
    // Its options come from the settings: maxChars 50.
    const long = await s.airlock([...settings, 'call', 'word_count', JSON.stringify({ text: 'x'.repeat(60) })]);
    expect(long.stdout).toContain('give at most 50');
    const info = await s.airlock([...settings, 'extensions', 'info', '@acme/airlock-word-count']);
    expect(info.stdout).toMatch(/status:\s+loaded/);
    expect(info.stdout).toMatch(/maxChars\s+integer\s+100000/);
  });

  // issue 28: each createToolHarness left an airlock-harness-* folder per test when the kernel came from the installed CLI.
  it("--tool: its tests leave no harness folder behind when the kernel is the installed CLI's copy", async () => {
    const s = sandbox();
    expect((await s.airlock(['extensions', 'new', '@acme/airlock-tidy', '--tool', '--dir', '../tidy'])).code).toBe(0);
    const dir = join(s.base, 'tidy');
    const file = join(dir, 'package.json');
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { devDependencies: Record<string, string> };
    pkg.devDependencies['@airlock/kernel'] = `file:${kernelOutsideTheWorkspace(s.base)}`;
    writeFileSync(file, JSON.stringify(pkg, null, 2));
    const tmp = join(s.base, 'tmp');
    mkdirSync(tmp);
    const env = { ...process.env, HOME: s.home, TMPDIR: tmp };
    for (let i = 0; i < 2; i++) {
      const { test } = await installAndTest(dir, env);
      expect(test).toMatch(/Tests\s+2 passed/);
    }
    expect(readdirSync(tmp).filter((f) => f.startsWith('airlock-harness-'))).toEqual([]);
  });

  it('--policy: a package whose test passes as generated, and whose policy airlock applies to the built-in write tool', async () => {
    const s = sandbox();
    const made = await s.airlock(['extensions', 'new', 'airlock-lock-guard', '--policy', '--dir', '../guard']);
    expect(made.code).toBe(0);
    const dir = join(s.base, 'guard');
    const { test, typecheck } = await installAndTest(dir, { ...process.env, HOME: s.home });
    expect(test).toMatch(/Tests\s+2 passed/);
    expect(typecheck).toBe('');

    s.write('settings.json', { extensions: [dir] });
    const settings = ['--trust', '--settings', join(s.base, 'settings.json')];
    const denied = await s.airlock([...settings, 'call', 'write', '{"path":"package-lock.json","content":"{}"}']);
    expect(denied.stdout).toContain('package-lock.json is written by a person or a package manager');
    expect(denied.code).toBe(1);
    expect(existsSync(join(s.project, 'package-lock.json'))).toBe(false);
    const ok = await s.airlock([...settings, 'call', 'write', '{"path":"notes.txt","content":"hello"}']);
    expect(ok.code).toBe(0);
    expect(readFileSync(join(s.project, 'notes.txt'), 'utf8')).toBe('hello');
  });

  it('refuses a name npm would not take, a missing --tool/--policy and a folder that is not empty, writing nothing', async () => {
    const s = sandbox();
    const bad = await s.airlock(['extensions', 'new', 'Bad Name', '--tool']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('is not a package name');
    const kind = await s.airlock(['extensions', 'new', 'airlock-x']);
    expect(kind.code).toBe(2);
    expect(kind.stderr).toContain('--tool');
    s.write('full/keep.txt', 'mine');
    const full = await s.airlock(['extensions', 'new', 'airlock-x', '--tool', '--dir', '../full']);
    expect(full.code).toBe(2);
    expect(full.stderr).toContain('not empty');
    expect(existsSync(join(s.base, 'full', 'package.json'))).toBe(false);
    expect(existsSync(join(s.project, 'airlock-x'))).toBe(false);
  });
});
