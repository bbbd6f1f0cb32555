import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { checkKernelRange, DEFAULT_EXTENSIONS, openHost, readManifest } from '@airlock/host';
import { KERNEL_VERSION } from '@airlock/kernel';
import { displayText } from '@airlock/toolkit/display';
import { errorMessage } from '@airlock/toolkit/util';
import { runPackageManager } from '../extensions/package-manager.js';
import { EXTENSION_KEYWORD, hasExtensionKeyword } from '../extensions/extension-keyword.js';
import { showWorded } from './diagnostics.js';
import { EXIT, UsageError, type IO } from '../io.js';
import type { GlobalOptions } from '../global-options.js';

/** One finding of `extensions check`: passed, or a problem with what to do about it. */
export interface Check {
  /** What was checked, in a few words. */
  what: string;
  result: 'ok' | 'error' | 'warning';
  said: string;
  fix?: string;
}

/**
 * `airlock extensions check [folder|tarball]`: what a third party runs before publishing, and a
 * user before installing. From the package as npm would publish it (`npm pack --dry-run` of a
 * folder; a tarball as it is): the manifest and kernel range, that the entry module is among the
 * published files and is JavaScript, a README, tests, and a dry load in a throwaway host (its
 * own temp folders, no settings of the person's) that shows what it registers and every warning
 * the host has for it (a tool taking a path with no `resources()`, say). Exits 2 when an error
 * was found, 0 otherwise.
 */
