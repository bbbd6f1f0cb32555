#!/usr/bin/env node
// `pnpm pack:all [folder]`: the tarballs Airlock publishes, built from this workspace.
//
// 1. Every package under packages/ and extensions/ is packed with `pnpm pack`, which turns each
//    `workspace:*` range into the exact version.
// 2. A package whose entry points are TypeScript (the extension packages: the workspace runs them
//    from src/ with no build) is packed once more with its source compiled to dist/ by tsc, and
//    its manifest (exports, `airlock.extension`) pointed at the compiled files, with src/ kept for
//    the `source` condition. A program that opens a host on plain Node (the SDK) then imports
//    Airlock's own extensions natively, shared by every host in the process, instead of compiling
//    them with jiti on each load (seconds per host, measured). Third-party extensions may stay
//    TypeScript: the host still loads those through jiti.
// 3. @airlock/cli is packed once more as the one package a user installs: the @airlock packages it
//    needs (the kernel, host, agent, serve, and every extension under extensions/tools and
//    extensions/policy with their libraries; the CLI's source depends on no extension, so they
//    are taken from the folders here, and the default set checked against DEFAULT_EXTENSIONS) travel
//    inside it as bundled dependencies, and the tour (examples/tour, for `airlock run --demo`)
//    with them, so `npm i -g airlock-cli-<v>.tgz` works on its own, before
//    any @airlock package is on a registry and with no pnpm and no build. Only third-party packages
//    come from the registry. (pnpm's own bundling copies workspace package.json files with their
//    `workspace:*` ranges, which npm cannot install: hence this step.)
//
// Needs a build (`pnpm build`); the root script runs it first.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publishedPackages } from './workspace-packages.mjs';
import { DEFAULT_EXTENSIONS } from '../packages/host/dist/index.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = '@airlock/cli';

/** Stops the packing; thrown (not exit) so every temp folder is removed on the way out. */
class PackError extends Error {}

