import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { walk, type WalkEntry, type WalkOptions } from '../src/index.js';
import { makeTempDir } from '@airlock/kernel/testing';

function tree(files: Record<string, string>): string {
  const dir = makeTempDir('airlock-walk-');
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

async function list(root: string, options: WalkOptions = {}): Promise<string[]> {
  const out: string[] = [];
  for await (const e of walk(root, options)) out.push(e.type === 'dir' ? `${e.path}/` : e.type === 'symlink' ? `${e.path}@` : e.path);
  return out;
}

describe('walk', () => {
  it('yields depth first in byte order, folders before their contents, never .git', async () => {
    const dir = tree({ 'b/x': '', 'a-c': '', 'a/z': '', B: '', '.git/HEAD': '', '.h': '', 'é': '', z: '' });
    expect(await list(dir)).toEqual(['.h', 'B', 'a/', 'a/z', 'a-c', 'b/', 'b/x', 'z', 'é']);
  });

  it('scopes nested ignore files, lets a deeper negation win, and reads ancestors unless told not to', async () => {
    const dir = tree({ '.gitignore': '*.log\n', 'a.log': '', 'sub/.ignore': '!keep.log\n', 'sub/keep.log': '', 'sub/drop.txt': '', 'in/x.txt': '' });
    expect(await list(dir)).toEqual(['.gitignore', 'in/', 'in/x.txt', 'sub/', 'sub/.ignore', 'sub/drop.txt', 'sub/keep.log']);
    // Searching from "in": the root's .gitignore is an ancestor's file then.
    writeFileSync(join(dir, 'in', 'y.log'), '');
    expect(await list(join(dir, 'in'))).toEqual(['x.txt']);
    expect(await list(join(dir, 'in'), { parents: false })).toEqual(['x.txt', 'y.log']);
  });

  it('yields symlinks without following them, and prunes folders', async () => {
    const dir = tree({ 'real/f': '', 'skip/g': '' });
    symlinkSync(join(dir, 'real'), join(dir, 'link'));
    expect(await list(dir, { prune: (e: WalkEntry) => e.name === 'skip' })).toEqual(['link@', 'real/', 'real/f']);
  });

  // Permission denied needs a non-root user (the tools' tests run them as nobody); a folder that
  // vanishes between being listed and being entered, or a root that is a file, fails the same way.
  it('tells onUnreadable about a folder it cannot list, in walk order, and walks on', async () => {
    const dir = tree({ 'a/f': '', 'b/g': '', 'c/h': '' });
    const events: string[] = [];
    for await (const e of walk(dir, { onUnreadable: (path, code) => events.push(`unreadable ${path} ${code}`) })) {
      events.push(e.path);
      if (e.path === 'a/f') rmSync(join(dir, 'b'), { recursive: true });
    }
    expect(events).toEqual(['a', 'a/f', 'unreadable b ENOENT', 'b', 'c', 'c/h']);
    const root: string[] = [];
    expect(await list(join(dir, 'c/h'), { onUnreadable: (path, code) => root.push(`${path}:${code}`) })).toEqual([]);
    expect(root).toEqual([':ENOTDIR']);
  });

  it('keeps the order over many entries, handing the event loop back on the way', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 400; i++) files[`d${i % 7}/f${String(i).padStart(4, '0')}`] = '';
    const dir = tree(files);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const seen: string[] = [];
    try {
      for await (const e of walk(dir)) {
        seen.push(e.path);
        const until = performance.now() + 0.1; // a consumer doing some work per entry: 40 ms in all
        while (performance.now() < until);
      }
    } finally {
      clearInterval(timer);
    }
    expect(seen.length).toBe(407);
    expect(seen).toEqual([...seen].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(ticks).toBeGreaterThan(0);
  });

  it('stops with the abort reason when the signal fires during the walk', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) files[`d${i % 10}/f${i}`] = '';
    const dir = tree(files);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop now')), 1);
    const run = async () => {
      for await (const _ of walk(dir, { signal: controller.signal })) {
        const until = performance.now() + 0.2; // 60 ms in all: the abort comes first
        while (performance.now() < until);
      }
    };
    await expect(run()).rejects.toThrow('stop now');
  });
});
