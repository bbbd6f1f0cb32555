#!/usr/bin/env node
// `pnpm pack:all [folder]`: the tarballs Airlock publishes, built from this workspace.
//
// 1. Every package under packages/ and extensions/ is packed with `pnpm pack`, which turns each
//    `workspace:*` range into the exact version.
// 2. @airlock/cli is packed once more as the one package a user installs: the @airlock packages it
//    needs (the kernel, host, agent, serve and the default extensions with their libraries) travel
//    inside it as bundled dependencies, so `npm i -g airlock-cli-<v>.tgz` works on its own, before
//    any @airlock package is on a registry and with no pnpm and no build. Only third-party packages
//    come from the registry. (pnpm's own bundling copies workspace package.json files with their
//    `workspace:*` ranges, which npm cannot install: hence this step.)
//
// Needs a build (`pnpm build`); the root script runs it first.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publishedPackages } from './workspace-packages.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = '@airlock/cli';

function fail(message) {
  process.stderr.write(`pack: ${message}\n`);
  process.exit(1);
}

function run(command, args, cwd) {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The package.json inside a tarball, without unpacking the rest. */
function packedManifest(tarball) {
  return JSON.parse(run('tar', ['-xzOf', tarball, 'package/package.json']));
}

/** `@airlock/tool-read` 1.0.0 → `airlock-tool-read-1.0.0.tgz`, the name npm and pnpm give a tarball. */
function tarballName(manifest) {
  return `${manifest.name.replace(/^@/, '').replace('/', '-')}-${manifest.version}.tgz`;
}

function checkBuilt(packages) {
  for (const { path, manifest } of packages) {
    if (manifest.private) fail(`${path} is marked private; every package under packages/ and extensions/ is published (remove "private")`);
    for (const target of exportTargets(manifest.exports)) {
      if (!existsSync(join(ROOT, path, target))) fail(`${path}: its exports name ${target}, which does not exist. Run \`pnpm build\` first.`);
    }
  }
  if (!existsSync(join(ROOT, 'packages/cli/dist/airlock.mjs'))) fail('packages/cli/dist/airlock.mjs is missing. Run `pnpm build` first.');
}

/** Every file an `exports` map points at (all conditions, all subpaths). */
export function exportTargets(exports) {
  if (typeof exports === 'string') return [exports];
  if (exports === null || typeof exports !== 'object') return [];
  return Object.values(exports).flatMap(exportTargets);
}

/** 1. One tarball per package; returns them by package name. */
function packEach(packages, dest) {
  const tarballs = new Map();
  for (const { path, manifest } of packages) {
    run('pnpm', ['pack', '--pack-destination', dest], join(ROOT, path));
    const tarball = join(dest, tarballName(manifest));
    if (!existsSync(tarball)) fail(`pnpm pack in ${path} wrote no ${tarballName(manifest)}`);
    const packed = packedManifest(tarball);
    const ranges = JSON.stringify([packed.dependencies, packed.peerDependencies, packed.optionalDependencies]);
    if (ranges.includes('workspace:')) fail(`${tarball} still has a workspace: range: ${ranges}`);
    tarballs.set(manifest.name, tarball);
  }
  return tarballs;
}

/** 2. The CLI with its @airlock dependencies bundled; replaces the plain CLI tarball. */
function packInstallableCli(tarballs, dest) {
  const stage = mkdtempSync(join(tmpdir(), 'airlock-pack-'));
  try {
    run('tar', ['-xzf', tarballs.get(CLI), '-C', stage]);
    const pkgDir = join(stage, 'package');
    const cli = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));

    // Every @airlock package the CLI reaches, each unpacked as published into the CLI's node_modules.
    const bundled = new Map();
    const thirdParty = new Map();
    const addThirdParty = (name, range, from) => {
      const seen = thirdParty.get(name);
      if (seen !== undefined && seen.range !== range) fail(`${from} needs ${name}@${range} but ${seen.from} needs ${name}@${seen.range}; pin one version in both`);
      thirdParty.set(name, { range, from });
    };
    const visit = (manifest) => {
      for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
        if (!tarballs.has(name)) {
          addThirdParty(name, range, manifest.name);
          continue;
        }
        if (name === CLI || bundled.has(name)) continue;
        const target = join(pkgDir, 'node_modules', name);
        mkdirSync(target, { recursive: true });
        run('tar', ['-xzf', tarballs.get(name), '-C', target, '--strip-components=1']);
        const innerFile = join(target, 'package.json');
        const inner = JSON.parse(readFileSync(innerFile, 'utf8'));
        bundled.set(name, inner.version);
        visit(inner);
        // npm counts every dependency of a bundled package as part of the bundle and would leave
        // an empty folder for each third-party one. Those are the CLI's own dependencies instead
        // (same pinned versions, checked above), installed next to the bundled packages, which
        // find them by walking up as any package does.
        inner.dependencies = Object.fromEntries(Object.entries(inner.dependencies ?? {}).filter(([dep]) => tarballs.has(dep)));
        writeFileSync(innerFile, `${JSON.stringify(inner, null, 2)}\n`);
      }
    };
    visit(cli);

    const dependencies = { ...Object.fromEntries([...thirdParty].map(([name, { range }]) => [name, range])), ...Object.fromEntries(bundled) };
    cli.dependencies = Object.fromEntries(Object.entries(dependencies).sort(([a], [b]) => a.localeCompare(b)));
    cli.bundleDependencies = [...bundled.keys()].sort();
    delete cli.devDependencies;
    delete cli.scripts;
    writeFileSync(join(pkgDir, 'package.json'), `${JSON.stringify(cli, null, 2)}\n`);
    rmSync(tarballs.get(CLI));
    run('npm', ['pack', '--pack-destination', dest, '--ignore-scripts', '--silent'], pkgDir);
    if (!existsSync(tarballs.get(CLI))) fail(`npm pack wrote no ${tarballs.get(CLI)}`);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

function main() {
  const dest = resolve(process.argv[2] ?? join(ROOT, 'dist-packages'));
  const packages = publishedPackages(ROOT);
  if (!packages.some((p) => p.manifest.name === CLI)) fail(`no ${CLI} under packages/`);
  checkBuilt(packages);
  mkdirSync(dest, { recursive: true });
  const tarballs = packEach(packages, dest);
  packInstallableCli(tarballs, dest);
  process.stdout.write(`${[...tarballs.values()].sort().join('\n')}\n`);
  process.stderr.write(`pack: ${tarballs.size} tarballs in ${dest}; install the CLI with: npm i -g ${tarballs.get(CLI)}\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
