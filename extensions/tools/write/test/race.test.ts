import { mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDescriptorNamingForTests } from '@airlock/tool-common';
import { makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { call, guardedKernel, NAMING, startSwapper } from '../../../lib/tool-common/test/support/race.js';
import { writeTool } from '../src/index.js';

/**
 * Issue 19 §4: a folder swapped with a link to outside put 5–15 of 150 writes outside the
 * workspace. Each test runs 150 writes against a real swapping process and then looks outside.
 */

const ROUNDS = 150;

function setup() {
  const base = realpathSync(makeTempDir('airlock-write-race-'));
  const ws = join(base, 'ws');
  const outside = join(base, 'outside');
  mkdirSync(ws);
  mkdirSync(outside);
  writeFileSync(join(outside, 'f.txt'), 'outside, untouched\n');
  const kernel = guardedKernel(ws, join(base, 'spill'), writeTool);
  return { ws, outside, kernel };
}

async function writeMany(kernel: ReturnType<typeof guardedKernel>, path: string, reported?: Map<string, string>) {
  const outcomes = new Map<string, number>();
  for (let i = 0; i < ROUNDS; i++) {
    const content = `written by round ${i}\n`;
    const r = await call(kernel, 'write', { path, content });
    const kind = r.outcome === 'ok' || r.outcome === 'denied' ? r.outcome : r.text;
    outcomes.set(kind, (outcomes.get(kind) ?? 0) + 1);
    reported?.set(content, kind);
  }
  return outcomes;
}

/** What an outside folder holds: it must be exactly what the test put there. */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), 'utf8')]));
}

/** Every file (not folder) under `dir`, relative, at any depth. */
function filesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((e) => !e.isDirectory())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

// Each test races many writes against a swapping process: on a loaded 2-core CI machine that
// can take much longer than the default 5 s (150 writes have taken over 20 s there).
describe.each(NAMING)('write (%s): the folder and file written are the ones judged, under a swapping process', (_how, naming) => {
  beforeAll(() => setDescriptorNamingForTests(naming));
  afterAll(() => setDescriptorNamingForTests(undefined));

  it('a folder on the way swapped for a link to outside: no write lands outside', { timeout: scaledMs(60_000) }, async () => {
    const { ws, outside, kernel } = setup();
    mkdirSync(join(ws, 'd'));
    const swapper = await startSwapper(ws, 'd', 'folder-or-link', 'd', outside);
    const reported = new Map<string, string>();
    try {
      // Refusals must each say what happened. Without /proc a rename by path can race the swap:
      // it then says the content may have landed elsewhere, and the next write sees the change.
      // (The kernel's mutation queue, keyed by real path, may also fail to resolve a name mid-swap,
      // and the atomic write may find the file it replaces is not the one it read: nothing written.)
      const outcomes = await writeMany(kernel, 'd/f.txt', reported);
      for (const kind of outcomes.keys()) expect(kind, kind).toMatch(/^(ok|denied|d\/f\.txt changed between the policy's decision|Cannot create d\/f\.txt: a part of its folder path|The folder of .* may have landed in another folder|d\/f\.txt changed on disk since you last read or wrote it|d\/f\.txt changed on disk while this call was changing it|Cannot lock ".*" for mutation: its real path could not be resolved)/);
    } finally {
      await swapper.stop();
    }
    if (naming === false) {
      // Without /proc a rename by path keeps a window of microseconds (docs/security.md). What
      // is promised there: a write that landed outside was never reported as done.
      const landed = snapshot(outside)['f.txt']!;
      if (landed !== 'outside, untouched\n') expect(reported.get(landed)).toMatch(/may have landed in another folder/);
    } else {
      expect(snapshot(outside)).toEqual({ 'f.txt': 'outside, untouched\n' });
    }
    // Ordinary work: with the swapping over, the same write lands in the workspace.
    const before = snapshot(outside);
    expect((await call(kernel, 'write', { path: 'd/f.txt', content: 'calm\n' })).outcome).toBe('ok');
    expect(readFileSync(join(ws, 'd', 'f.txt'), 'utf8')).toBe('calm\n');
    expect(snapshot(outside)).toEqual(before);
  });

  it('the file itself swapped for a link to a file outside: the outside file is never written', { timeout: scaledMs(20_000) }, async () => {
    const { ws, outside, kernel } = setup();
    writeFileSync(join(ws, 'f.real'), 'inside\n');
    const swapper = await startSwapper(ws, 'f.txt', 'file-or-link', 'f.real', join(outside, 'f.txt'));
    try {
      await writeMany(kernel, 'f.txt');
    } finally {
      await swapper.stop();
    }
    expect(snapshot(outside)).toEqual({ 'f.txt': 'outside, untouched\n' });
  });

  it('a folder swapped while missing parents are made: nothing is made outside', { timeout: scaledMs(20_000) }, async () => {
    const { ws, outside, kernel } = setup();
    mkdirSync(join(ws, 'd'));
    const swapper = await startSwapper(ws, 'd', 'folder-or-link', 'd', outside);
    try {
      for (let i = 0; i < 50; i++) await call(kernel, 'write', { path: `d/new${i}/deep/f.txt`, content: 'x\n' });
    } finally {
      await swapper.stop();
    }
    if (naming === false) {
      // Without /proc a missing folder is made by path, in the same microsecond window as a
      // rename (docs/security.md): an empty folder may appear outside, a file never does.
      expect(filesUnder(outside)).toEqual(['f.txt']);
      expect(readFileSync(join(outside, 'f.txt'), 'utf8')).toBe('outside, untouched\n');
    } else {
      expect(snapshot(outside)).toEqual({ 'f.txt': 'outside, untouched\n' });
    }
  });
});
