import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '@airlock/kernel/testing';
import type { SandboxProfile, SandboxVerdict } from '@airlock/contract';
import { planMounts, planMountsSync, SandboxPlanError, WalkCache, type WalkBounds } from '../../src/sandbox/mounts.js';
import { shortPath } from '../../src/sandbox/walk.js';

/**
 * Issue 24 §2: the walk of the workspace before (and after) each command is bounded in depth,
 * entries, time and mounts, gives the event loop its turns, and past a bound fails closed with a
 * message naming the place. Shapes are generated: deep, wide, both, with symlink loops.
 */

const secrets = (p: string): SandboxVerdict | undefined => (/\/\.env$/.test(p) ? 'hidden' : /\/\.airlockrc[^/]*$/.test(p) ? 'guarded' : undefined);
const profile = (roots: string[], classify = secrets): SandboxProfile => ({ writable: roots, readOnly: [], hidden: [], classify });
const small: Partial<WalkBounds> = { maxDepth: 6, maxEntries: 120 };

/** A tree of `depth` nested folders, each holding `width` files and a `.env`, with symlink loops at every level when asked. */
function build(root: string, shape: { depth: number; width: number; loops: boolean }): { entries: number; deepest: string } {
  let dir = root;
  let entries = 0;
  for (let level = 0; level <= shape.depth; level++) {
    for (let i = 0; i < shape.width; i++) writeFileSync(join(dir, `f${i}.txt`), '');
    writeFileSync(join(dir, '.env'), 'SECRET');
    entries += shape.width + 1;
    if (shape.loops) {
      symlinkSync('.', join(dir, 'self'));
      symlinkSync('..', join(dir, 'up'));
      entries += 2;
    }
    if (level === shape.depth) break;
    dir = join(dir, 'd');
    mkdirSync(dir);
    entries += 1;
  }
  return { entries, deepest: dir };
}

