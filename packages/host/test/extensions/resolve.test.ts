import { createTestHost } from '@airlock/kernel/testing';
import { mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createKernel } from '@airlock/kernel';
import { loadExtensions, resolveExtension, type ResolveContext } from '../../src/extensions/index.js';
import { isPathSpec } from '../../src/settings/index.js';
import { dirsIn, entry, removeTempDirs, tempDir, toolPackage, writePackage } from './fixtures.js';

afterAll(removeTempDirs);

function ctx(root: string, more: Partial<ResolveContext> = {}): ResolveContext {
  return { dirs: dirsIn(root), projectDir: join(root, 'project'), projectTrusted: true, ...more };
}

/** The same package name installed in the project, the user folder and Airlock's own folder. */
function installEverywhere(root: string, name = '@acme/echo'): void {
  toolPackage(join(root, 'project', 'node_modules', name), name, 'p_tool', { version: '1.0.0-project' });
  toolPackage(join(root, 'user', 'node_modules', name), name, 'u_tool', { version: '1.0.0-user' });
  toolPackage(join(root, 'builtin', 'echo'), name, 'b_tool', { version: '1.0.0-builtin' });
}

describe('bare names', () => {
  it('resolve from the project first, then the user folder, then Airlock itself', () => {
    const root = tempDir();
    installEverywhere(root);
    const e = entry('@acme/echo', join(root, 'project'));

    const first = resolveExtension(e, ctx(root));
    expect(first.ok && [first.resolved.foundIn, first.resolved.version]).toEqual(['project', '1.0.0-project']);

    rmSync(join(root, 'project', 'node_modules'), { recursive: true });
    const second = resolveExtension(e, ctx(root));
    expect(second.ok && [second.resolved.foundIn, second.resolved.version]).toEqual(['user', '1.0.0-user']);

    rmSync(join(root, 'user'), { recursive: true });
    const third = resolveExtension(e, ctx(root));
    expect(third.ok && [third.resolved.foundIn, third.resolved.version]).toEqual(['builtin', '1.0.0-builtin']);
  });

  it("find a package in a parent folder's node_modules, as Node does", () => {
    const root = tempDir();
    toolPackage(join(root, 'node_modules', 'hoisted'), 'hoisted', 'h');
    mkdirSync(join(root, 'project', 'sub'), { recursive: true });
    const r = resolveExtension(entry('hoisted', root), ctx(root, { projectDir: join(root, 'project', 'sub') }));
    expect(r.ok && r.resolved.packageDir).toBe(join(root, 'node_modules', 'hoisted'));
  });

  it("skip an untrusted project's node_modules, so a cloned repo cannot shadow your extensions", () => {
    const root = tempDir();
    installEverywhere(root);
    const r = resolveExtension(entry('@acme/echo', root), ctx(root, { projectTrusted: false }));
    expect(r.ok && r.resolved.foundIn).toBe('user');
  });

  it('say so when a name is only installed in the untrusted project', () => {
    const root = tempDir();
    toolPackage(join(root, 'project', 'node_modules', 'only-here'), 'only-here', 't');
    const r = resolveExtension(entry('only-here', root), ctx(root, { projectTrusted: false }));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.diagnostic.code).toBe('AIRLOCK_EXTENSION_NOT_FOUND');
    expect(r.diagnostic.message).toContain('not trusted');
    expect(r.diagnostic.fix).toContain('airlock trust');
  });

  it('report a missing package with every place looked at and how to install it', () => {
    const root = tempDir();
    const r = resolveExtension(entry('@acme/nowhere', root, { file: join(root, 'settings.json') }), ctx(root));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.diagnostic.code).toBe('AIRLOCK_EXTENSION_NOT_FOUND');
    expect(r.diagnostic.severity).toBe('error');
    expect(r.diagnostic.message).toContain(join(root, 'project', 'node_modules', '@acme/nowhere'));
    expect(r.diagnostic.message).toContain(join(root, 'user', 'node_modules', '@acme/nowhere'));
    expect(r.diagnostic.message).toContain(join(root, 'settings.json'));
    expect(r.diagnostic.fix).toContain(`npm i --prefix ${join(root, 'user')}`);
    // No one package manager named for the project: `extensions add` uses the project's own, and takes a folder too.
    expect(r.diagnostic.fix).toContain('airlock extensions add');
    expect(r.diagnostic.fix).not.toContain('pnpm add');
    // Each place once.
    const places = r.diagnostic.message.split('\n').filter((line) => line.trimStart().startsWith('- '));
    expect(new Set(places).size).toBe(places.length);
  });

  it('refuse names that are neither a package nor a path', () => {
    const root = tempDir();
    for (const spec of ['@acme/guard/sub', 'not a name', '']) {
      const r = resolveExtension(entry(spec, root), ctx(root));
      expect(r.ok ? 'ok' : r.diagnostic.code).toBe('AIRLOCK_EXTENSION_SPEC_INVALID');
    }
  });

  it('follow a symlinked package folder (as pnpm installs it) and report the real folder', () => {
    const root = tempDir();
    const real = toolPackage(join(root, 'store', 'linked'), 'linked', 'l');
    mkdirSync(join(root, 'project', 'node_modules'), { recursive: true });
    symlinkSync(real, join(root, 'project', 'node_modules', 'linked'), 'dir');
    const r = resolveExtension(entry('linked', root), ctx(root));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.resolved.packageDir).toBe(join(root, 'project', 'node_modules', 'linked'));
    expect(r.resolved.realDir).toBe(real);
    expect(r.resolved.entryFile).toBe(join(real, 'src', 'index.ts'));
  });
});

