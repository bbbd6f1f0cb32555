import { execFileSync } from 'node:child_process';
import { linkSync, lstatSync, statfsSync, mkdirSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync, type BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '@airlock/kernel/testing';
import type { SandboxProfile, SandboxVerdict } from '@airlock/contract';
import { planMounts, WalkCache } from '../../src/sandbox/mounts.js';

/**
 * Issue 25: a walk reuses what it learned about folders that did not change, so a command costs
 * one stat per folder. The guarantee kept: whatever changes between two commands is seen by the
 * second one, however the change was made. Each test walks once, changes the workspace the way
 * a command or another program could, and walks again with the same cache.
 */

const secrets = (p: string): SandboxVerdict | undefined => (/\/\.env[^/]*$/.test(p) ? 'hidden' : /\/\.airlockrc[^/]*$/.test(p) ? 'guarded' : undefined);
const profile = (roots: string[]): SandboxProfile => ({ writable: roots, readOnly: [], hidden: [], classify: secrets });
/** A clock a minute ahead: every change looks settled, the case where the cache is trusted most. */
const settled = () => new WalkCache({ now: () => Date.now() + 60_000 });

const stamp = (path: string) => lstatSync(path, { bigint: true });

function workspace() {
  const base = makeTempDir('walk-cache-');
  const root = join(base, 'project');
  const outside = join(base, 'outside');
  mkdirSync(join(root, 'src', 'deep'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, 'src', 'a.ts'), '');
  writeFileSync(join(root, 'src', 'deep', 'b.ts'), '');
  return { base, root, outside };
}

/** Put a folder's modification time back to the nanosecond, as `touch -d` can (its status-change time still moves). */
function restoreTimes(dir: string, before: BigIntStats) {
  const ns = before.mtimeNs;
  execFileSync('touch', ['-m', '-d', `@${ns / 1_000_000_000n}.${String(ns % 1_000_000_000n).padStart(9, '0')}`, dir]);
  expect(lstatSync(dir, { bigint: true }).mtimeNs).toBe(ns);
}

describe('the walk cache sees every change between two commands', () => {
  it('a secret file created between two commands is hidden from the second', async () => {
    const { root } = workspace();
    const cache = settled();
    expect((await planMounts(profile([root]), '/tmp/x', { cache })).hiddenFiles).toEqual([]);
    writeFileSync(join(root, 'src', 'deep', '.env'), 'SECRET');
    expect((await planMounts(profile([root]), '/tmp/x', { cache })).hiddenFiles).toEqual([join(root, 'src', 'deep', '.env')]);
  });

  it('also when the folder\'s modification time is set back afterwards (touch -d)', async () => {
    const { root } = workspace();
    const cache = settled();
    const dir = join(root, 'src', 'deep');
    const before = stamp(dir);
    await planMounts(profile([root]), '/tmp/x', { cache });
    writeFileSync(join(dir, '.env.local'), 'SECRET');
    restoreTimes(dir, before);
    expect((await planMounts(profile([root]), '/tmp/x', { cache })).hiddenFiles).toEqual([join(dir, '.env.local')]);
  });

  it('a folder renamed, and another moved to its place with the same times, is listed again', async () => {
    const { root } = workspace();
    const cache = settled();
    const other = join(root, 'other');
    mkdirSync(other);
    writeFileSync(join(other, '.env'), 'SECRET');
    const deep = join(root, 'src', 'deep');
    const times = stamp(deep);
    const srcTimes = stamp(join(root, 'src'));
    await planMounts(profile([root]), '/tmp/x', { cache });
    renameSync(deep, join(root, 'deep-old'));
    renameSync(other, deep);
    restoreTimes(deep, times);
    restoreTimes(join(root, 'src'), srcTimes);
    const plan = await planMounts(profile([root]), '/tmp/x', { cache });
    expect(plan.hiddenFiles).toEqual([join(deep, '.env')]);
  });

  it('a symlink swapped for a folder holding a secret, and a folder swapped for a link', async () => {
    const { root, outside } = workspace();
    writeFileSync(join(outside, '.env'), 'not in the roots');
    const cache = settled();
    const swap = join(root, 'src', 'swap');
    symlinkSync(outside, swap);
    expect((await planMounts(profile([root]), '/tmp/x', { cache })).hiddenFiles).toEqual([]);
    unlinkSync(swap);
    mkdirSync(swap);
    writeFileSync(join(swap, '.env'), 'SECRET');
    expect((await planMounts(profile([root]), '/tmp/x', { cache })).hiddenFiles).toEqual([join(swap, '.env')]);
    // And back: a link is never entered, and nothing is mounted onto it.
    rmSync(swap, { recursive: true });
    symlinkSync(outside, swap);
    expect((await planMounts(profile([root]), '/tmp/x', { cache })).hiddenFiles).toEqual([]);
  });

  it('a folder swapped for a link while the walk runs is not entered', async () => {
    const { root, outside } = workspace();
    writeFileSync(join(outside, '.env'), 'not in the roots');
    const swap = join(root, 'swap');
    mkdirSync(swap);
    // The swap happens after the folder holding it was listed, before the walk enters it.
    const swapping: SandboxProfile = {
      ...profile([root]),
      classify: (p) => {
        if (p === swap) {
          rmSync(swap, { recursive: true });
          symlinkSync(outside, swap);
        }
        return secrets(p);
      },
    };
    const plan = await planMounts(swapping, '/tmp/x', { cache: settled() });
    expect(plan.hiddenFiles).toEqual([]);
  });

  it('a hard link made into the workspace, and a further name given to a file already linked, from outside', async () => {
    const { root, outside } = workspace();
    const cache = settled();
    writeFileSync(join(outside, 'bashrc'), '');
    writeFileSync(join(root, 'src', 'app-1234'), 'bin');
    linkSync(join(root, 'src', 'app-1234'), join(root, 'src', 'app'));
    const first = await planMounts(profile([root]), '/tmp/x', { cache });
    // Both names inside: writable.
    expect(first.readOnly).toEqual([]);
    linkSync(join(outside, 'bashrc'), join(root, 'src', 'deep', 'bashrc'));
    const src = join(root, 'src');
    const times = stamp(src);
    // A third name, outside, with the folder left as it was: the file changes, its folder does not.
    linkSync(join(root, 'src', 'app'), join(outside, 'app-copy'));
    restoreTimes(src, times);
    const second = await planMounts(profile([root]), '/tmp/x', { cache });
    expect(second.readOnly.sort()).toEqual([join(root, 'src', 'app'), join(root, 'src', 'app-1234'), join(root, 'src', 'deep', 'bashrc')].sort());
    // The outside name removed again: writable again.
    unlinkSync(join(outside, 'app-copy'));
    restoreTimes(src, times);
    expect((await planMounts(profile([root]), '/tmp/x', { cache })).readOnly).toEqual([join(root, 'src', 'deep', 'bashrc')]);
  });

  it('a pnpm virtual store made inside a node_modules folder listed before', async () => {
    const { root } = workspace();
    const cache = settled();
    mkdirSync(join(root, 'node_modules'));
    await planMounts(profile([root]), '/tmp/x', { cache });
    mkdirSync(join(root, 'node_modules', '.pnpm'));
    expect((await planMounts(profile([root]), '/tmp/x', { cache })).readOnly).toEqual([join(root, 'node_modules', '.pnpm')]);
  });

  it('settings files a command creates are found by the walk after it, with the folder reused before it', async () => {
    const { root } = workspace();
    const cache = settled();
    const before = await planMounts(profile([root]), '', { cache });
    writeFileSync(join(root, 'src', '.airlockrc.json'), '{}');
    const after = await planMounts(profile([root]), '', { cache });
    expect(before.guarded).toEqual([]);
    expect(after.guarded).toEqual([join(root, 'src', '.airlockrc.json')]);
  });

  it('a folder changed within the file system clock\'s step is listed again on every walk until it settles', async () => {
    const { root } = workspace();
    let now = Date.now();
    // The step of FAT or a network file system; a local one's (50 ms) is too short to test without races.
    const cache = new WalkCache({ now: () => now, settleMs: 3_000 });
    let asked = 0;
    const counting: SandboxProfile = { ...profile([root]), classify: (p) => (asked++, secrets(p)) };
    await planMounts(counting, '/tmp/x', { cache });
    const listing = asked;
    expect(listing).toBeGreaterThan(0);
    await planMounts(counting, '/tmp/x', { cache });
    expect(asked).toBe(2 * listing); // just made: nothing reused
    now += 60_000;
    await planMounts(counting, '/tmp/x', { cache });
    await planMounts(counting, '/tmp/x', { cache });
    expect(asked).toBe(3 * listing); // settled: listed once more, then reused
  });

  it('waits a kernel tick\'s worth on a local file system, and seconds elsewhere', async () => {
    const { root } = workspace();
    // Made just now: listed again by a walk at once, reused by one a second later.
    let asked = 0;
    const counting: SandboxProfile = { ...profile([root]), classify: (p) => (asked++, secrets(p)) };
    const cache = new WalkCache({ now: () => Date.now() + 1_000 });
    await planMounts(counting, '/tmp/x', { cache });
    const listing = asked;
    await planMounts(counting, '/tmp/x', { cache });
    const local = ['0xef53', '0x1021994', '0x58465342', '0x9123683e'].includes(`0x${statfsSync(root).type.toString(16)}`);
    expect(asked).toBe(local ? listing : 2 * listing);
  });

  it('holds only the folders the roots still have, and the bounds count reused folders', async () => {
    const { root } = workspace();
    const cache = settled();
    for (let i = 0; i < 20; i++) mkdirSync(join(root, `tmp${i}`));
    await planMounts(profile([root]), '/tmp/x', { cache });
    expect(cache.size).toBe(23);
    for (let i = 0; i < 20; i++) rmSync(join(root, `tmp${i}`), { recursive: true });
    await planMounts(profile([root]), '/tmp/x', { cache });
    expect(cache.size).toBe(3);
    await expect(planMounts(profile([root]), '/tmp/x', { cache, bounds: { maxEntries: 3 } })).rejects.toThrow(/more than 3 files and folders/);
    await expect(planMounts(profile([root]), '/tmp/x', { cache, bounds: { maxDepth: 1 } })).rejects.toThrow(/is more than 1 levels below the workspace root/);
  });
});
