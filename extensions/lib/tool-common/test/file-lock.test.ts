import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { ChangedDuringWriteError, JudgedFolder, lockFile, lockName, writeFileAtomic } from '../src/index.js';

/** The cross-process lock and the compare-and-swap that keep a reported write from being lost. */

function folder() {
  const dir = makeTempDir('airlock-lock-');
  return { dir, folder: JudgedFolder.open(dir, undefined, 'a.txt') };
}

describe('lockFile', () => {
  it('a second taker waits until the first releases, and nothing is left behind', async () => {
    const { dir, folder: f } = folder();
    try {
      const first = await lockFile(f, 'a.txt', 'a.txt');
      expect(readFileSync(join(dir, lockName('a.txt')), 'utf8')).toContain(`${process.pid} ${hostname()}`);
      let second = false;
      const waiting = lockFile(f, 'a.txt', 'a.txt').then((l) => {
        second = true;
        return l;
      });
      await new Promise((r) => setTimeout(r, 100));
      expect(second).toBe(false);
      first.release();
      (await waiting).release();
      expect(second).toBe(true);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      f.close();
    }
  });

  it('a lock left by a process that is gone is taken over at once', async () => {
    const { dir, folder: f } = folder();
    try {
      const dead = spawn(process.execPath, ['-e', '']);
      await new Promise((r) => dead.once('exit', r));
      writeFileSync(join(dir, lockName('a.txt')), `${dead.pid} ${hostname()} x\n`);
      const started = Date.now();
      const lock = await lockFile(f, 'a.txt', 'a.txt');
      expect(Date.now() - started).toBeLessThan(scaledMs(1000));
      lock.release();
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      f.close();
    }
  });

  it('a lock held by a live process: after the wait, a message that names it and says what to do', async () => {
    const { dir, folder: f } = folder();
    try {
      writeFileSync(join(dir, lockName('a.txt')), `${process.ppid} ${hostname()} x\n`);
      await expect(lockFile(f, 'a.txt', 'a.txt', undefined, 200)).rejects.toThrow(
        new RegExp(`a\\.txt is being changed by Airlock process ${process.ppid} .*Nothing was changed\\. Retry when that process is done; if no such process runs, delete that lock file\\.`),
      );
    } finally {
      f.close();
    }
  });

  it('an abort ends the wait', async () => {
    const { dir, folder: f } = folder();
    try {
      writeFileSync(join(dir, lockName('a.txt')), `${process.ppid} ${hostname()} x\n`);
      const abort = new AbortController();
      setTimeout(() => abort.abort(new Error('stop')), 50);
      await expect(lockFile(f, 'a.txt', 'a.txt', abort.signal)).rejects.toThrow('stop');
    } finally {
      f.close();
    }
  });
});

describe('writeFileAtomic: compare-and-swap', () => {
  it('another writer between the read and the rename: nothing is renamed, its content stays, the error says to redo', async () => {
    const dir = makeTempDir('airlock-cas-');
    const file = join(dir, 'a.txt');
    writeFileSync(file, 'as read\n');
    const read = statSync(file);
    // Another program (no lock: bash, an editor) writes the file just before the rename.
    const other = () => writeFileSync(file, 'written by someone else, longer\n');
    await expect(writeFileAtomic(file, 'ours\n', { replacing: read, expect: read, beforeRename: other })).rejects.toThrow(ChangedDuringWriteError);
    expect(readFileSync(file, 'utf8')).toBe('written by someone else, longer\n');
    expect(readdirSync(dir)).toEqual(['a.txt']);
    const error = new ChangedDuringWriteError(file);
    expect(error.shownAs('a.txt')).toMatch(/^a\.txt changed on disk while this call was changing it .*Read the file again and redo the change\.$/);
  });

  it('a file created meanwhile where none was expected is not replaced (big, asynchronous write too)', async () => {
    const dir = makeTempDir('airlock-cas-');
    const file = join(dir, 'new.txt');
    const big = 'x'.repeat(512 * 1024);
    await expect(writeFileAtomic(file, big, { expect: null, beforeRename: () => writeFileSync(file, 'theirs') })).rejects.toThrow(ChangedDuringWriteError);
    expect(readFileSync(file, 'utf8')).toBe('theirs');
    expect(readdirSync(dir)).toEqual(['new.txt']);
  });

  it('unchanged: the write goes through', async () => {
    const dir = makeTempDir('airlock-cas-');
    const file = join(dir, 'a.txt');
    writeFileSync(file, 'old');
    const read = statSync(file);
    await writeFileAtomic(file, 'new', { replacing: read, expect: read });
    expect(readFileSync(file, 'utf8')).toBe('new');
  });
});
