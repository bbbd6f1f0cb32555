import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_EXTENSIONS } from '@airlock/host';
import { publishedPackages } from '../../scripts/workspace-packages.mjs';
import { ROOT } from './harness.js';
import { packedTarballs } from './packed.js';
import { scaledMs } from '@airlock/kernel/testing';

/**
 * What a user gets from the published packages, proved from the tarballs themselves: they are
 * packed (scripts/pack.mjs, as `pnpm pack:all` does), then installed with npm into folders outside
 * the workspace, with a home folder of their own and no pnpm on the way. Only third-party packages
 * come from the registry (npm's cache first: --prefer-offline).
 */

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function exec(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeout?: number }): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { ...options, timeout: options.timeout ?? 240_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

function tarName(name: string, version: string): string {
  return `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
}

let base = '';
let tarballs = '';
let env: NodeJS.ProcessEnv = {};
const npm = (args: string[], cwd: string) => exec('npm', [...args, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd, env });

beforeAll(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'airlock-install-')));
  const home = join(base, 'home');
  mkdirSync(home);
  // The user's npm cache, read before HOME moves, so a run downloads only what is not cached yet.
  const cache = (await exec('npm', ['config', 'get', 'cache'], { cwd: base, env: process.env })).stdout.trim();
  env = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_STATE_HOME: join(home, '.local/state'),
    TMPDIR: process.env.TMPDIR,
    NO_COLOR: '1',
    npm_config_cache: cache,
    npm_config_update_notifier: 'false',
  };
  tarballs = await packedTarballs();
}, scaledMs(300_000));

// Several npm installs live under base: removing them is slow under load, so it gets its own limit.
afterAll(async () => {
  if (base !== '') await rm(base, { recursive: true, force: true, maxRetries: 3 });
}, scaledMs(180_000));

describe('the packed tarballs', () => {
  it('one per published package, with exact versions instead of workspace ranges', async () => {
    const expected = publishedPackages(ROOT).map((p) => tarName(p.manifest.name, p.manifest.version)).sort();
    expect(readdirSync(tarballs).filter((f) => f.endsWith('.tgz')).sort()).toEqual(expected);
    for (const file of expected) {
      const manifest = (await exec('tar', ['-xzOf', join(tarballs, file), 'package/package.json'], { cwd: base, env })).stdout;
      expect(manifest, file).not.toContain('workspace:');
      const listing = (await exec('tar', ['-tzf', join(tarballs, file)], { cwd: base, env })).stdout.split('\n');
      expect(listing, file).toContain('package/README.md');
      expect(listing.filter((f) => /^package\/(test|src\/.*\.test\.ts$)/.test(f)), file).toEqual([]);
    }
  });
});

describe('npm i -g of the one @airlock/cli tarball', () => {
  const prefix = () => join(base, 'global');
  const airlock = (args: string[], cwd: string) => exec(join(prefix(), 'bin/airlock'), args, { cwd, env, timeout: 60_000 });

  beforeAll(async () => {
    mkdirSync(prefix());
    const cli = publishedPackages(ROOT).find((p) => p.manifest.name === '@airlock/cli')!.manifest;
    const installed = await npm(['install', '--global', '--prefix', prefix(), join(tarballs, tarName(cli.name, cli.version))], base);
    if (installed.code !== 0) throw new Error(`npm install -g failed:\n${installed.stderr}`);
  }, scaledMs(300_000));

  it('gives a working airlock: --version, and call read through the default set', { timeout: scaledMs(120_000) }, async () => {
    const project = join(base, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'notes.txt'), 'first line\nsecond line\n');

    const version = await airlock(['--version'], project);
    expect(version).toMatchObject({ code: 0, stdout: '1.0.0\n' });
    // The bundle's chunks ship with it: help loads the command-line parser's chunk, and the
    // top-level help the host's too (it reads the manifests for the commands the default extensions declare).
    const callHelp = await airlock(['call', '--help'], project);
    expect(callHelp).toMatchObject({ code: 0, stderr: '' });
    expect(callHelp.stdout).toContain('Usage: airlock call');
    const help = await airlock(['--help'], project);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('(from @airlock/audit-log)');

    const read = await airlock(['call', 'read', '{"path":"notes.txt"}'], project);
    expect(read.stdout).toBe('first line\nsecond line\n');
    expect(read.code).toBe(0);
    expect(read.stderr).toContain('read (call_1) → ok');

    // Every default extension loads from the install itself, none from the workspace.
    const listed = await airlock(['--json', 'extensions'], project);
    const extensions = (JSON.parse(listed.stdout) as { extensions: { name: string; status: string; packageDir?: string; source?: string }[] }).extensions;
    expect(extensions.map((e) => e.name).sort()).toEqual(DEFAULT_EXTENSIONS.map((name) => name.replace(/^@airlock\//, '')).sort());
    expect(extensions.filter((e) => e.status !== 'loaded')).toEqual([]);
    expect(listed.stdout).not.toContain(ROOT);

    // bash loads the shell parser (web-tree-sitter and its .wasm) from the install too.
    const bash = await airlock(['call', 'bash', '{"command":"echo packed | tr a-z A-Z"}'], project);
    expect(bash).toMatchObject({ code: 0, stdout: 'PACKED\n' });
  });

  it('plays the tour (the quick start\'s next step) from the install', { timeout: scaledMs(120_000) }, async () => {
    const tour = join(base, 'tour');
    const r = await airlock(['run', '--demo', '--demo-dir', tour], base);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`The project: +${tour}`));
    // The scripted model fixed the bug with an edit: the project's file changed on disk.
    expect(readFileSync(join(tour, 'src/cart.js'), 'utf8')).toContain('return sub - off;');
  });

  it('loads a third-party extension that depends on @airlock/kernel through a file: tarball', async () => {
    const ext = join(base, 'shout');
    mkdirSync(join(ext, 'src'), { recursive: true });
    writeFileSync(
      join(ext, 'package.json'),
      JSON.stringify({
        name: 'airlock-shout',
        version: '0.1.0',
        type: 'module',
        files: ['src'],
        airlock: { extension: './src/index.ts', kernel: '^1.0.0', provides: { tools: ['shout'], hooks: [] } },
        dependencies: { '@airlock/kernel': `file:${join(tarballs, tarName('@airlock/kernel', '1.0.0'))}`, typebox: '1.4.3' },
      }),
    );
    writeFileSync(
      join(ext, 'src/index.ts'),
      [
        "import Type from 'typebox';",
        // Written as for kernel 1.0, before the split into contract, kernel and toolkit: it still loads.
        "import type { Extension } from '@airlock/kernel';",
        "import { formatSize } from '@airlock/kernel/util';",
        'const Params = Type.Object({ text: Type.String() });',
        'export default {',
        "  name: 'shout',",
        '  setup(api) {',
        '    api.registerTool({',
        "      name: 'shout', label: 'Shout', description: 'Upper-cases text.', parameters: Params, resources: () => [],",
        "      async execute(_id: string, p: { text: string }) { return { content: [{ type: 'text', text: `${p.text.toUpperCase()} (${formatSize(2048)})` }], details: {} }; },",
        '    });',
        '  },',
        '} satisfies Extension;',
        '',
      ].join('\n'),
    );
    const packed = await npm(['pack', '--pack-destination', base], ext);
    expect(packed.stderr).not.toMatch(/ERR!/);

    const project = join(base, 'app');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
    // The SDK from its tarball with exactly the @airlock packages it reaches through its
    // dependencies (issue 28: installing "every tarball but the CLI's" hid that the SDK pulled the
    // CLI in), next to the extension. The SDK must not need the CLI.
    const manifests = new Map(publishedPackages(ROOT).map((p) => [p.manifest.name, p.manifest]));
    const closure = new Set<string>();
    const reach = (name: string): void => {
      if (closure.has(name) || !manifests.has(name)) return;
      closure.add(name);
      for (const dep of Object.keys(manifests.get(name)!.dependencies ?? {})) reach(dep);
    };
    reach('@airlock/sdk');
    expect([...closure]).not.toContain('@airlock/cli');
    const sdkTarballs = [...closure].map((name) => join(tarballs, tarName(name, manifests.get(name)!.version)));
    const installed = await npm(['install', join(base, 'airlock-shout-0.1.0.tgz'), ...sdkTarballs], project);
    expect(installed.stderr).not.toMatch(/ERR!/);
    expect(installed.code).toBe(0);
    expect(existsSync(join(project, 'node_modules/@airlock/cli'))).toBe(false);
    expect(existsSync(join(project, 'node_modules/@airlock/sdk/package.json'))).toBe(true);
    // The kernel came from its tarball and runs on plain Node from its compiled files.
    const kernel = await exec(process.execPath, ['--input-type=module', '-e', "const k = await import('@airlock/kernel'); const u = await import('@airlock/toolkit/util'); console.log(typeof k.Kernel, u.formatSize(2048))"], { cwd: project, env });
    expect(kernel).toMatchObject({ code: 0, stdout: 'function 2.0KB\n' });

    writeFileSync(join(project, '.airlockrc.json'), JSON.stringify({ extensions: ['airlock-shout'] }));
    const call = await airlock(['--trust', 'call', 'shout', '{"text":"hello"}'], project);
    expect(call.stderr).toContain('shout (call_1) → ok');
    expect(call).toMatchObject({ code: 0, stdout: 'HELLO (2.0KB)\n' });
    expect(existsSync(join(project, 'node_modules/@airlock/kernel/dist/index.js'))).toBe(true);

    // A program on plain Node opens a host with the SDK: the default set loads from the compiled
    // extension packages (a second host reuses them), and the extension answers through it.
    writeFileSync(
      join(project, 'main.mjs'),
      [
        "import { createAirlock } from '@airlock/sdk';",
        "import { writeFileSync } from 'node:fs';",
        "writeFileSync('notes.txt', 'from the sdk\\n');",
        'const started = performance.now();',
        "const first = await createAirlock({ cwd: process.cwd(), extensions: ['airlock-shout'] });",
        'const firstMs = performance.now() - started;',
        "const second = await createAirlock({ cwd: process.cwd(), extensions: ['airlock-shout'] });",
        'const secondMs = performance.now() - started - firstMs;',
        "const read = await second.execute({ id: 'c1', name: 'read', arguments: { path: 'notes.txt' } });",
        "const shout = await first.execute({ id: 'c2', name: 'shout', arguments: { text: 'sdk' } });",
        'console.log(JSON.stringify({ blocked: first.blocked ?? null, read: read.content[0].text, shout: shout.content[0].text, firstMs, secondMs }));',
        'await first.close(); await second.close();',
      ].join('\n'),
    );
    const sdk = await exec(process.execPath, ['main.mjs'], { cwd: project, env });
    expect(sdk.stderr).toBe('');
    const out = JSON.parse(sdk.stdout) as { blocked: unknown; read: string; shout: string; firstMs: number; secondMs: number };
    expect(out).toMatchObject({ blocked: null, read: 'from the sdk\n', shout: 'SDK (2.0KB)' });
    // Airlock's own extensions are compiled JavaScript in their tarballs, imported natively once per
    // process: from TypeScript through jiti a second host took seconds (2.6–4.6 s measured). What
    // the SDK's hosts loaded is the manifests' entry, so every entry must be built JavaScript.
    for (const name of ['tool-read', 'tool-bash', 'path-policy', 'audit-log', 'approval', 'redact-secrets']) {
      const manifest = (JSON.parse(readFileSync(join(project, 'node_modules/@airlock', name, 'package.json'), 'utf8')) as { airlock: { extension: string } }).airlock;
      expect(manifest.extension, name).toMatch(/\.js$/);
      expect(existsSync(join(project, 'node_modules/@airlock', name, manifest.extension)), name).toBe(true);
    }
  }, scaledMs(300_000));
});
