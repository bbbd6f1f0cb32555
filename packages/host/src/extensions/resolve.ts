import { readdirSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, extname, join, relative, resolve, sep, isAbsolute } from 'node:path';
import { closestNames } from '@airlock/toolkit';
import type { DeclaredCommand } from '@airlock/contract';
import { isPathSpec } from '../settings/extension-spec.js';
import type { Diagnostic } from '@airlock/contract';
import { diagnostic, type Subject } from './diagnostics.js';
import { inlineExtensionName, unwrapExtension } from './inline.js';
import { checkInlineManifest, LOADABLE, readManifest } from './manifest.js';
import type { ExtensionCommandEntry, ExtensionDirs, ExtensionToLoad, FoundIn, ResolvedExtension } from './types.js';

/**
 * Finding an extension package on disk and reading its manifest.
 *
 * - A path resolves against the folder of the settings file that names it (`entry.baseDir`).
 * - A bare name resolves from the project (its node_modules, then each parent's, as Node does),
 *   then the user's folder, then Airlock's own install/workspace.
 * - Symlinks are followed (pnpm's node_modules and `npm link` are symlinks), and the result
 *   reports the real folder. What keeps an untrusted project from supplying code is not a
 *   symlink rule but this: an untrusted project's node_modules is never searched, for any
 *   layer's bare names (else a cloned repo could shadow `@airlock/tool-bash` or a user's policy
 *   extension), and its own entries are not loaded at all (see load-all.ts). The entry module
 *   must stay inside the package's real folder.
 */

export interface ResolveContext {
  dirs: ExtensionDirs;
  /** The project folder: bare names resolve from its node_modules first. */
  projectDir: string;
  /** False: the project's node_modules is not searched (its code must not run). */
  projectTrusted: boolean;
  /** For `~/` paths. Default: os.homedir(). */
  home?: string;
}

export type ResolveResult =
  | { ok: true; resolved: ResolvedExtension; policy: boolean }
  | {
      ok: false;
      diagnostic: Diagnostic;
      /** The manifest (if read) declares policy hooks. */
      policy: boolean;
      /** What was learnt before the problem, for the record `airlock extensions` shows. */
      partial: {
        packageName?: string;
        version?: string;
        packageDir?: string;
        realDir?: string;
        foundIn?: FoundIn;
        kernelRange?: string;
        carriesPolicy?: boolean;
        /** The manifest's `provides`, when the manifest itself was read: what a failure costs (see blocks() in load-extensions). */
        provides?: { tools: string[]; hooks: string[] };
      };
    };

const PACKAGE_NAME = /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/i;

/**
 * Locate an extension and read its manifest.
 *
 * @example
 * const r = resolveExtension({ spec: './tools/hello', layer: 'project', file: '/p/.airlockrc.json', baseDir: '/p' },
 *   { dirs: defaultExtensionDirs(), projectDir: '/p', projectTrusted: true });
 * if (r.ok) console.log(r.resolved.entryFile); // '/p/tools/hello/src/index.ts'
 */
export function resolveExtension(entry: ExtensionToLoad, ctx: ResolveContext): ResolveResult {
  const label = typeof entry.spec === 'string' ? entry.spec : String(entry.spec);
  const subject: Subject = { extension: label, spec: label, layer: entry.layer, ...(entry.file ? { file: entry.file } : {}) };
  if (entry.module !== undefined) return resolveInline(entry, subject);
  const spec = entry.spec;
  if (typeof spec !== 'string' || spec.trim() === '') {
    return fail(diagnostic('AIRLOCK_EXTENSION_SPEC_INVALID', subject, { spec, reason: 'it must be a non-empty string' }));
  }
  const kind = entry.kind ?? (isPathSpec(spec) ? 'path' : 'package');
  const located = kind === 'path' ? locatePath(spec, entry, ctx, subject) : locatePackage(spec, entry, ctx, subject);
  if (!located.ok) return located;
  if ('file' in located) return readSingleFile(entry, located.file);
  return readPackage(entry, subject, located.packageDir, located.foundIn);
}

type Located =
  | { ok: true; packageDir: string; foundIn: FoundIn }
  /** A single-file extension: a .ts or .js module named directly. */
  | { ok: true; file: string }
  | Extract<ResolveResult, { ok: false }>;

