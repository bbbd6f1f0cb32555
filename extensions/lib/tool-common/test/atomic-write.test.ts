import { chmodSync, chownSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../src/index.js';
import { isRoot, NOBODY } from './support/as-unprivileged.js';
import { makeTempDir } from '@airlock/kernel/testing';

const tempDir = () => makeTempDir('airlock-atomic-');

describe('writeFileAtomic', () => {
  it('replaces a file by rename, keeping its mode (set-user-ID bit too), and returns the new stamp', async () => {
    const dir = tempDir();
    const file = join(dir, 'a.sh');
    writeFileSync(file, 'old');
    chmodSync(file, 0o4751);
    const before = statSync(file);
    const result = await writeFileAtomic(file, 'new content', { replacing: before });
    const after = statSync(file);
    expect(readFileSync(file, 'utf8')).toBe('new content');
    expect(after.ino).not.toBe(before.ino);
    expect(after.mode & 0o7777).toBe(0o4751);
    expect(result).toEqual({ bytes: 11, mtimeMs: after.mtimeMs, size: 11 });
    expect(readdirSync(dir)).toEqual(['a.sh']);
  });

  it.runIf(isRoot)("keeps another user's ownership when root replaces the file", async () => {
    const dir = tempDir();
    const file = join(dir, 'theirs.txt');
    writeFileSync(file, 'x');
    chownSync(file, NOBODY, NOBODY);
    chmodSync(file, 0o2640);
    await writeFileAtomic(file, 'y', { replacing: statSync(file) });
    const after = statSync(file);
    expect([after.uid, after.gid, after.mode & 0o7777]).toEqual([NOBODY, NOBODY, 0o2640]);
  });

  it('a big write (asynchronous, past 256 KiB) keeps the mode too, as string or chunks', async () => {
    const dir = tempDir();
    const file = join(dir, 'big.txt');
    writeFileSync(file, 'old');
    chmodSync(file, 0o640);
    const text = 'ab\n'.repeat(200_000);
    expect((await writeFileAtomic(file, text, { replacing: statSync(file) })).bytes).toBe(600_000);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(statSync(file).mode & 0o777).toBe(0o640);
    await writeFileAtomic(file, [Buffer.from(text), Buffer.from('end')], { replacing: statSync(file) });
    expect(readFileSync(file, 'utf8')).toBe(`${text}end`);
    expect(readdirSync(dir)).toEqual(['big.txt']);
  });

  it('creates a new file with the mode the umask gives', async () => {
    const dir = tempDir();
    await writeFileAtomic(join(dir, 'n.txt'), 'x');
    expect(statSync(join(dir, 'n.txt')).mode & 0o777).toBe(0o666 & ~process.umask());
  });

  it('writes many chunks back to back, and counts UTF-8 bytes of a string', async () => {
    const dir = tempDir();
    const chunks = Array.from({ length: 3000 }, (_, i) => Buffer.from(`${i},`));
    const result = await writeFileAtomic(join(dir, 'c.txt'), [...chunks, new Uint8Array(0)]);
    expect(readFileSync(join(dir, 'c.txt'), 'utf8')).toBe(chunks.map(String).join(''));
    expect(result.bytes).toBe(Buffer.concat(chunks).length);
    expect((await writeFileAtomic(join(dir, 'u.txt'), 'héllo 😀')).bytes).toBe(11);
  });

  it('leaves the target untouched and no temp file when beforeRename throws', async () => {
    const dir = tempDir();
    const file = join(dir, 'a.txt');
    writeFileSync(file, 'keep');
    const stop = () => {
      throw new Error('aborted');
    };
    await expect(writeFileAtomic(file, 'lost', { replacing: statSync(file), beforeRename: stop })).rejects.toThrow('aborted');
    expect(readFileSync(file, 'utf8')).toBe('keep');
    expect(readdirSync(dir)).toEqual(['a.txt']);
  });

  it('fails with the file system error code when the folder does not exist, leaving nothing', async () => {
    const dir = tempDir();
    await expect(writeFileAtomic(join(dir, 'missing', 'a.txt'), 'x')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('keeps the temp name short enough for a target name at the length limit', async () => {
    const dir = tempDir();
    const name = `${'n'.repeat(250)}.txt`;
    await writeFileAtomic(join(dir, name), 'x');
    expect(readdirSync(dir)).toEqual([name]);
  });
});
