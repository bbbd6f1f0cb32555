import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { ROOT, runProgram, type Run } from './harness.js';
import { pathWithoutPnpm } from './no-pnpm-path.js';

/**
 * scripts/bootstrap.mjs, which every root script (`npm start`, `npm test` …) runs first, driven
 * as a person's `npm start` drives it. Its decisions are checked in a small workspace of its own,
 * with a pnpm on the PATH that records what it is asked to do (an install writes node_modules, a
 * build writes the bundles); the real pnpm, install and build from nothing are docs-run's
 * (test/e2e/docs-run.test.ts runs the README's `npm start` on a PATH without pnpm).
 */

/** The pnpm version CI installs (.ci/run): the bootstrap must ask for the same one. */
const CI_PNPM = /pnpm@(\d+\.\d+\.\d+)/.exec(readFileSync(join(ROOT, '.ci/run'), 'utf8'))![1]!;


function node(args: string[], cwd: string, env: Record<string, string>): Promise<Run> {
  return runProgram(process.execPath, args, { cwd, env });
}

/**
 * A workspace with two projects (packages/cli and packages/sdk, whose bundles the bootstrap
 * checks for), a lockfile, and the real bootstrap scripts; a pnpm of `version` on the PATH logs
 * each install and build to pnpm.log and does what they leave behind.
 */
function workspace(version = CI_PNPM) {
  const base = makeTempDir('airlock-bootstrap-');
  const root = join(base, 'ws');
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  cpSync(join(ROOT, 'scripts/bootstrap.mjs'), join(root, 'scripts/bootstrap.mjs'));
  cpSync(join(ROOT, 'scripts/bootstrap'), join(root, 'scripts/bootstrap'), { recursive: true });
  write('package.json', JSON.stringify({ name: 'ws', private: true, type: 'module', engines: { node: '>=20.19' } }));
  write('tsconfig.json', JSON.stringify({ files: [], references: [{ path: 'packages/cli' }, { path: 'packages/sdk' }] }));
  write('pnpm-lock.yaml', "lockfileVersion: '9.0'\n");
  write('pnpm-workspace.yaml', 'packages:\n  - packages/*\n');
  write('packages/cli/src/main.ts', 'export const main = 1;\n');
  write('packages/cli/test/main.test.ts', '// a test\n');
  write('packages/sdk/src/index.ts', 'export const sdk = 1;\n');
  const bin = join(base, 'bin');
  mkdirSync(bin);
  const log = join(base, 'pnpm.log');
  writeFileSync(log, '');
  writeFileSync(
    join(bin, 'pnpm'),
    `#!/usr/bin/env bash
[ "$1" = --version ] && { echo ${version}; exit 0; }
echo "$*" >> ${JSON.stringify(log)}
case "$1" in
  install) mkdir -p node_modules && echo installed > node_modules/.modules.yaml ;;
  run) if [ -n "$BUILD_FAILS" ]; then echo "packages/cli/src/main.ts(1,1): error TS1005: ';' expected." >&2; exit 2; fi
       mkdir -p packages/cli/dist packages/sdk/dist && touch packages/cli/dist/airlock.mjs packages/sdk/dist/builtins.mjs ;;
esac
`,
  );
  chmodSync(join(bin, 'pnpm'), 0o755);
  const env: Record<string, string> = { PATH: `${bin}:${pathWithoutPnpm(process.env.PATH ?? '/usr/bin:/bin', join(base, 'path'))}`, HOME: join(base, 'home'), LANG: 'C.UTF-8' };
  return {
    root,
    write,
    env,
    /** The installs and builds pnpm was asked for so far, one per line. */
    pnpmCalls: () => readFileSync(log, 'utf8').trim().split('\n').filter(Boolean),
    /** `node scripts/bootstrap.mjs …` in the workspace, as the root scripts run it. */
    bootstrap: (args: string[], extraEnv: Record<string, string> = {}) => node(['scripts/bootstrap.mjs', ...args], root, { ...env, ...extraEnv }),
  };
}