describe('paths', () => {
  it('resolve relative to the settings file that names them', async () => {
    const root = tempDir();
    toolPackage(join(root, 'shared', 'exts', 'hello'), 'hello', 'hello');
    const settingsDir = join(root, 'project', 'config');
    mkdirSync(settingsDir, { recursive: true });
    const e = entry('../../shared/exts/hello', settingsDir, { layer: 'project', file: join(settingsDir, 'airlock.config.ts') });
    const r = resolveExtension(e, ctx(root));
    expect(r.ok && r.resolved.realDir).toBe(join(root, 'shared', 'exts', 'hello'));

    // The same entry through the loader, from a cwd somewhere else entirely.
    const { kernel, services } = createTestHost({ cwd: root });
    const result = await loadExtensions({ entries: [e], kernel, services, trust: { trusted: true, projectDir: join(root, 'project') }, dirs: dirsIn(root), cwd: '/' });
    expect(result.loaded.map((x) => x.source.dir)).toEqual([join(root, 'shared', 'exts', 'hello')]);
  });

  it('expand ~/ to the home folder, and accept a path to package.json', () => {
    const root = tempDir();
    toolPackage(join(root, 'home', 'my-ext'), 'my-ext', 't');
    const home = resolveExtension(entry('~/my-ext', '/elsewhere'), ctx(root, { home: join(root, 'home') }));
    expect(home.ok && home.resolved.packageName).toBe('my-ext');
    const file = resolveExtension(entry('./home/my-ext/package.json', root), ctx(root));
    expect(file.ok && file.resolved.packageName).toBe('my-ext');
  });

  it('report a missing folder with the folder it was resolved against', () => {
    const root = tempDir();
    const r = resolveExtension(entry('./nope', join(root, 'cfg'), { file: join(root, 'cfg', '.airlockrc.json') }), ctx(root));
    expect(r.ok ? 'ok' : r.diagnostic.code).toBe('AIRLOCK_EXTENSION_NOT_FOUND');
    if (!r.ok) expect(r.diagnostic.message).toContain(`(${join(root, 'cfg')})`);
  });

  it("a package's entry module named directly is that package (its manifest's kernel range and provides apply)", () => {
    const root = tempDir();
    toolPackage(join(root, 'ext'), 'ext', 't');
    const r = resolveExtension(entry('./ext/src/index.ts', root), ctx(root));
    expect(r.ok && r.resolved.packageDir).toBe(join(root, 'ext'));
    expect(r.ok && r.resolved.manifest.kernel).toBe('^1.0.0');
  });

  it('any other module file is a single-file extension, keyed by its own real path', () => {
    const root = tempDir();
    writeFileSync(join(root, 'a.ts'), 'export default {};\n');
    writeFileSync(join(root, 'b.ts'), 'export default {};\n');
    const [a, b] = ['./a.ts', './b.ts'].map((spec) => resolveExtension(entry(spec, root), ctx(root)));
    expect(a!.ok && a!.resolved.entryFile).toBe(realpathSync(join(root, 'a.ts')));
    expect(a!.ok && b!.ok && a!.resolved.realDir !== b!.resolved.realDir).toBe(true);
  });

  it('a file that is not a module is refused with what to name instead', () => {
    const root = tempDir();
    writeFileSync(join(root, 'notes.txt'), 'x');
    const r = resolveExtension(entry('./notes.txt', root), ctx(root));
    expect(r.ok ? 'ok' : r.diagnostic.code).toBe('AIRLOCK_EXTENSION_SPEC_INVALID');
  });

  it('a path that does not exist suggests the file next to it that was probably meant', () => {
    const root = tempDir();
    writeFileSync(join(root, 'word-count.ts'), 'export default {};\n');
    const r = resolveExtension(entry('./word-cuont.ts', root), ctx(root));
    expect(r.ok ? 'ok' : r.diagnostic.message).toContain(`Did you mean ${JSON.stringify(join(root, 'word-count.ts'))}?`);
  });

  it('a misspelt package name suggests the package meant', () => {
    const root = tempDir();
    toolPackage(join(root, 'project', 'node_modules', '@acme', 'word-count'), '@acme/word-count', 'wc');
    const r = resolveExtension({ spec: '@acme/word-cuont', layer: 'user', baseDir: root }, ctx(root));
    expect(r.ok ? 'ok' : r.diagnostic.message).toContain('Did you mean "@acme/word-count"?');
  });

  it('tell a path from a package name', () => {
    expect(['./x', '../x', '/x', '~/x', '~', '.', '.\\x', 'C:\\x'].map(isPathSpec)).toEqual([true, true, true, true, true, true, true, true]);
    expect(['x', '@a/x', 'x.js'].map(isPathSpec)).toEqual([false, false, false]);
  });
});