function locatePath(spec: string, entry: ExtensionToLoad, ctx: ResolveContext, subject: Subject): Located {
  const home = ctx.home ?? homedir();
  const target = entry.path ?? (spec === '~' || spec.startsWith('~/') ? join(home, spec.slice(1)) : resolve(entry.baseDir, spec));
  const notFound = (searched: string[]) =>
    fail(diagnostic('AIRLOCK_EXTENSION_NOT_FOUND', subject, { spec, kind: 'path', searched, baseDir: entry.baseDir }));
  const stat = statOrUndefined(target);
  if (stat === undefined) {
    const near = closestNames(basename(target), filesIn(dirname(target))).map((name) => join(dirname(target), name));
    return fail(
      diagnostic('AIRLOCK_EXTENSION_NOT_FOUND', subject, { spec, kind: 'path', searched: [target], baseDir: entry.baseDir, ...(near.length > 0 ? { suggestions: near } : {}) }),
    );
  }
  if (stat.isFile()) {
    if (basename(target) === 'package.json') return { ok: true, packageDir: dirname(target), foundIn: 'path' };
    if (LOADABLE.has(extname(target))) {
      // The entry module of a package with a manifest is that package: its kernel range and `provides` apply.
      const owner = manifestOwner(target);
      return owner === undefined ? { ok: true, file: target } : { ok: true, packageDir: owner, foundIn: 'path' };
    }
    const pkgDir = nearestPackageDir(dirname(target));
    const hint = pkgDir ? ` — probably ${pkgDir}` : '';
    return fail(
      diagnostic('AIRLOCK_EXTENSION_SPEC_INVALID', subject, {
        spec,
        reason: `${target} is neither a module (.ts, .js, .mjs …) nor a folder; name a module file or the folder that holds the extension's package.json${hint}`,
      }),
    );
  }
  if (!isFile(join(target, 'package.json'))) return notFound([join(target, 'package.json')]);
  return { ok: true, packageDir: target, foundIn: 'path' };
}

function locatePackage(spec: string, entry: ExtensionToLoad, ctx: ResolveContext, subject: Subject): Located {
  if (!PACKAGE_NAME.test(spec)) {
    const reason = spec.split('/').length > (spec.startsWith('@') ? 2 : 1)
      ? 'name the package itself, not a module inside it (the manifest says which module to load)'
      : 'it is neither a package name nor a path (paths start with ./, ../, / or ~/)';
    return fail(diagnostic('AIRLOCK_EXTENSION_SPEC_INVALID', subject, { spec, reason }));
  }
  const projectCandidates = ancestors(ctx.projectDir).map((d) => join(d, 'node_modules', spec));
  const places: { foundIn: FoundIn; dir: string }[] = [
    ...(ctx.projectTrusted ? projectCandidates.map((dir) => ({ foundIn: 'project' as const, dir })) : []),
    { foundIn: 'user', dir: join(ctx.dirs.userExtensions, 'node_modules', spec) },
    ...ctx.dirs.builtinRoots.flatMap((root) => ancestors(root).map((d) => ({ foundIn: 'builtin' as const, dir: join(d, 'node_modules', spec) }))),
  ];
  for (const place of places) {
    if (isFile(join(place.dir, 'package.json'))) return { ok: true, packageDir: place.dir, foundIn: place.foundIn };
  }
  for (const folder of ctx.dirs.builtinPackageDirs) {
    const dir = workspacePackages(folder).get(spec);
    if (dir !== undefined) return { ok: true, packageDir: dir, foundIn: 'builtin' };
  }

  // Once each: the project's and Airlock's own search lists meet above the project (/tmp/node_modules, /node_modules).
  const searched = [...new Set([...places.map((p) => p.dir), ...ctx.dirs.builtinPackageDirs.map((d) => `${d}${sep}* (package.json named ${spec})`)])];
  if (entry.layer === 'defaults') return fail(diagnostic('AIRLOCK_EXTENSION_NOT_INSTALLED', subject, { spec, searched }));
  const inUntrustedProject = ctx.projectTrusted ? undefined : projectCandidates.find((dir) => isFile(join(dir, 'package.json')));
  const suggestions = closestNames(spec, knownPackageNames(ctx));
  return fail(
    diagnostic('AIRLOCK_EXTENSION_NOT_FOUND', subject, {
      spec,
      kind: 'package',
      searched,
      userExtensions: ctx.dirs.userExtensions,
      ...(inUntrustedProject ? { inUntrustedProject } : {}),
      ...(suggestions.length > 0 ? { suggestions } : {}),
    }),
  );
}

/**
 * Every package name an entry could have meant, from the places a bare name resolves from: the
 * project's node_modules (when trusted), the user's, Airlock's own. Only read when a name was
 * not found, for the "did you mean".
 */
