import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '@airlock/kernel/testing';
import { walk, type WalkStop } from '../src/index.js';

/**
 * Issue 24 §2: grep's and find's walk is bounded in depth and entries (each listing resolves the
 * folder's whole path again, so depth is cost), says where it stopped, and gives the event loop
 * its turns. Shapes are generated: deep, wide, both, with symlink loops.
 */

/** `depth` nested folders `d`, each with `width` files and, when asked, links back up and to itself. */
function build(shape: { depth: number; width: number; loops: boolean }): string {
  const root = makeTempDir('walk-bounds-');
  let dir = root;
  for (let level = 0; level <= shape.depth; level++) {
    for (let i = 0; i < shape.width; i++) writeFileSync(join(dir, `f${i}`), '');
    if (shape.loops) {
      symlinkSync('.', join(dir, 'self'));
      symlinkSync('..', join(dir, 'up'));
    }
    if (level === shape.depth) break;
    dir = join(dir, 'd');
    mkdirSync(dir);
  }
  return root;
}

/** What the walk should yield: level by level, in byte order (`d` before `f…`, `self`, `up`), down to `maxDepth + 1`. */
function expected(shape: { depth: number; width: number; loops: boolean }, maxDepth: number): string[] {
  const out: string[] = [];
  const level = (prefix: string, depth: number): void => {
    const names = [...(depth < shape.depth ? ['d'] : []), ...Array.from({ length: shape.width }, (_, i) => `f${i}`), ...(shape.loops ? ['self', 'up'] : [])].sort();
    for (const name of names) {
      out.push(`${prefix}${name}`);
      if (name === 'd' && depth < maxDepth) level(`${prefix}d/`, depth + 1);
    }
  };
  level('', 0);
  return out;
}

async function run(root: string, bounds: { maxDepth?: number; maxEntries?: number }) {
  const paths: string[] = [];
  const stops: WalkStop[] = [];
  for await (const e of walk(root, { bounds, onBound: (s) => stops.push(s) })) paths.push(e.path);
  return { paths, stops };
}

describe('the tree walk, over generated shapes', () => {
  it('enters folders down to maxDepth and says which it did not enter; never follows a link', async () => {
    await fc.assert(
      fc.asyncProperty(fc.record({ depth: fc.integer({ min: 0, max: 10 }), width: fc.integer({ min: 0, max: 6 }), loops: fc.boolean() }), fc.integer({ min: 1, max: 8 }), async (shape, maxDepth) => {
        const { paths, stops } = await run(build(shape), { maxDepth });
        expect(paths).toEqual(expected(shape, maxDepth));
        if (shape.depth > maxDepth) expect(stops).toEqual([{ bound: 'depth', path: `${'d/'.repeat(maxDepth)}d`, limit: maxDepth }]);
        else expect(stops).toEqual([]);
      }),
      { numRuns: 40 },
    );
  });

  it('ends after maxEntries entries, at the folder it was listing, and yields no more', async () => {
    await fc.assert(
      fc.asyncProperty(fc.record({ depth: fc.integer({ min: 0, max: 6 }), width: fc.integer({ min: 0, max: 30 }), loops: fc.boolean() }), fc.integer({ min: 1, max: 80 }), async (shape, maxEntries) => {
        const { paths, stops } = await run(build(shape), { maxEntries });
        const all = expected(shape, 128);
        if (all.length <= maxEntries) {
          expect(paths).toEqual(all);
          expect(stops).toEqual([]);
        } else {
          // Depth first: whole folders are listed before any of their entries is yielded.
          expect(paths.length).toBeLessThanOrEqual(maxEntries);
          expect(all.slice(0, paths.length)).toEqual(paths);
          expect(stops).toHaveLength(1);
          expect(stops[0]).toMatchObject({ bound: 'entries', limit: maxEntries });
        }
      }),
      { numRuns: 40 },
    );
  });

  it('hands the event loop back while it walks a big tree, and stops on the signal', async () => {
    const root = build({ depth: 3, width: 800, loops: false });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    let seen = 0;
    try {
      for await (const _ of walk(root)) {
        seen++;
        const until = performance.now() + 0.05;
        while (performance.now() < until); // a visitor's work counts too
      }
    } finally {
      clearInterval(timer);
    }
    expect(seen).toBe(4 * 800 + 3);
    expect(ticks).toBeGreaterThan(3);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stopped by the test')), 5);
    await expect(
      (async () => {
        for await (const _ of walk(root, { signal: controller.signal })) {
          const until = performance.now() + 0.05;
          while (performance.now() < until);
        }
      })(),
    ).rejects.toThrow('stopped by the test');
  });
});
