import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compiledEntry } from '../../src/extensions/compiled-entry.js';
import { removeTempDirs, tempDir } from './fixtures.js';

afterAll(removeTempDirs);

/** A package whose TypeScript entry `exports` maps to a compiled twin; `built` writes the twin. */
function pkg(exports: unknown, { built = true, twin = 'dist/index.js' } = {}): string {
  const dir = tempDir();
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'src', 'index.ts'), 'export default {};\n');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: '@airlock/x', version: '1.0.0', exports }));
  if (built) {
    mkdirSync(join(dir, 'dist'), { recursive: true });
    writeFileSync(join(dir, twin), 'export default {};\n');
  }
  return dir;
}

const compiled = { '.': { source: './src/index.ts', types: './dist/index.d.ts', default: './dist/index.js' } };

describe('compiledEntry: the JavaScript a built-in package compiled its TypeScript entry to', () => {
  it('is the default target of the exports entry whose source is the entry', () => {
    const dir = pkg(compiled);
    expect(compiledEntry(dir, join(dir, 'src', 'index.ts'))).toBe(join(dir, 'dist', 'index.js'));
  });

  it('is found under any subpath, as in a package exporting more than its main module', () => {
    const dir = pkg({ './package.json': './package.json', './tool': compiled['.'] });
    expect(compiledEntry(dir, join(dir, 'src', 'index.ts'))).toBe(join(dir, 'dist', 'index.js'));
  });

  it('is undefined before a build, so the host can still load the source', () => {
    const dir = pkg(compiled, { built: false });
    expect(compiledEntry(dir, join(dir, 'src', 'index.ts'))).toBeUndefined();
  });

  it('is undefined for an entry no exports entry names as its source', () => {
    const dir = pkg({ '.': { types: './src/index.ts', default: './src/index.ts' } });
    expect(compiledEntry(dir, join(dir, 'src', 'index.ts'))).toBeUndefined();
    expect(compiledEntry(dir, join(dir, 'src', 'other.ts'))).toBeUndefined();
  });

  it('never leaves the package: a twin outside it is not loaded', () => {
    const dir = pkg({ '.': { source: './src/index.ts', default: '../elsewhere/index.js' } });
    expect(compiledEntry(dir, join(dir, 'src', 'index.ts'))).toBeUndefined();
  });

  it('is undefined without a readable package.json', () => {
    expect(compiledEntry(join(tempDir(), 'missing'), '/x/src/index.ts')).toBeUndefined();
  });
});