function knownPackageNames(ctx: ResolveContext): string[] {
  const roots = [
    ...(ctx.projectTrusted ? [ctx.projectDir] : []),
    ctx.dirs.userExtensions,
    ...ctx.dirs.builtinRoots.flatMap((root) => ancestors(root)),
  ].map((dir) => join(dir, 'node_modules'));
  const names = roots.flatMap(packagesIn);
  for (const folder of ctx.dirs.builtinPackageDirs) names.push(...workspacePackages(folder).keys());
  return names;
}

/** Package names directly in a node_modules folder (`name` and `@scope/name`). */
function packagesIn(nodeModules: string): string[] {
  const list = (dir: string): string[] => {
    try {
      return readdirSync(dir).filter((n) => !n.startsWith('.'));
    } catch {
      return [];
    }
  };
  return list(nodeModules).flatMap((name) => (name.startsWith('@') ? list(join(nodeModules, name)).map((inner) => `${name}/${inner}`) : [name]));
}

/**
 * A module passed in code: nothing to locate, but its manifest is checked like a package's, and
 * the name is its own (or the one given), so messages and tools' origins say which it is.
 */
function resolveInline(entry: ExtensionToLoad, subject: Subject): ResolveResult {
  const inline = entry.module!;
  const ext = unwrapExtension(inline.extension);
  const packageName = inlineExtensionName(inline) ?? entry.spec;
  const version = inline.version ?? '0.0.0';
  const where = `(in code) ${packageName}`;
  const checked = checkInlineManifest(inline, where, subject);
  const partial = { packageName, version, packageDir: where, realDir: where, foundIn: 'code' as const };
  if (!checked.ok) return { ok: false, diagnostic: checked.diagnostic, policy: checked.policy, partial };
  return {
    ok: true,
    policy: checked.policy,
    resolved: { entry, foundIn: 'code', packageDir: where, realDir: where, packageName, version, manifest: checked.manifest, entryFile: where, commands: [], module: { default: ext } },
  };
}

function readPackage(entry: ExtensionToLoad, subject: Subject, packageDir: string, foundIn: FoundIn): ResolveResult {
  const realDir = realpathSync(packageDir);
  const manifest = readManifest(realDir, subject);
  const where = { packageDir, realDir, foundIn };
  if (!manifest.ok) {
    return {
      ok: false,
      diagnostic: manifest.diagnostic,
      policy: manifest.policy,
      partial: {
        ...where,
        ...(manifest.packageName ? { packageName: manifest.packageName } : {}),
        ...(manifest.version ? { version: manifest.version } : {}),
        ...(manifest.carriesPolicy ? { carriesPolicy: true } : {}),
      },
    };
  }
  const partial = {
    ...where,
    packageName: manifest.packageName,
    version: manifest.version,
    kernelRange: manifest.manifest.kernel,
    ...(manifest.manifest.provides === undefined ? {} : { provides: manifest.provides }),
  };
  const declared = join(realDir, manifest.manifest.extension);
  if (!isFile(declared)) {
    return {
      ok: false,
      policy: manifest.policy,
      partial,
      diagnostic: diagnostic('AIRLOCK_EXTENSION_ENTRY_NOT_FOUND', subject, { packageDir: realDir, entry: manifest.manifest.extension, entryFile: declared }),
    };
  }
  // The entry's own path may be a symlink; the code that runs is where it really is.
  const entryFile = realpathSync(declared);
  const inside = relative(realDir, entryFile);
  if (inside.startsWith('..') || isAbsolute(inside)) {
    return {
      ok: false,
      policy: manifest.policy,
      partial,
      diagnostic: diagnostic('AIRLOCK_EXTENSION_MANIFEST_INVALID', subject, {
        packageDir: realDir,
        problems: [`"airlock.extension" (${manifest.manifest.extension}) is a symlink to ${entryFile}, outside the package; the entry module must live inside it`],
      }),
    };
  }
  const commands = commandEntries(manifest.manifest.commands ?? [], { realDir, packageName: manifest.packageName, version: manifest.version, foundIn });
  if (!commands.ok) {
    return {
      ok: false,
      policy: manifest.policy,
      partial,
      diagnostic: diagnostic('AIRLOCK_EXTENSION_MANIFEST_INVALID', subject, { packageDir: realDir, problems: commands.problems }),
    };
  }
  return {
    ok: true,
    policy: manifest.policy,
    resolved: {
      entry,
      foundIn,
      packageDir,
      realDir,
      packageName: manifest.packageName,
      version: manifest.version,
      manifest: manifest.manifest,
      entryFile,
      commands: commands.entries,
      ...(manifest.carries === undefined ? {} : { carries: manifest.carries }),
    },
  };
}

