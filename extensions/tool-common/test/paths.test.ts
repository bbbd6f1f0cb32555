import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PathError, resolveExistingPath, resolveToolPath } from '../src/index.js';
import { makeTempDir } from '@airlock/kernel/testing';

describe('resolveToolPath', () => {
  it('strips one leading @, normalises Unicode spaces, expands ~ and resolves against cwd', () => {
    expect(resolveToolPath('@src/a.ts', '/work')).toBe('/work/src/a.ts');
    expect(resolveToolPath('@@x', '/work')).toBe('/work/@x');
    expect(resolveToolPath('notes\u00A0a\u202Fb.md', '/w')).toBe('/w/notes a b.md');
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