describe('scripts/bootstrap.mjs', () => {
  it('installs and builds on the first run, then runs the command; the next run starts the command at once', async () => {
    const ws = workspace();
    const first = await ws.bootstrap(['node', '-e', 'console.log("the command ran; built:", process.env.AIRLOCK_TESTS_BUILT)']);
    expect(first.stderr).toContain('bootstrap: installing the workspace: no node_modules yet');
    expect(first.stderr).toContain('bootstrap: building: not built yet (no packages/cli/dist)');
    expect(first.stdout).toBe('the command ran; built: 1\n');
    expect(first.code).toBe(0);
    expect(ws.pnpmCalls()).toEqual(['install --frozen-lockfile', 'run build']);

    const second = await ws.bootstrap(['node', '-e', 'console.log("again")']);
    expect(second).toEqual({ code: 0, stdout: 'again\n', stderr: '' });
    expect(ws.pnpmCalls()).toHaveLength(2);
  });

  it('builds again when a source changes, is added or removed, and not for a test', async () => {
    const ws = workspace();
    await ws.bootstrap(['true']);
    const builds = () => ws.pnpmCalls().filter((call) => call === 'run build').length;

    ws.write('packages/cli/test/main.test.ts', '// a test, edited\n');
    expect((await ws.bootstrap(['--dry-run'])).stderr).toContain('bootstrap: build: up to date');
    await ws.bootstrap(['true']);
    expect(builds()).toBe(1);

    ws.write('packages/cli/src/main.ts', 'export const main = 2;\n');
    ws.write('packages/sdk/src/extra.ts', 'export const extra = 1;\n');
    const plan = await ws.bootstrap(['--dry-run']);
    expect(plan.stderr).toContain('bootstrap: build: would run pnpm build: packages/cli/src/main.ts changed, packages/sdk/src/extra.ts was added since the last build');
    expect(builds()).toBe(1); // a dry run does nothing
    expect((await ws.bootstrap(['true'])).stderr).toContain('bootstrap: building: packages/cli/src/main.ts changed');
    expect(builds()).toBe(2);

    rmSync(join(ws.root, 'packages/sdk/src/extra.ts'));
    expect((await ws.bootstrap(['true'])).stderr).toContain('bootstrap: building: packages/sdk/src/extra.ts was removed since the last build');
    rmSync(join(ws.root, 'packages/sdk/dist/builtins.mjs'));
    expect((await ws.bootstrap(['true'])).stderr).toContain('bootstrap: building: not built yet (no packages/sdk/dist/builtins.mjs)');
    expect(builds()).toBe(4);
  });

  it('installs again when pnpm-lock.yaml says something else, not when it is only touched', async () => {
    const ws = workspace();
    await ws.bootstrap(['true']);
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(ws.root, 'pnpm-lock.yaml'), later, later);
    expect((await ws.bootstrap(['--dry-run'])).stderr).toContain('bootstrap: install: node_modules is up to date');

    ws.write('pnpm-lock.yaml', "lockfileVersion: '9.0'\nimporters: {}\n");
    const run = await ws.bootstrap(['true']);
    expect(run.stderr).toContain('bootstrap: installing the workspace: pnpm-lock.yaml changed since the last install');
    expect(ws.pnpmCalls().filter((call) => call.startsWith('install'))).toHaveLength(2);
  });

  it("checks an install it did not make once (a developer's own pnpm install), then trusts it", async () => {
    const ws = workspace();
    ws.write('node_modules/.modules.yaml', 'installed by hand\n');
    expect((await ws.bootstrap(['true'])).stderr).toContain('bootstrap: installing the workspace: node_modules was installed outside this script');
    expect((await ws.bootstrap(['--dry-run'])).stderr).toContain('bootstrap: install: node_modules is up to date');
  });

  it("a failed build stops before the command, says what to do, and is tried again next time", async () => {
    const ws = workspace();
    const failed = await ws.bootstrap(['node', '-e', 'console.log("the command ran")'], { BUILD_FAILS: '1' });
    expect(failed.code).toBe(1);
    expect(failed.stdout).toBe('');
    expect(failed.stderr).toContain("error TS1005: ';' expected.");
    expect(failed.stderr).toContain('bootstrap: `pnpm run build` failed (exit 2); its output is above. Fix what it names, then run the command again.');
    const next = await ws.bootstrap(['node', '-e', 'console.log("the command ran")']);
    expect(next.stderr).toContain('bootstrap: building: not built yet');
    expect(next.stdout).toBe('the command ran\n');
  });

  it("gives the command's exit code back, and finds commands in node_modules/.bin and bin/ first", async () => {
    const ws = workspace();
    ws.write('bin/hello', '#!/usr/bin/env bash\necho "hello from bin/ with $# arguments"\n');
    chmodSync(join(ws.root, 'bin/hello'), 0o755);
    expect(await ws.bootstrap(['hello', 'a b', 'c'])).toMatchObject({ code: 0, stdout: 'hello from bin/ with 2 arguments\n' });
    expect((await ws.bootstrap(['node', '-e', 'process.exit(3)'])).code).toBe(3);
    const missing = await ws.bootstrap(['no-such-command']);
    expect(missing.code).toBe(127);
    expect(missing.stderr).toContain('bootstrap: no command "no-such-command" (looked in node_modules/.bin, bin/ and the PATH).');
  });

  it('refuses a missing command or an unknown option with its usage', async () => {
    const ws = workspace();
    const none = await ws.bootstrap([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/bootstrap: no command given\.\nusage: node scripts\/bootstrap\.mjs <command>/);
    expect((await ws.bootstrap(['--dryrun'])).stderr).toContain('bootstrap: unknown option --dryrun.');
    expect(ws.pnpmCalls()).toEqual([]);
  });

  it(`uses pnpm ${CI_PNPM} from the PATH, as CI does, and not a pnpm of another version`, async () => {
    expect((await workspace().bootstrap(['--dry-run'])).stderr).toMatch(new RegExp(`bootstrap: pnpm: pnpm ${CI_PNPM.replaceAll('.', '\\.')} on the PATH \\(.*/bin/pnpm\\)`));
    const other = await workspace('10.34.9').bootstrap(['--dry-run']);
    expect(other.stderr).toMatch(new RegExp(`bootstrap: pnpm: would fetch pnpm ${CI_PNPM.replaceAll('.', '\\.')} with npx \\(.*/bin/pnpm is pnpm 10\\.34\\.9\\)`));
  });

  it('on a Node older than package.json allows, says so and what to do, and does nothing', async () => {
    const ws = workspace();
    const old = await node(['--import', 'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"20.18.1"})', 'scripts/bootstrap.mjs', 'true'], ws.root, ws.env);
    expect(old.code).toBe(1);
    expect(old.stderr).toContain('bootstrap: Airlock needs Node 20.19 or later; this is Node 20.18.1');
    expect(old.stderr).toContain('Install a newer Node (https://nodejs.org');
    expect(ws.pnpmCalls()).toEqual([]);
  });

  it(
    'with no pnpm and no registry in reach, says so in a few seconds and what to do, and runs nothing',
    async () => {
      const ws = workspace();
      rmSync(join(dirname(ws.root), 'bin/pnpm'));
      const run = await ws.bootstrap(['node', '-e', 'console.log("the command ran")'], {
        npm_config_registry: 'http://127.0.0.1:9/',
        npm_config_cache: join(dirname(ws.root), 'empty-npm-cache'),
        npm_config_update_notifier: 'false',
      });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(`bootstrap: pnpm ${CI_PNPM} is not on the PATH: fetching it with npx`);
      expect(run.stderr).toContain(`bootstrap: npx could not fetch pnpm ${CI_PNPM}`);
      expect(run.stderr).toContain('ECONNREFUSED');
      expect(run.stderr).toContain('This machine must reach http://127.0.0.1:9/ once');
      expect(run.stderr).toContain(`npm i -g pnpm@${CI_PNPM}`);
      expect(existsSync(join(ws.root, 'node_modules'))).toBe(false);
    },
    scaledMs(60_000),
  );

  it(
    'when npx fails for another reason, shows npm\'s words and does not blame the network',
    async () => {
      const ws = workspace();
      rmSync(join(dirname(ws.root), 'bin/pnpm'));
      const run = await ws.bootstrap(['true'], { npm_config_cache: '/dev/null/npm-cache', npm_config_update_notifier: 'false' });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('npm error code ENOTDIR');
      expect(run.stderr).toContain(`npm's message above says what stopped it: fix that, or install pnpm yourself (npm i -g pnpm@${CI_PNPM})`);
      expect(run.stderr).not.toContain('must reach');
    },
    scaledMs(60_000),
  );
});