describe('the sandbox walk, over generated shapes', () => {
  it('succeeds within the bounds, and fails closed past them, naming the place', async () => {
    await fc.assert(
      fc.asyncProperty(fc.record({ depth: fc.integer({ min: 0, max: 9 }), width: fc.integer({ min: 0, max: 25 }), loops: fc.boolean() }), async (shape) => {
        const root = makeTempDir('walk-shape-');
        const { entries, deepest } = build(root, shape);
        const run = planMounts(profile([root]), '/tmp/x', { bounds: small });
        // Breadth first, level by level: which bound is met first follows from the shape, except
        // inside the level where both are (the order of a folder's names is the file system's).
        const levelSize = shape.width + 2 + (shape.loops ? 2 : 0);
        const deep = /is more than 6 levels below the workspace root/;
        const many = /more than 120 files and folders to check for secrets/;
        if (shape.depth > 6) {
          const before = levelSize * 6;
          await expect(run).rejects.toThrow(before + levelSize <= 120 ? deep : before > 120 ? many : new RegExp(`${deep.source}|${many.source}`));
        } else if (entries > 120) {
          await expect(run).rejects.toThrow(many);
        } else {
          const plan = await run;
          // Every secret is hidden, at every depth: links (loops) are never followed.
          expect(plan.hiddenFiles).toHaveLength(shape.depth + 1);
          expect(plan.hiddenFiles).toContain(join(deepest, '.env'));
        }
      }),
      { numRuns: 40 },
    );
  });

  it('names the folder past the depth bound and what to do, and shortens a long path', async () => {
    const root = makeTempDir('walk-deep-');
    build(root, { depth: 40, width: 0, loops: false });
    const error = await planMounts(profile([root]), '/tmp/x', { bounds: { maxDepth: 30 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxPlanError);
    const message = (error as Error).message;
    expect(message).toContain(`is more than 30 levels below the workspace root ${root}`);
    expect(message).toContain('nothing runs');
    expect(message).toMatch(/Remove or move that folder tree from outside the agent/);
    expect(message).toContain(`find '${root}' -mindepth 30 -type d -prune`);
    expect(shortPath(`/w/${'d/'.repeat(500)}x`)).toMatch(/^\/w\/d\/.*…\(\d+ folders\)…\/.*\/x$/);
  });

  it('names the biggest folder when the entry bound stops it, and lists no folder whole past it', async () => {
    const root = makeTempDir('walk-wide-');
    mkdirSync(join(root, 'data'));
    mkdirSync(join(root, 'src'));
    for (let i = 0; i < 300; i++) writeFileSync(join(root, 'data', `x${i}`), '');
    writeFileSync(join(root, 'src', 'a.ts'), '');
    const error = await planMounts(profile([root]), '/tmp/x', { bounds: { maxEntries: 100 } }).catch((e: unknown) => e);
    expect((error as Error).message).toContain('more than 100 files and folders');
    expect((error as Error).message).toContain(`The biggest folder at the top of the workspace is ${join(root, 'data')}`);
  });

  it('fails closed on a path longer than the system allows', async () => {
    const root = makeTempDir('walk-long-');
    // Made relative to the working folder, one level at a time: the full path is past PATH_MAX.
    const name = 'n'.repeat(250);
    execFileSync(process.execPath, ['-e', `const fs = require('fs'); process.chdir(${JSON.stringify(root)}); for (let i = 0; i < 20; i++) { fs.mkdirSync(${JSON.stringify(name)}); process.chdir(${JSON.stringify(name)}); }`]);
    try {
      await expect(planMounts(profile([root]), '/tmp/x')).rejects.toThrow(/is longer than the system allows \(4095 bytes\)/);
    } finally {
      // Node's rm gives each path whole, and this one is too long for it; rm walks relative to folders.
      execFileSync('rm', ['-rf', join(root, name)]);
    }
  });

  it('keeps the event loop turning, ends on the signal, and has a time bound', async () => {
    const root = makeTempDir('walk-slow-');
    build(root, { depth: 3, width: 400, loops: false });
    // A slow judgment: 100 µs per entry, 0.16 s in all, far longer than a slice.
    const slow = (p: string) => {
      const until = performance.now() + 0.1;
      while (performance.now() < until);
      return secrets(p);
    };
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    try {
      await planMounts(profile([root], slow), '/tmp/x');
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(3);

    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stopped by the test')), 5);
    await expect(planMounts(profile([root], slow), '/tmp/x', { signal: controller.signal })).rejects.toThrow('stopped by the test');

    await expect(planMounts(profile([root], slow), '/tmp/x', { bounds: { maxMs: 20 } })).rejects.toThrow(/took longer than 20 ms/);
    expect(() => planMountsSync(profile([root], slow), '/tmp/x', { bounds: { maxMs: 20 } })).toThrow(/took longer than 20 ms/);
  });

  it('past a bound, the guarded entries found first are still reported (for the check after a command)', async () => {
    const root = makeTempDir('walk-partial-');
    writeFileSync(join(root, '.airlockrc.json'), '{}');
    build(root, { depth: 12, width: 1, loops: false });
    const error = (await planMounts(profile([root]), '', { bounds: small }).catch((e: unknown) => e)) as SandboxPlanError;
    expect(error).toBeInstanceOf(SandboxPlanError);
    expect(error.guarded).toEqual([join(root, '.airlockrc.json')]);
  });

  it('fails closed when the rules would take more mounts than a command can start with', async () => {
    const root = makeTempDir('walk-mounts-');
    for (let i = 0; i < 12; i++) {
      mkdirSync(join(root, `p${i}`));
      writeFileSync(join(root, `p${i}`, '.env'), '');
    }
    await expect(planMounts(profile([root]), '/tmp/x', { bounds: { maxMounts: 10 } })).rejects.toThrow(/would take 14 mounts \(12 secret files and folders to hide/);
    expect((await planMounts(profile([root]), '/tmp/x', { bounds: { maxMounts: 14 } })).hiddenFiles).toHaveLength(12);
  });

  it('reuses an unchanged folder from the cache, and sees a changed one', async () => {
    const root = makeTempDir('walk-cache-');
    build(root, { depth: 2, width: 3, loops: false });
    // A clock a minute ahead: every change counts as settled (walk-cache.test.ts tests the step).
    const cache = new WalkCache({ now: () => Date.now() + 60_000 });
    let asked = 0;
    const counting = (p: string) => (asked++, secrets(p));
    await planMounts(profile([root], counting), '/tmp/x', { cache });
    const first = asked;
    await planMounts(profile([root], counting), '/tmp/x', { cache });
    expect(asked).toBe(first);
    writeFileSync(join(root, 'd', '.env.new'), '');
    writeFileSync(join(root, 'd', '.env'), 'changed');
    await planMounts(profile([root], counting), '/tmp/x', { cache });
    expect(asked - first).toBe(3 + 1 + 1 + 1); // the changed folder's entries, listed again
  });
});

describe('files with names outside the workspace (hard links)', () => {
  function linked() {
    const base = makeTempDir('walk-links-');
    const root = join(base, 'project');
    const store = join(base, 'store');
    mkdirSync(root);
    mkdirSync(store);
    writeFileSync(join(store, 'f1'), 'module.exports = 1;');
    // pnpm's layout: the virtual store's files are links into the store.
    const pkg = join(root, 'node_modules', '.pnpm', 'pkg@1', 'node_modules', 'pkg');
    mkdirSync(pkg, { recursive: true });
    linkSync(join(store, 'f1'), join(pkg, 'index.js'));
    symlinkSync(join('.pnpm', 'pkg@1', 'node_modules', 'pkg'), join(root, 'node_modules', 'pkg'));
    // A hand-made link to a file outside, in a subfolder; two names of one file inside (cargo's target/).
    mkdirSync(join(root, 'src'));
    writeFileSync(join(base, 'outside.txt'), 'outside');
    linkSync(join(base, 'outside.txt'), join(root, 'src', 'shared.txt'));
    mkdirSync(join(root, 'target'));
    writeFileSync(join(root, 'target', 'app-1234'), 'bin');
    linkSync(join(root, 'target', 'app-1234'), join(root, 'target', 'app'));
    writeFileSync(join(root, 'plain.txt'), '');
    return { base, root, store };
  }

  it('mounts read-only the files some of whose names are elsewhere, and the pnpm virtual store', async () => {
    const { root } = linked();
    const plan = await planMounts(profile([root]), '/tmp/x');
    expect(plan.readOnly).toContain(join(root, 'src', 'shared.txt'));
    expect(plan.readOnly).toContain(join(root, 'node_modules', '.pnpm'));
    // Every name of these is inside the roots: writing them changes nothing elsewhere.
    expect(plan.readOnly).not.toContain(join(root, 'target', 'app'));
    expect(plan.readOnly).not.toContain(join(root, 'target', 'app-1234'));
    expect(plan.readOnly).not.toContain(join(root, 'plain.txt'));
  });

  it('counts names across roots: a file linked between two roots is writable through either', async () => {
    const { base, root } = linked();
    const other = join(base, 'other');
    mkdirSync(other);
    linkSync(join(root, 'plain.txt'), join(other, 'plain-too.txt'));
    const both = await planMounts(profile([root, other]), '/tmp/x');
    expect(both.readOnly).not.toContain(join(root, 'plain.txt'));
    const one = await planMounts(profile([root]), '/tmp/x');
    expect(one.readOnly).toContain(join(root, 'plain.txt'));
  });

  it('fails closed past the number it mounts one by one', async () => {
    const { base, root } = linked();
    for (let i = 0; i < 5; i++) {
      writeFileSync(join(base, `o${i}`), '');
      linkSync(join(base, `o${i}`), join(root, `l${i}`));
    }
    await expect(planMounts(profile([root]), '/tmp/x', { bounds: { maxLinked: 4 } })).rejects.toThrow(/has 6 files that also have names outside it \(hard links/);
  });
});
