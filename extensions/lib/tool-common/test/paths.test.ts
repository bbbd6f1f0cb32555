import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { existingVariants, PathError, resolveExistingPath, resolveExistingPathSync, resolveToolPath, suggestNear, visibleName } from '../src/index.js';
import { makeTempDir } from '@airlock/kernel/testing';

describe('resolveToolPath', () => {
  it('strips one leading @, expands ~ and resolves against cwd, keeping every character as given', () => {
    expect(resolveToolPath('@src/a.ts', '/work')).toBe('/work/src/a.ts');
    expect(resolveToolPath('@@x', '/work')).toBe('/work/@x');
    expect(resolveToolPath('notes\u00A0a\u202Fb.md', '/w')).toBe('/w/notes\u00A0a\u202Fb.md');
    expect(resolveToolPath('~/x', '/w', '/home/me')).toBe('/home/me/x');
    expect(resolveToolPath('~', '/w', '/home/me')).toBe('/home/me');
    expect(resolveToolPath('/abs/../abs/y', '/w')).toBe('/abs/y');
  });

  it('rejects an empty path and a path with a NUL byte, saying what to do', () => {
    expect(() => resolveToolPath('  ', '/w')).toThrow(PathError);
    expect(() => resolveToolPath('a\0b', '/w')).toThrow(/NUL byte/);
  });
});

describe('resolveExistingPath', () => {
  const dir = makeTempDir('airlock-paths-');
  // Made while collecting, not in a test: remove it after the tests.
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finds an NFD-named file from an NFC path, and a curly-apostrophe name from a straight one', async () => {
    const nfd = 'cafe\u0301.txt';
    writeFileSync(join(dir, nfd), 'x');
    expect(await resolveExistingPath('caf\u00e9.txt', dir)).toBe(join(dir, nfd));
    const curly = 'it\u2019s.png';
    writeFileSync(join(dir, curly), 'x');
    expect(await resolveExistingPath("it's.png", dir)).toBe(join(dir, curly));
  });

  it('returns the plain resolution when nothing exists, so the caller reports the path the model meant', async () => {
    expect(await resolveExistingPath('missing.txt', dir)).toBe(join(dir, 'missing.txt'));
  });
});

describe('a name as a person has it: exact first, then spelling variants', () => {
  const dir = makeTempDir('airlock-names-');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const shot = 'Screenshot 2026-12-01 at 10.02.03\u202FPM.png';
  writeFileSync(join(dir, shot), 'x');

  it('the exact name with U+202F is found as given', () => {
    expect(resolveExistingPathSync(shot, dir)).toBe(join(dir, shot));
  });

  it('a plain space or a no-break space finds the U+202F name', () => {
    expect(resolveExistingPathSync(shot.replace('\u202F', ' '), dir)).toBe(join(dir, shot));
    expect(resolveExistingPathSync(shot.replace('\u202F', '\u00A0'), dir)).toBe(join(dir, shot));
  });

  it('a variant in a folder name on the way is found too', () => {
    mkdirSync(join(dir, 'Folder\u00A0A'));
    writeFileSync(join(dir, 'Folder\u00A0A', 'in.txt'), 'x');
    expect(resolveExistingPathSync('Folder A/in.txt', dir)).toBe(join(dir, 'Folder\u00A0A', 'in.txt'));
  });

  it('with two variants none is chosen; both are listed, invisible characters escaped', async () => {
    writeFileSync(join(dir, 'twin\u202Fa.txt'), '1');
    writeFileSync(join(dir, 'twin\u00A0a.txt'), '2');
    expect(resolveExistingPathSync('twin a.txt', dir)).toBe(join(dir, 'twin a.txt'));
    expect(existingVariants(join(dir, 'twin a.txt')).sort()).toEqual([join(dir, 'twin\u00A0a.txt'), join(dir, 'twin\u202Fa.txt')]);
    const hint = await suggestNear(join(dir, 'twin a.txt'));
    expect(hint).toContain('twin\\u202Fa.txt');
    expect(hint).toContain('twin\\u00A0a.txt');
  });

  it('visibleName escapes what does not show and keeps what does', () => {
    expect(visibleName('a\u202Fb c\u00A0d')).toBe('a\\u202Fb c\\u00A0d');
    expect(visibleName('it\u2019s')).toBe('it\\u2019s');
    expect(visibleName('cafe\u0301')).toBe('cafe\\u0301');
    expect(visibleName('caf\u00e9 über.txt')).toBe('caf\u00e9 über.txt');
  });
});