export async function extensionsCheckCommand(o: { target?: string }, g: GlobalOptions, io: IO): Promise<number> {
  const target = resolve(io.cwd, o.target ?? '.');
  if (!existsSync(target)) throw new UsageError(`${o.target ?? '.'} does not exist.`, 'Give a package folder (with a package.json) or a .tgz made by `npm pack`.');
  const scratch = mkdtempSync(join(tmpdir(), 'airlock-check-'));
  try {
    const tarball = /\.(tgz|tar\.gz)$/.test(target);
    const dir = tarball ? await unpack(target, scratch, io) : target;
    if (!existsSync(join(dir, 'package.json'))) throw new UsageError(`${target} holds no package.json.`, 'Give a package folder (with a package.json) or a .tgz made by `npm pack`.');
    const published = tarball ? undefined : await publishedFiles(dir, io);
    const checks = await checkPackage(dir, { published, sourceFolder: !tarball, scratch });
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
    const failed = checks.some((c) => c.result === 'error');
    if (g.json) io.stdout.write(`${JSON.stringify({ name: pkg.name ?? null, version: pkg.version ?? null, kernelVersion: KERNEL_VERSION, ok: !failed, checks })}\n`);
    else io.stdout.write(render(`${pkg.name ?? target} ${pkg.version ?? ''}`.trim(), checks));
    return failed ? EXIT.usage : EXIT.ok;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function checkPackage(dir: string, o: { published: string[] | undefined; sourceFolder: boolean; scratch: string }): Promise<Check[]> {
  const checks: Check[] = [];
  const m = readManifest(dir, { extension: dir, layer: 'user' });
  if (!m.ok) {
    checks.push({ what: 'manifest', result: 'error', said: firstParagraph(m.diagnostic.message), ...(m.diagnostic.fix === undefined ? {} : { fix: m.diagnostic.fix }) });
    return checks;
  }
  checks.push({ what: 'manifest', result: 'ok', said: `package.json#airlock names ${m.manifest.extension}, kernel ${m.manifest.kernel}` });
  const refused = checkKernelRange({ packageName: m.packageName, version: m.version, range: m.manifest.kernel, kernelVersion: KERNEL_VERSION }, { extension: m.packageName, layer: 'user' });
  checks.push(refused === undefined ? { what: 'kernel range', result: 'ok', said: `${m.manifest.kernel} accepts this kernel (${KERNEL_VERSION})` } : { what: 'kernel range', result: 'error', said: firstParagraph(refused.message), ...(refused.fix === undefined ? {} : { fix: refused.fix }) });

  checks.push(keywordCheck(dir));
  if (!m.packageName.startsWith('@airlock/')) checks.push(airlockDependencyCheck(dir));

  const entry = m.manifest.extension.replace(/^\.\//, '');
  if (o.published !== undefined && !o.published.includes(entry)) {
    checks.push({ what: 'published files', result: 'error', said: `${entry} is not among the files npm would publish, so an install could not load it.`, fix: 'Add it (or its folder) to package.json "files", build it before packing, or check .npmignore.' });
  } else checks.push({ what: 'published files', result: 'ok', said: `${entry} is in the package${o.published === undefined ? '' : ` (${o.published.length} files)`}` });
  checks.push(
    /\.(m?js|cjs)$/.test(entry)
      ? { what: 'entry', result: 'ok', said: 'JavaScript: loaded natively' }
      : { what: 'entry', result: 'warning', said: `${entry} is TypeScript: every host transpiles it through jiti at start (about a second for a small package).`, fix: 'Publish the built JavaScript and name it in package.json#airlock.extension.' },
  );
  const names = readdirSync(dir);
  checks.push(names.some((n) => /^readme(\.md|\.txt)?$/i.test(n)) ? { what: 'README', result: 'ok', said: 'present' } : { what: 'README', result: 'warning', said: 'no README: people installing it cannot see what it does, its options or its rules.', fix: 'Add a README.md saying what it registers, its options and an example.' });
  if (o.sourceFolder) {
    const tests = existsSync(join(dir, 'test')) || existsSync(join(dir, 'tests')) || names.some((n) => /\.test\.[cm]?[jt]s$/.test(n));
    checks.push(tests ? { what: 'tests', result: 'ok', said: 'a test folder or test files' } : { what: 'tests', result: 'warning', said: 'no tests found (test/, tests/ or *.test.*).', fix: '`airlock extensions new` makes a package with a passing test to start from (createToolHarness or createTestHost from @airlock/kernel/testing).' });
  }
  checks.push(...(await dryLoad(dir, m.packageName, o.scratch)));
  return checks;
}

/** `airlock extensions search` finds packages by this keyword: without it a published package is hard to find. */
function keywordCheck(dir: string): Check {
  const { keywords } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { keywords?: unknown };
  if (hasExtensionKeyword(keywords)) return { what: 'keyword', result: 'ok', said: `"${EXTENSION_KEYWORD}" is among its keywords` };
  return { what: 'keyword', result: 'warning', said: `package.json has no "${EXTENSION_KEYWORD}" keyword: \`airlock extensions search\` and npm's keyword search will not find it.`, fix: `Add "keywords": ["${EXTENSION_KEYWORD}"] to package.json.` };
}

/**
 * `@airlock/*` among its dependencies or peer dependencies: a project's package manager would
 * fetch those from a registry, where anyone could have published the name, so `extensions add`
 * refuses the package for a project. The host hands every extension its own contract, kernel,
 * toolkit and typebox; types and tests need them as devDependencies only.
 */
function airlockDependencyCheck(dir: string): Check {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, unknown>; peerDependencies?: Record<string, unknown> };
  const named = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})].filter((name) => name.startsWith('@airlock/'));
  if (named.length === 0) return { what: 'dependencies', result: 'ok', said: 'no @airlock package among them (the host hands you its own)' };
  return {
    what: 'dependencies',
    result: 'warning',
    said: `${[...new Set(named)].join(', ')} ${named.length === 1 ? 'is a dependency' : 'are dependencies'}: a project's package manager would fetch ${named.length === 1 ? 'it' : 'them'} from a registry, so \`airlock extensions add\` installs this package only for a user (--user), where ${named.length === 1 ? 'it is' : 'they are'} linked to Airlock's own copy.`,
    fix: 'Move @airlock/* to devDependencies: the host hands every extension its own @airlock/contract, @airlock/kernel, @airlock/toolkit and typebox at run time.',
  };
}

