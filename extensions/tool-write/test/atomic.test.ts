import { mkdtempSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTestContext } from '@airlock/kernel/testing';

// Watch every rename the tool makes, and what the target holds at that moment.
const renames: { from: string; to: string; targetBefore: string | undefined; tempMode: number }[] = [];
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...actual,
    rename: async (from: string, to: string) => {
      let targetBefore: string | undefined;
      try {
        targetBefore = readFileSync(to, 'utf8');
      } catch {
        targetBefore = undefined;
      }
      renames.push({ from, to, targetBefore, tempMode: statSync(from).mode & 0o7777 });
      return actual.rename(from, to);
    },
  };
});

const { writeTool } = await import('../src/index.js');

afterEach(() => void renames.splice(0));

describe('write: the atomic swap', () => {
  it('writes the whole content to a temp file in the same folder, then renames it over the target', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'airlock-write-atomic-')));
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

  it('uses a different temp name for every write', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'airlock-write-atomic-')));
    const ctx = createTestContext({ cwd: dir });
    for (let i = 0; i < 5; i++) await writeTool.execute('t', { path: 'b.txt', content: String(i) }, undefined, undefined, ctx);
    expect(new Set(renames.map((r) => r.from)).size).toBe(5);
  });
});