describe('the package itself', () => {
  it('needs a manifest', () => {
    const root = tempDir();
    writePackage(join(root, 'plain'), { name: 'plain', airlock: false, files: {} });
    const r = resolveExtension(entry('./plain', root), ctx(root));
    expect(r.ok ? 'ok' : r.diagnostic.code).toBe('AIRLOCK_EXTENSION_MANIFEST_MISSING');
  });

  it('needs the entry module it names, with a build hint for dist/ entries', () => {
    const root = tempDir();
    writePackage(join(root, 'built'), { name: 'built', airlock: { extension: './dist/index.js', kernel: '^1.0.0' }, files: {} });
    const r = resolveExtension(entry('./built', root), ctx(root));
    expect(r.ok ? 'ok' : r.diagnostic.code).toBe('AIRLOCK_EXTENSION_ENTRY_NOT_FOUND');
    if (!r.ok) {
      expect(r.diagnostic.fix).toContain('build the extension');
      expect(r.partial).toMatchObject({ packageName: 'built', kernelRange: '^1.0.0' });
    }
  });

  it('refuses an entry module that is a symlink out of the package', () => {
    const root = tempDir();
    writePackage(join(root, 'outside'), { name: 'outside', files: { 'evil.ts': 'export default {};\n' } });
    writePackage(join(root, 'sneaky'), { name: 'sneaky', files: {} });
    mkdirSync(join(root, 'sneaky', 'src'), { recursive: true });
    symlinkSync(join(root, 'outside', 'evil.ts'), join(root, 'sneaky', 'src', 'index.ts'));
    const r = resolveExtension(entry('./sneaky', root), ctx(root));
    expect(r.ok ? 'ok' : r.diagnostic.code).toBe('AIRLOCK_EXTENSION_MANIFEST_INVALID');
    if (!r.ok) expect(r.diagnostic.message).toContain('outside the package');
  });
});