/** Load it alone in a throwaway host: its own temp folders, the package by path in code settings. */
async function dryLoad(dir: string, name: string, scratch: string): Promise<Check[]> {
  const home = join(scratch, 'home');
  const project = join(scratch, 'project');
  await mkdir(join(home, '.config', 'airlock'), { recursive: true });
  await mkdir(project, { recursive: true });
  let host: Awaited<ReturnType<typeof openHost>> | undefined;
  try {
    host = await openHost({
      cwd: project,
      homeDir: home,
      interactive: false,
      env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(scratch, 'state'), PATH: process.env.PATH },
      // Alone: the default set left out, so what it registers and says is its own.
      settings: { extensions: [{ path: dir }, ...DEFAULT_EXTENSIONS.map((d) => `-${d}`)] } as never,
      log: () => {},
    });
    const record = host.extensions.extensions.find((r) => r.packageName === name || r.source?.realDir === realpathSync(dir));
    const problems = host.diagnostics.filter((d) => d.severity !== 'info' && (d.extension === record?.name || d.extension === name || d.extension === dir));
    if (record?.status !== 'loaded') {
      const d = problems.find((p) => p.severity === 'error') ?? problems[0];
      return [{ what: 'dry load', result: 'error', said: d === undefined ? `it did not load (${record?.status ?? 'not found'})` : firstParagraph(d.message), ...(d?.fix === undefined ? {} : { fix: d.fix }) }];
    }
    const checks: Check[] = [{ what: 'dry load', result: 'ok', said: `setup ran: ${[...record.tools.map((t) => `tool ${t}`), ...record.hooks.map((h) => `${h.hook}/${h.phase}`)].join(', ') || 'registered nothing'}` }];
    for (const d of problems) checks.push({ what: 'dry load', result: d.severity === 'error' ? 'error' : 'warning', said: firstParagraph(d.message), ...(d.fix === undefined ? {} : { fix: d.fix }) });
    return checks;
  } catch (error) {
    return [{ what: 'dry load', result: 'error', said: `a host could not be opened for it: ${errorMessage(error)}` }];
  } finally {
    await host?.close();
  }
}

/** The files `npm pack` would put in the tarball, relative to the package folder. */
async function publishedFiles(dir: string, io: IO): Promise<string[]> {
  const run = await runPackageManager('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], dir, io.env);
  if (run.code !== 0) throw new UsageError(`npm pack --dry-run failed in ${dir} (exit ${run.code}), so the published files are unknown:\n${run.output.trim().split('\n').slice(-10).join('\n')}`, 'Fix package.json (or what npm says), then run the command again.');
  const json = run.output.slice(run.output.indexOf('['));
  const [report] = JSON.parse(json) as { files: { path: string }[] }[];
  return (report?.files ?? []).map((f) => f.path);
}

/** A tarball's package, as npm would install it, with no install script run. */
async function unpack(tarball: string, scratch: string, io: IO): Promise<string> {
  const staging = join(scratch, 'unpacked');
  await mkdir(staging, { recursive: true });
  await writeFile(join(staging, 'package.json'), '{ "name": "airlock-check-staging", "version": "0.0.0", "private": true }\n');
  const run = await runPackageManager('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--package-lock=false', tarball], staging, io.env);
  if (run.code !== 0) throw new UsageError(`npm could not unpack ${tarball} (exit ${run.code}):\n${run.output.trim().split('\n').slice(-10).join('\n')}`, 'Give a .tgz made by `npm pack`.');
  const deps = (JSON.parse(readFileSync(join(staging, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {};
  const name = Object.keys(deps)[0];
  if (name === undefined) throw new UsageError(`${tarball} holds no package.`, 'Give a .tgz made by `npm pack`.');
  return realpathSync(join(staging, 'node_modules', name));
}

function firstParagraph(message: string): string {
  return message.split('\nFix:')[0]!.trim();
}

function render(title: string, checks: readonly Check[]): string {
  const mark = { ok: 'ok', error: 'ERROR', warning: 'warn' } as const;
  const lines = [`Checking ${displayText(title)} (this CLI's kernel: ${KERNEL_VERSION})`, ''];
  for (const c of checks) lines.push(`${mark[c.result].padEnd(5)} ${c.what}: ${showWorded(c.said)}`, ...(c.fix === undefined || c.result === 'ok' ? [] : [`      Fix: ${showWorded(c.fix)}`]));
  const errors = checks.filter((c) => c.result === 'error').length;
  const warnings = checks.filter((c) => c.result === 'warning').length;
  lines.push('', errors === 0 ? `Ready to publish${warnings === 0 ? '.' : `, with ${warnings} warning${warnings === 1 ? '' : 's'}.`}` : `${errors} error${errors === 1 ? '' : 's'}: fix ${errors === 1 ? 'it' : 'them'} before publishing.`);
  return `${lines.join('\n')}\n`;
}
