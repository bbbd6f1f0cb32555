import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { ExtensionDirs, ExtensionToLoad } from '../../src/extensions/index.js';
import type { Kernel } from '@airlock/kernel';
import { createTestHost } from '@airlock/kernel/testing';
import type { HostServices } from '@airlock/toolkit';

/**
 * Real extension packages in temporary folders: package.json with an `airlock` manifest and
 * TypeScript sources, loaded by the real loader (jiti), never mocked.
 */

const roots: string[] = [];

/** A fresh temporary folder (its real path, so symlinked tmp dirs compare equal). */
export function tempDir(prefix = 'airlock-ext-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  roots.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of roots.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export interface PackageSpec {
  name: string;
  version?: string;
  /** package.json#airlock; `false` for none. Defaults to `{ extension: './src/index.ts', kernel: '^1.0.0' }`. */
  airlock?: Record<string, unknown> | false;
  kernel?: string;
  provides?: { tools?: string[]; hooks?: string[] };
  /** Files relative to the package folder. */
  files: Record<string, string>;
}

/** Write a package into `dir` and return `dir`. */
export function writePackage(dir: string, spec: PackageSpec): string {
  mkdirSync(dir, { recursive: true });
  const airlock =
    spec.airlock === false
      ? undefined
      : (spec.airlock ?? {
          extension: './src/index.ts',
          kernel: spec.kernel ?? '^1.0.0',
          ...(spec.provides ? { provides: spec.provides } : {}),
          description: `test extension ${spec.name}`,
        });
  const pkg = { name: spec.name, version: spec.version ?? '1.0.0', type: 'module', ...(airlock ? { airlock } : {}) };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  for (const [file, text] of Object.entries(spec.files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  // An installed package has its dependencies beside it: a package imported natively (as
  // Airlock's own are, without jiti's shared modules) finds typebox only there.
  if (Object.values(spec.files).some((text) => text.includes("from 'typebox'"))) {
    mkdirSync(join(dir, 'node_modules'), { recursive: true });
    symlinkSync(TYPEBOX_DIR, join(dir, 'node_modules', 'typebox'), 'dir');
  }
  return dir;
}

/** The typebox package folder the host itself uses. */
const TYPEBOX_DIR = (() => {
  let dir = dirname(createRequire(import.meta.url).resolve('typebox'));
  while (basename(dir) !== 'typebox' && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
})();

/** Extension source: registers an `echo`-style tool named `tool` that answers `<prefix><text>`. */
export function toolSource(extName: string, tool: string, prefix = `${extName}:`): string {
  return `import Type from 'typebox';
import type { Extension } from '@airlock/contract';

const Params = Type.Object({ text: Type.String() });

export default {
  name: ${JSON.stringify(extName)},
  setup(api) {
    api.registerTool({
      name: ${JSON.stringify(tool)},
      label: ${JSON.stringify(tool)},
      description: 'Echo the text back.',
      parameters: Params,
      async execute(_id: string, params: { text: string }) {
        return { content: [{ type: 'text' as const, text: ${JSON.stringify(prefix)} + params.text }] };
      },
    });
  },
} satisfies Extension;
`;
}

/** A tool extension package with one tool, as `{ 'src/index.ts': ... }`. */
export function toolPackage(dir: string, name: string, tool: string, extra: Partial<PackageSpec> = {}): string {
  return writePackage(dir, { name, files: { 'src/index.ts': toolSource(name, tool) }, ...extra });
}

/** An extension entry as settings produce it. */
export function entry(spec: string, baseDir: string, more: Partial<ExtensionToLoad> = {}): ExtensionToLoad {
  return { spec, baseDir, layer: 'user', ...more };
}

/** Extension dirs inside `root`: `<root>/user` for the user, `<root>/builtin/*` for Airlock's own. */
export function dirsIn(root: string): ExtensionDirs {
  return { userExtensions: join(root, 'user'), builtinRoots: [], builtinPackageDirs: [join(root, 'builtin')] };
}

/** A logger that keeps lines, for assertions. */
export function memoryLog(): { lines: string[]; debug(m: string): void; info(m: string): void; warn(m: string): void; error(m: string): void } {
  const lines: string[] = [];
  return {
    lines,
    debug: (m) => lines.push(`debug ${m}`),
    info: (m) => lines.push(`info ${m}`),
    warn: (m) => lines.push(`warn ${m}`),
    error: (m) => lines.push(`error ${m}`),
  };
}

/** A kernel for `cwd` and the host services its `ctx.access` consults: what loadExtensions needs besides entries. */
export function testHost(cwd: string): { kernel: Kernel; services: HostServices } {
  const { kernel, services } = createTestHost({ cwd });
  return { kernel, services };
}
