import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaledMs } from '@airlock/kernel/testing';
import { publishedPackages } from '../../scripts/workspace-packages.mjs';
import { BIN, ROOT, type Run } from './harness.js';
import { packedTarballs } from './packed.js';
import { startRegistry, type Registry } from './registry.js';

const FILESYSTEM_SERVER = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

/**
 * Airlock as a user gets it from an npm registry: every published @airlock package and two
 * third-party packages (@acme/airlock-guard, a tool, and @acme/airlock-policy, a policy, both
 * made with `airlock extensions new`) are published to a Verdaccio started here, and then, in a
 * fresh HOME whose npm knows only that registry, the CLI is installed with
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
/** The user's machine: a HOME of its own, npm naming only the test registry. */
let user: NodeJS.ProcessEnv = {};
const prefix = () => join(base, 'global');
const airlock = (args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) => exec(join(prefix(), 'bin/airlock'), args, { cwd, env: { ...user, ...env }, timeoutMs: scaledMs(120_000) });
/** Publishes a tarball or folder as the publisher (set up in beforeAll). */
let publish: (what: string) => Promise<Run> = () => Promise.reject(new Error('the registry is not up'));
/** Where the third-party packages were made (`tool`, `policy`). */
const acmeDir = (kind: 'tool' | 'policy') => join(base, 'acme', kind);

