import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaledMs } from '@airlock/kernel/testing';
import { publishedPackages } from '../../scripts/workspace-packages.mjs';
import { BIN, ROOT, type Run } from './harness.js';
import { startRegistry, type Registry } from './registry.js';

/**
 * Airlock as a user gets it from an npm registry: every published @airlock package and two
 * third-party packages (@acme/airlock-guard, a tool, and @acme/airlock-policy, a policy, both
 * made with `airlock extensions new`) are published to a Verdaccio started here, and then, in a
 * fresh HOME whose npm knows only that registry and has an empty cache, the CLI is installed with
 * `npm i -g` and the third-party packages with `airlock extensions add`.
 *
 * The registry serves the @airlock and @acme scopes only from what was published to it, as a
 * company registry keeps its own scopes; every other package (typebox, commander, …) it fetches
 * from the registry this machine's npm uses, as such a registry proxies the public one.
 */

/** Wall times of the steps a user waits for, printed at the end for the closing note. */
const timings: Record<string, number> = {};
async function timed<T>(step: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    timings[step] = Math.round(performance.now() - started);
  }
}

/** Never execFileSync here: Verdaccio answers from this process's event loop (registry.ts). */
function exec(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: options.cwd, env: options.env, timeout: options.timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

/** Fails with the command's output, which says why, rather than a bare exit code. */
function succeeded(what: string, run: Run): Run {
  if (run.code !== 0) throw new Error(`${what} exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  return run;
}

let base = '';
let registry: Registry | undefined;
/** The user's machine: a HOME of its own, npm naming only the test registry, an empty npm cache. */
let user: NodeJS.ProcessEnv = {};
const prefix = () => join(base, 'global');
const airlock = (args: string[], cwd: string) => exec(join(prefix(), 'bin/airlock'), args, { cwd, env: user, timeoutMs: scaledMs(120_000) });

beforeAll(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'airlock-registry-')));
  const tarballs = join(base, 'tarballs');
  const acme = join(base, 'acme');
  // Packing takes most of this hook (tsc for each extension): the registry and the third-party
  // packages are made meanwhile.
  const [packed, started] = await Promise.all([
    timed('pack', () => exec(process.execPath, [join(ROOT, 'scripts/pack.mjs'), tarballs], { cwd: ROOT, env: process.env, timeoutMs: scaledMs(300_000) })),
    timed('verdaccio start', async () => {
      const upstream = succeeded('npm config get registry', await exec('npm', ['config', 'get', 'registry'], { cwd: base, env: process.env, timeoutMs: scaledMs(30_000) }));
      return startRegistry({ uplink: upstream.stdout.trim(), privateScopes: ['@airlock', '@acme'] });
    }),
    ...(['tool', 'policy'] as const).map(async (kind) => {
      const name = `@acme/airlock-${kind === 'tool' ? 'guard' : 'policy'}`;
      const made = await exec(process.execPath, [BIN, 'extensions', 'new', name, `--${kind}`, '--dir', join(acme, kind)], { cwd: base, env: process.env, timeoutMs: scaledMs(60_000) });
      succeeded(`airlock extensions new ${name}`, made);
    }),
  ]);
  registry = started;
  succeeded('scripts/pack.mjs', packed);

  // The publisher's own npm config: the registry and its token (npm and pnpm refuse to publish without one).
  const publisher = join(base, 'publisher');
  mkdirSync(publisher);
  const publishEnv = { PATH: process.env.PATH, HOME: publisher, TMPDIR: process.env.TMPDIR, npm_config_userconfig: registry.npmrc(join(publisher, '.npmrc')) };
  const publish = async (what: string) =>
    succeeded(
      `pnpm publish ${what}`,
      await exec('pnpm', ['publish', what, '--registry', registry!.url, '--no-git-checks', '--ignore-scripts'], { cwd: publisher, env: publishEnv, timeoutMs: scaledMs(120_000) }),
    );
  const queue = [...readdirSync(tarballs).map((f) => join(tarballs, f)), join(acme, 'tool'), join(acme, 'policy')];
  // A few at a time: each is a process of its own on a 2-core machine.
  await timed('publish all', () => Promise.all([1, 2, 3, 4].map(async () => { for (let next = queue.shift(); next !== undefined; next = queue.shift()) await publish(next); })));

  const home = join(base, 'home');
  mkdirSync(join(home, '.config'), { recursive: true });
  // What a user writes to use a company registry: one line, no token (installing needs none).
  writeFileSync(join(home, '.npmrc'), `registry=${registry.url}\n`);
  user = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_STATE_HOME: join(home, '.local/state'),
    TMPDIR: process.env.TMPDIR,
    NO_COLOR: '1',
    // Wins over any npm config file on this machine (npm's global one included).
    npm_config_registry: registry.url,
    npm_config_cache: join(base, 'cache'),
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
  };
  mkdirSync(prefix());
  await timed('npm i -g', async () =>
    succeeded('npm i -g @airlock/cli', await exec('npm', ['install', '--global', '--prefix', prefix(), '@airlock/cli'], { cwd: home, env: user, timeoutMs: scaledMs(300_000) })),
  );
}, scaledMs(600_000));

afterAll(async () => {
  await registry?.close();
  if (base !== '') await rm(base, { recursive: true, force: true, maxRetries: 3 });
  console.log(`registry e2e wall times (ms): ${JSON.stringify(timings)}`);
}, scaledMs(180_000));

describe('a user with only the registry', () => {
  it('installs @airlock/cli with npm i -g from the registry, and it runs', async () => {
    // npm was given a bare name, knows no other registry and had an empty cache: the CLI, with the
    // @airlock packages bundled in it, came from the test registry.
    const installed = JSON.parse(readFileSync(join(prefix(), 'lib/node_modules/@airlock/cli/package.json'), 'utf8')) as { version: string };
    expect(installed.version).toBe(cliVersion());
    expect(await airlock(['--version'], base)).toMatchObject({ code: 0, stdout: `${cliVersion()}\n` });
  });

  it('adds @acme/airlock-guard from the registry to a trusted project, and its tool answers', async () => {
    const project = join(base, 'project');
    // A repository with a package.json, as most projects are: settings discovery stops at its root.
    mkdirSync(join(project, '.git'), { recursive: true });
    writeFileSync(join(project, 'package.json'), '{ "name": "project", "version": "1.0.0", "private": true }\n');
    expect((await airlock(['trust', project], base)).code).toBe(0);

    const added = await timed('extensions add (registry)', () => airlock(['extensions', 'add', '@acme/airlock-guard'], project));
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('Added @acme/airlock-guard 0.1.0 to');
    expect(JSON.parse(readFileSync(join(project, '.airlockrc.json'), 'utf8'))).toEqual({ extensions: ['@acme/airlock-guard'] });
    const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as { packages: Record<string, { resolved?: string }> };
    expect(lock.packages['node_modules/@acme/airlock-guard']?.resolved).toBe(`${registry!.url}@acme/airlock-guard/-/airlock-guard-0.1.0.tgz`);
    // It loads as published: its devDependencies (the kernel and contract it compiles against,
    // `file:` paths into the clone that made it) are not installed, and are not needed.
    expect(existsSync(join(project, 'node_modules/@airlock'))).toBe(false);

    const call = await airlock(['call', 'guard', JSON.stringify({ text: 'one two\nthree' })], project);
    expect(call.stderr).toContain('guard (call_1) → ok');
    expect(call).toMatchObject({ code: 0, stdout: '2 lines, 3 words, 13 characters\n' });
  });

  it('adds @acme/airlock-policy for the user: listed from the user layer, and its rule holds', async () => {
    const added = await timed('extensions add --user (registry)', () => airlock(['extensions', 'add', '--user', '@acme/airlock-policy'], base));
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('Added @acme/airlock-policy 0.1.0 to the user settings');

    const elsewhere = join(base, 'elsewhere');
    mkdirSync(join(elsewhere, '.git'), { recursive: true });
    const listed = await airlock(['--json', 'extensions'], elsewhere);
    expect(listed.code, listed.stderr).toBe(0);
    const extensions = (JSON.parse(listed.stdout) as { extensions: { name: string; layer: string; status: string; version?: string }[] }).extensions;
    expect(extensions.find((e) => e.name === 'airlock-policy')).toMatchObject({ layer: 'user', status: 'loaded', version: '0.1.0' });

    // The scaffold's rule: no tool writes a lock file, in any project of this user.
    const write = await airlock(['call', 'write', JSON.stringify({ path: 'yarn.lock', content: 'x' })], elsewhere);
    expect(write.code).toBe(1);
    expect(write.stdout).toContain('Denied by policy');
    expect(write.stdout).toContain('yarn.lock is written by a person or a package manager');
    expect(existsSync(join(elsewhere, 'yarn.lock'))).toBe(false);
  });
});

// The rest of issue 27 §1 goes in this block, each flow as tests of its own once its command
// exists (the registry, the installed CLI and the trusted project above are ready for them):
// - `airlock extensions add @airlock/command-hooks` and `@airlock/mcp-tools`: official packages,
//   taken offline from the installed CLI's own copy, not from this registry;
// - `airlock extensions update` and `airlock extensions remove` of @acme/airlock-guard;
// - `airlock extensions info <name>` of a registry package before it is installed.
describe('official extensions, update, remove, info before install', () => {
  it('the registry has every @airlock package at its version, and no @airlock name it was not given', async () => {
    const latest = async (name: string) => {
      const response = await fetch(new URL(name.replace('/', '%2f'), registry!.url));
      return response.ok ? ((await response.json()) as { 'dist-tags': { latest: string } })['dist-tags'].latest : response.status;
    };
    const packages = publishedPackages(ROOT).map((p) => p.manifest);
    expect(Object.fromEntries(await Promise.all(packages.map(async (p) => [p.name, await latest(p.name)])))).toEqual(Object.fromEntries(packages.map((p) => [p.name, p.version])));
    // The scope is the registry's own, with no uplink: a name nobody published here is a 404.
    expect(await latest('@airlock/no-such-package')).toBe(404);
  });
});

function cliVersion(): string {
  return publishedPackages(ROOT).find((p) => p.manifest.name === '@airlock/cli')!.manifest.version;
}
