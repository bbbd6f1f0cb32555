import { mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { closeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '@airlock/kernel/testing';
import { canNameDescriptors, ChangedSinceJudgedError, identityOf, JudgedFolder, openJudgedFile } from '../src/index.js';

/** Each step of a swap, done by hand between the decision and the open. */
describe('openJudgedFile / JudgedFolder', () => {
  it('a name swapped for a link (to a file with the very same bytes) after the decision: refused, saying to retry', () => {
    const dir = makeTempDir('airlock-judged-');
    const path = join(dir, 'b.txt');
    writeFileSync(path, 'same\n');
    writeFileSync(join(dir, 'secret'), 'same\n');
    const judged = { path, file: identityOf(path), folder: identityOf(dir) };
    unlinkSync(path);
    symlinkSync('secret', path);
    expect(() => openJudgedFile(judged, 'b.txt')).toThrow(ChangedSinceJudgedError);
    expect(() => openJudgedFile(judged, 'b.txt')).toThrow(/^b\.txt changed between the policy's decision and the open .*Retry the call/);
  });

  it('a folder on the way swapped for a link: refused', () => {
    const dir = makeTempDir('airlock-judged-');
    mkdirSync(join(dir, 'd'));
    mkdirSync(join(dir, 'outside'));
    writeFileSync(join(dir, 'd', 'b.txt'), 'inside\n');
    writeFileSync(join(dir, 'outside', 'b.txt'), 'outside\n');
    const path = join(dir, 'd', 'b.txt');
    const judged = { path, file: identityOf(path), folder: identityOf(join(dir, 'd')) };
    renameSync(join(dir, 'd'), join(dir, 'd.moved'));
    symlinkSync('outside', join(dir, 'd'));
    expect(() => openJudgedFile(judged, 'd/b.txt')).toThrow(ChangedSinceJudgedError);
  });

  it('unchanged: opens the file', () => {
    const dir = makeTempDir('airlock-judged-');
    const path = join(dir, 'b.txt');
    writeFileSync(path, 'x');
    const { fd, stats } = openJudgedFile({ path, file: identityOf(path), folder: undefined }, 'b.txt');
    closeSync(fd);
    expect(stats.size).toBe(1);
  });

  it.runIf(canNameDescriptors())('Linux: names inside an opened folder stay in it after its name is swapped for a link', () => {
    const dir = makeTempDir('airlock-judged-');
    mkdirSync(join(dir, 'd'));
    mkdirSync(join(dir, 'outside'));
    const folder = JudgedFolder.open(join(dir, 'd'), identityOf(join(dir, 'd')), 'd/f.txt');
    try {
      renameSync(join(dir, 'd'), join(dir, 'd.moved'));
      symlinkSync('outside', join(dir, 'd'));
      writeFileSync(folder.entry('f.txt'), 'written\n');
      expect(readFileSync(join(dir, 'd.moved', 'f.txt'), 'utf8')).toBe('written\n');
      expect(readdirSync(join(dir, 'outside'))).toEqual([]);
    } finally {
      folder.close();
    }
  });
});
