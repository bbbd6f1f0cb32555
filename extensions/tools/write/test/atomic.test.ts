import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTestContext, makeTempDir } from '@airlock/kernel/testing';

// Watch every rename the tool makes, and what the target holds at that moment (small writes
// rename synchronously, big ones asynchronously: both are watched).
const renames: { from: string; to: string; targetBefore: string | undefined; tempMode: number }[] = [];
const observe = (from: string, to: string, read: (p: string) => string, stat: (p: string) => { mode: number }) => {
  let targetBefore: string | undefined;
  try {
    targetBefore = read(to);
  } catch {
    targetBefore = undefined;
  }
  // Linux: names inside the judged folder go through /proc/self/fd/N (the open folder itself).
  renames.push({ from: plain(from), to: plain(to), targetBefore, tempMode: stat(from).mode & 0o7777 });
};
/** A /proc/self/fd/N/name path as the folder's own path (while the descriptor is open). */
function plain(path: string): string {
  const m = /^\/proc\/self\/fd\/\d+/.exec(path);
  return m ? join(realFs.readlinkSync(m[0]), path.slice(m[0].length)) : path;
}
const realFs = await vi.importActual<typeof import('node:fs')>('node:fs');

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const fs = await vi.importActual<typeof import('node:fs')>('node:fs');
  return {
    ...actual,
    rename: async (from: string, to: string) => {
      observe(from, to, (p) => fs.readFileSync(p, 'utf8'), fs.statSync);
      return actual.rename(from, to);
    },
  };
});
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  return {
    ...actual,
    renameSync: (from: string, to: string) => {
      observe(from, to, (p) => actual.readFileSync(p, 'utf8'), actual.statSync);
      return actual.renameSync(from, to);
    },
  };
});

const { writeTool } = await import('../src/index.js');

afterEach(() => void renames.splice(0));

describe('write: the atomic swap', () => {
  it('writes the whole content to a temp file in the same folder, then renames it over the target', async () => {
    const dir = makeTempDir('airlock-write-atomic-');
    const file = join(dir, 'a.txt');
    writeFileSync(file, 'old content');
    const { ino: inode, mode } = statSync(file);
    await writeTool.execute('t', { path: 'a.txt', content: 'new content, complete' }, undefined, undefined, createTestContext({ cwd: dir }));
    expect(renames).toHaveLength(1);
    const [swap] = renames;
    expect(dirname(swap!.from)).toBe(dir);
    expect(basename(swap!.from)).toMatch(/^\.a\.txt\.[0-9a-f]{12}\.airlock-tmp$/);
    expect(swap!.to).toBe(file);
    // The temp file already has the old file's mode when it takes its place.
    expect(swap!.tempMode).toBe(mode & 0o7777);
    // Until the rename, readers see the old file untouched.
    expect(swap!.targetBefore).toBe('old content');
    expect(readFileSync(file, 'utf8')).toBe('new content, complete');
    expect(statSync(file).ino).not.toBe(inode);
    expect(readdirSync(dir)).toEqual(['a.txt']);
  });

  it('a big write (asynchronous path) swaps the same way', async () => {
    const dir = makeTempDir('airlock-write-atomic-');
    writeFileSync(join(dir, 'big.txt'), 'old');
    const content = 'x'.repeat(1024 * 1024);
    await writeTool.execute('t', { path: 'big.txt', content }, undefined, undefined, createTestContext({ cwd: dir }));
    expect(renames).toHaveLength(1);
    expect(renames[0]!.targetBefore).toBe('old');
    expect(readFileSync(join(dir, 'big.txt'), 'utf8')).toBe(content);
    expect(readdirSync(dir)).toEqual(['big.txt']);
  });

  it('uses a different temp name for every write', async () => {
    const dir = makeTempDir('airlock-write-atomic-');
    const ctx = createTestContext({ cwd: dir });
    for (let i = 0; i < 5; i++) await writeTool.execute('t', { path: 'b.txt', content: String(i) }, undefined, undefined, ctx);
    expect(new Set(renames.map((r) => r.from)).size).toBe(5);
  });
});