/** Each declared command's module, found inside the package (as the entry must be), or every one that is not. */
function commandEntries(
  declared: readonly DeclaredCommand[],
  pkg: { realDir: string; packageName: string; version: string; foundIn: FoundIn },
): { ok: true; entries: ExtensionCommandEntry[] } | { ok: false; problems: string[] } {
  const entries: ExtensionCommandEntry[] = [];
  const problems: string[] = [];
  declared.forEach((command, i) => {
    const path = join(pkg.realDir, command.module);
    const key = `"airlock.commands[${i}].module" (${command.module}, of command "${command.name}")`;
    if (!isFile(path)) {
      problems.push(`${key} names no file: ${path} does not exist`);
      return;
    }
    const file = realpathSync(path);
    const inside = relative(pkg.realDir, file);
    if (inside.startsWith('..') || isAbsolute(inside)) {
      problems.push(`${key} is a symlink to ${file}, outside the package; a command module must live inside it`);
      return;
    }
    entries.push({ ...command, file, ...pkg });
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, entries };
}

/**
 * A module named directly (`./tools/wc.ts`), as Pi loads one: no package.json, so no declared
 * kernel range (any kernel) and no `provides`; it is named after its file until its module says
 * its own name. Everything else is as for a package: jiti, the export and options checks, setup
 * rolled back on failure, and an untrusted project's entries never load. Its real path is the
 * key that keeps it from loading twice (two files in one folder are two extensions).
 */
function readSingleFile(entry: ExtensionToLoad, file: string): ResolveResult {
  const entryFile = realpathSync(file);
  const name = basename(file, extname(file));
  return {
    ok: true,
    policy: false,
    resolved: {
      entry,
      foundIn: 'path',
      packageDir: dirname(file),
      realDir: entryFile,
      packageName: name,
      version: '0.0.0',
      manifest: { extension: `./${basename(entryFile)}`, kernel: '*', description: `single-file extension ${file}` },
      entryFile,
      // No package.json, so no manifest to declare commands in.
      commands: [],
    },
  };
}

function fail(d: Diagnostic, policy = false): Extract<ResolveResult, { ok: false }> {
  return { ok: false, diagnostic: d, policy, partial: {} };
}

/** `dir`, then each parent up to the root. */
function ancestors(dir: string): string[] {
  const out: string[] = [];
  let current = resolve(dir);
  for (;;) {
    out.push(current);
    const parent = dirname(current);
    if (parent === current) return out;
    current = parent;
  }
}

const workspaceCache = new Map<string, { mtimeMs: number; packages: Map<string, string> }>();

/**
 * Package folders directly under `folder`, by package.json name. Read once per change of the
 * folder (its mtime changes when a package folder is added or removed), not once per lookup:
 * the default set looks up eleven names.
 */
function workspacePackages(folder: string): Map<string, string> {
  const mtimeMs = statOrUndefined(folder)?.mtimeMs ?? -1;
  const cached = workspaceCache.get(folder);
  if (cached?.mtimeMs === mtimeMs) return cached.packages;
  const map = new Map<string, string>();
  let names: string[] = [];
  try {
    names = readdirSync(folder);
  } catch {
    // A missing folder holds no packages.
  }
  for (const name of names) {
    const dir = join(folder, name);
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown };
      if (typeof pkg.name === 'string' && !map.has(pkg.name)) map.set(pkg.name, dir);
    } catch {
      // Not a package folder (a README, a half-written package): skip it.
    }
  }
  workspaceCache.set(folder, { mtimeMs, packages: map });
  return map;
}

/** The package folder whose `airlock.extension` is this very file, if there is one. */
function manifestOwner(file: string): string | undefined {
  const dir = nearestPackageDir(dirname(file));
  if (dir === undefined) return undefined;
  try {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { airlock?: { extension?: unknown } };
    const declared = pkg.airlock?.extension;
    if (typeof declared !== 'string') return undefined;
    return realpathSync(join(dir, declared)) === realpathSync(file) ? dir : undefined;
  } catch {
    // No readable manifest, or its entry does not exist: the file stands alone.
    return undefined;
  }
}

function filesIn(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function nearestPackageDir(dir: string): string | undefined {
  return ancestors(dir).find((d) => isFile(join(d, 'package.json')));
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function isFile(path: string): boolean {
  return statOrUndefined(path)?.isFile() === true;
}
