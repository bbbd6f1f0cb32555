import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '@airlock/kernel/testing';
import { call, guardedKernel, startSwapper } from '../../tool-common/test/support/race.js';
import { editTool } from '../src/index.js';

/** Issue 19 §4 for edit: a folder on the way swapped for a link to outside, under 150 edits. */
describe('edit: the file changed is the one judged, under a swapping process', () => {
  it('a folder swapped for a link to a folder outside holding the same text: the outside file never changes', async () => {
    const base = realpathSync(makeTempDir('airlock-edit-race-'));
    const ws = join(base, 'ws');
    const outside = join(base, 'outside');
    mkdirSync(join(ws, 'd'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(outside, 'f.txt'), 'value = 0\n');
    writeFileSync(join(ws, 'd', 'f.txt'), 'value = 0\n');
    const kernel = guardedKernel(ws, join(base, 'spill'), editTool);
    const swapper = await startSwapper(ws, 'd', 'folder-or-link', 'd', outside);
    let ok = 0;
    try {
      for (let i = 0; i < 150; i++) {
        const r = await call(kernel, 'edit', { path: 'd/f.txt', edits: [{ oldText: `value = ${ok}\n`, newText: `value = ${ok + 1}\n` }] });
        if (r.outcome === 'ok') ok++;
        else if (r.outcome !== 'denied') expect(r.text).toMatch(/changed between the policy's decision|File not found|Could not find/);
      }
    } finally {
      await swapper.stop();
    }
    expect(readFileSync(join(outside, 'f.txt'), 'utf8')).toBe('value = 0\n');
    // Every edit reported done is in the workspace file.
    expect(readFileSync(join(ws, 'd', 'f.txt'), 'utf8')).toBe(`value = ${ok}\n`);
  });
});