beforeAll(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'airlock-registry-')));
  const acme = join(base, 'acme');
  // Packing takes most of this hook (tsc for each extension): the registry and the third-party
  // packages are made meanwhile.
  const [tarballs, started] = await Promise.all([
    timed('pack (or wait for install-packed to)', () => packedTarballs()),
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

  // The publisher's own npm config: the registry and its token (npm and pnpm refuse to publish without one).
  const publisher = join(base, 'publisher');
  mkdirSync(publisher);
  const publishEnv = { PATH: process.env.PATH, HOME: publisher, TMPDIR: process.env.TMPDIR, npm_config_userconfig: registry.npmrc(join(publisher, '.npmrc')) };
  publish = async (what: string) =>
    succeeded(
      `pnpm publish ${what}`,
      await exec('pnpm', ['publish', what, '--registry', registry!.url, '--no-git-checks', '--ignore-scripts'], { cwd: publisher, env: publishEnv, timeoutMs: scaledMs(120_000) }),
    );
  const queue = [...readdirSync(tarballs).map((f) => join(tarballs, f)), join(acme, 'tool'), join(acme, 'policy')];
  // A few at a time: each is a process of its own on a 2-core machine.
  await timed('publish all', () => Promise.all([1, 2, 3, 4].map(async () => { for (let next = queue.shift(); next !== undefined; next = queue.shift()) await publish(next); })));

  const machineCache = succeeded('npm config get cache', await exec('npm', ['config', 'get', 'cache'], { cwd: base, env: process.env, timeoutMs: scaledMs(30_000) })).stdout.trim();
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
    // The machine's npm cache, read before HOME moved: it holds tarballs by their integrity, so
    // it saves downloads without deciding anything. What to install comes from the package
    // documents, and those only this registry serves (its URL is the cache key).
    npm_config_cache: machineCache,
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
    // npm was given a bare name and knows no other registry: the CLI, with the
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

describe("Airlock's own packages come from the installed CLI, never the registry", () => {
  it('adds @airlock/command-hooks and @airlock/mcp-tools with the registry unreachable, and both work', async () => {
    const project = join(base, 'official');
    mkdirSync(join(project, '.git'), { recursive: true });
    writeFileSync(join(project, 'notes.txt'), 'hello\n');
    expect((await airlock(['trust', project], base)).code).toBe(0);
    const offline = { npm_config_registry: 'http://127.0.0.1:9/' };
    for (const name of ['@airlock/command-hooks', '@airlock/mcp-tools']) {
      const added = await timed(`extensions add ${name} (offline, CLI's copy)`, () => airlock(['extensions', 'add', name], project, offline));
      expect(added.code, added.stderr).toBe(0);
      expect(added.stdout).toContain(`Added ${name} 1.0.0 from Airlock's own copy (nothing was downloaded)`);
    }
    // Used: a hook that refuses bash, and a filesystem MCP server whose tool lists the project.
    writeFileSync(
      join(project, '.airlockrc.json'),
      JSON.stringify({
        extensions: [
          { name: '@airlock/command-hooks', options: { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo "no shell here" >&2; exit 2' }] }] } } },
          { name: '@airlock/mcp-tools', options: { mcpServers: { filesystem: { command: process.execPath, args: [FILESYSTEM_SERVER, project] } } } },
        ],
      }),
    );
    const bash = await airlock(['call', 'bash', '{"command":"echo ran"}'], project, offline);
    expect(bash.code).toBe(1);
    expect(bash.stdout).toContain('no shell here');
    const listed = await airlock(['call', 'filesystem__list_directory', JSON.stringify({ path: project })], project, offline);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('notes.txt');
  });

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

describe('info before install, update, remove', () => {
  const project = () => join(base, 'project');

  it('info on a package installed nowhere here asks the registry, and says whether this CLI loads it', async () => {
    const elsewhere = join(base, 'info');
    mkdirSync(join(elsewhere, '.git'), { recursive: true });
    const info = await airlock(['extensions', 'info', '@acme/airlock-guard'], elsewhere);
    expect(info.code, info.stderr).toBe(0);
    expect(info.stdout).toContain('@acme/airlock-guard 0.1.0 (tool), on the registry');
    expect(info.stdout).toContain('not installed: add it with `airlock extensions add @acme/airlock-guard`');
    expect(info.stdout).toMatch(/tools:\s+guard/);
    expect(info.stdout).toContain(', loads)');
    const json = JSON.parse((await airlock(['--json', 'extensions', 'info', '@acme/airlock-guard'], elsewhere)).stdout) as { status: string; loads: boolean; kind: string };
    expect(json).toMatchObject({ status: 'not-installed', loads: true, kind: 'tool' });
    const missing = await airlock(['extensions', 'info', '@acme/airlock-gaurd'], elsewhere);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('the registry has none by that name');
  });

  it('update moves to the new release and lists what changed in what it declares', async () => {
    const pkgFile = join(acmeDir('tool'), 'package.json');
    const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { version: string; airlock: Record<string, unknown> };
    writeFileSync(pkgFile, JSON.stringify({ ...pkg, version: '0.2.0', airlock: { ...pkg.airlock, uses: ['network'] } }, null, 2));
    await publish(acmeDir('tool'));
    const updated = await timed('extensions update (registry)', () => airlock(['extensions', 'update'], project()));
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toContain('@acme/airlock-guard: 0.1.0 → 0.2.0');
    expect(updated.stdout).toContain('+ uses network');
    const lock = JSON.parse(readFileSync(join(project(), 'airlock-lock.json'), 'utf8')) as { packages: Record<string, { version: string; source: string }> };
    expect(lock.packages['@acme/airlock-guard']).toMatchObject({ version: '0.2.0', source: 'registry' });
    expect(await airlock(['call', 'guard', '{"text":"a b"}'], project())).toMatchObject({ code: 0, stdout: '1 lines, 2 words, 3 characters\n' });
    // Nothing newer: it says so, and changes nothing.
    const again = await airlock(['extensions', 'update', '@acme/airlock-guard'], project());
    expect(again).toMatchObject({ code: 0 });
    expect(again.stdout).toContain('@acme/airlock-guard: 0.2.0 is the latest');
  });

  it('remove takes it out of the settings, the lock and node_modules', async () => {
    const removed = await airlock(['extensions', 'remove', '@acme/airlock-guard'], project());
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(project(), '.airlockrc.json'), 'utf8'))).toEqual({ extensions: [] });
    expect(existsSync(join(project(), 'node_modules/@acme/airlock-guard'))).toBe(false);
    expect((await airlock(['call', 'guard', '{"text":"a"}'], project())).code).not.toBe(0);
  });
});

function cliVersion(): string {
  return publishedPackages(ROOT).find((p) => p.manifest.name === '@airlock/cli')!.manifest.version;
}