function fail(message) {
  throw new PackError(message);
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
function packEach(packages, dest, work) {
  const typescript = packages.filter((p) => shipsTypeScript(p.manifest)).map((p) => p.path);
  const compiledRoot = typescript.length > 0 ? compileTypeScript(typescript, join(work, 'compiled')) : '';
  const tarballs = new Map();
  for (const { path, manifest } of packages) {
    run('pnpm', ['pack', '--pack-destination', dest], join(ROOT, path));
    const tarball = join(dest, tarballName(manifest));
    if (!existsSync(tarball)) fail(`pnpm pack in ${path} wrote no ${tarballName(manifest)}`);
    const packed = packedManifest(tarball);
    const ranges = JSON.stringify([packed.dependencies, packed.peerDependencies, packed.optionalDependencies]);
    if (ranges.includes('workspace:')) fail(`${tarball} still has a workspace: range: ${ranges}`);
    if (shipsTypeScript(packed)) packCompiled(path, tarball, compiledRoot);
    tarballs.set(manifest.name, tarball);
  }
  return tarballs;
}

/** A `./src/x.ts` entry → where tsc writes it: `./dist/x.js` (or `.d.ts` for types). */
function compiled(target, ext) {
  return target.replace(/^\.\/src\//, './dist/').replace(/\.ts$/, ext);
}

/** Whether a manifest loads TypeScript on plain Node: an export's default or the extension entry is `.ts`. */
export function shipsTypeScript(manifest) {
  const defaults = [];
  const walk = (entry) => {
    if (typeof entry === 'string') defaults.push(entry);
    else if (entry !== null && typeof entry === 'object') for (const [condition, inner] of Object.entries(entry)) if (condition !== 'source' && condition !== 'types') walk(inner);
  };
  walk(manifest.exports);
  if (manifest.airlock?.extension !== undefined) defaults.push(manifest.airlock.extension);
  return defaults.some((target) => target.endsWith('.ts') && !target.endsWith('.d.ts'));
}

/** `{ types: ./src/x.ts, default: ./src/x.ts }` → source, then the compiled declarations and module. */
function compiledExports(exports) {
  if (typeof exports === 'string') return exports.endsWith('.ts') ? { source: exports, types: compiled(exports, '.d.ts'), default: compiled(exports, '.js') } : exports;
  const out = {};
  for (const [key, entry] of Object.entries(exports)) {
    if (typeof entry === 'string') out[key] = compiledExports(entry);
    else if (typeof entry.default === 'string' && entry.default.endsWith('.ts')) out[key] = compiledExports(entry.default);
    else out[key] = entry;
  }
  return out;
}

/**
 * Compiles the src/ of every package that ships TypeScript in one tsc run (one per package is
 * ~15 × slower); returns the folder holding `<package path>/src/…` compiled.
 */
function compileTypeScript(paths, into) {
  // Type resolution starts at the real sources (their node_modules), so the config can live elsewhere.
  const tsconfig = {
    extends: join(ROOT, 'tsconfig.base.json'),
    compilerOptions: {
      rootDir: ROOT,
      outDir: into,
      composite: false,
      declarationMap: false,
      noEmitOnError: true,
      customConditions: ['source'],
      typeRoots: [join(ROOT, 'node_modules/@types')],
    },
    include: paths.map((path) => join(ROOT, path, 'src')),
  };
  const file = join(into, 'tsconfig.json');
  mkdirSync(into, { recursive: true });
  writeFileSync(file, JSON.stringify(tsconfig));
  try {
    run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', file], ROOT);
  } catch (error) {
    fail(`tsc could not compile ${paths.join(', ')} for their tarballs:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
  }
  return into;
}

/** 2. Repack a TypeScript package with its compiled src/ as dist/ (see the top of this file). */
function packCompiled(path, tarball, compiledRoot) {
  const stage = mkdtempSync(join(tmpdir(), 'airlock-pack-'));
  try {
    run('tar', ['-xzf', tarball, '-C', stage]);
    const pkgDir = join(stage, 'package');
    cpSync(join(compiledRoot, path, 'src'), join(pkgDir, 'dist'), { recursive: true });
    const manifest = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
    manifest.exports = compiledExports(manifest.exports);
    if (manifest.airlock?.extension?.endsWith('.ts')) manifest.airlock.extension = compiled(manifest.airlock.extension, '.js');
    manifest.files = [...new Set([...(manifest.files ?? []), 'dist'])];
    if (shipsTypeScript(manifest)) fail(`${path}: its packed manifest still loads TypeScript: ${JSON.stringify(manifest.exports)}`);
    for (const target of [...exportTargets(manifest.exports), manifest.airlock?.extension].filter(Boolean)) {
      if (!existsSync(join(pkgDir, target))) fail(`${path}: tsc wrote no ${target}`);
    }
    writeFileSync(join(pkgDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    rmSync(tarball);
    run('npm', ['pack', '--pack-destination', dirname(tarball), '--ignore-scripts', '--silent'], pkgDir);
    if (!existsSync(tarball)) fail(`npm pack wrote no ${tarball}`);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** 3. The CLI with its @airlock dependencies bundled; replaces the plain CLI tarball. */
function packInstallableCli(tarballs, dest, officialExtensions) {
  const stage = mkdtempSync(join(tmpdir(), 'airlock-pack-'));
  try {
    run('tar', ['-xzf', tarballs.get(CLI), '-C', stage]);
    const pkgDir = join(stage, 'package');
    const cli = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));

    // Every official extension travels with the CLI, though the CLI's own code imports none of
    // them: the default set, which the installed host loads by name, and the others (command-hooks,
    // mcp-tools…), which `airlock extensions add @airlock/<name>` then takes from this copy, with
    // no registry asked for the @airlock scope (anyone could publish that name first) and always
    // the version this kernel was built with. (The range is replaced below by the exact version of
    // the tarball that is bundled.)
    cli.dependencies ??= {};
    for (const name of DEFAULT_EXTENSIONS) if (!tarballs.has(name)) fail(`the default extension ${name} has no tarball: is it still under extensions/?`);
    for (const name of [...DEFAULT_EXTENSIONS, ...officialExtensions]) cli.dependencies[name] ??= '*';
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
    // `airlock run --demo` finds the tour in examples/tour above its own module, as in a checkout.
    cpSync(join(ROOT, 'examples/tour'), join(pkgDir, 'examples/tour'), { recursive: true });
    cli.files = [...new Set([...(cli.files ?? []), 'examples'])];
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
  const work = mkdtempSync(join(tmpdir(), 'airlock-pack-'));
  let tarballs;
  try {
    tarballs = packEach(packages, dest, work);
    packInstallableCli(tarballs, dest, packages.filter((p) => /^extensions\/(tools|policy)\//.test(p.path)).map((p) => p.manifest.name));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  process.stdout.write(`${[...tarballs.values()].sort().join('\n')}\n`);
  process.stderr.write(`pack: ${tarballs.size} tarballs in ${dest}; install the CLI with: npm i -g ${tarballs.get(CLI)}\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (error) {
    const output = error instanceof PackError ? '' : `${error.stdout ?? ''}${error.stderr ?? ''}`;
    process.stderr.write(`pack: ${error.message}\n${output}`);
    process.exitCode = 1;
  }
}
