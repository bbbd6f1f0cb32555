import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDescriptorNamingForTests } from '@airlock/tool-common';
import { makeTempDir } from '@airlock/kernel/testing';
import { call, guardedKernel, NAMING, startSwapper } from '../../../lib/tool-common/test/support/race.js';
import { editTool } from '../src/index.js';

/** Issue 19 §4 for edit: a folder on the way swapped for a link to outside, under 150 edits. */
describe.each(NAMING)('edit (%s): the file changed is the one judged, under a swapping process', (_how, naming) => {
  beforeAll(() => setDescriptorNamingForTests(naming));
  afterAll(() => setDescriptorNamingForTests(undefined));

  it('a folder swapped for a link to a folder outside holding the same text: the outside file never changes', async () => {
    const base = realpathSync(makeTempDir('airlock-edit-race-'));
    const ws = join(base, 'ws');
    const outside = join(base, 'outside');
    mkdirSync(join(ws, 'd'), { recursive: true });
    mkdirSync(outside);
    const lines = (done: (i: number) => boolean) => Array.from({ length: 150 }, (_, i) => `line ${i} = ${done(i) ? 'new' : 'old'}\n`).join('');
    writeFileSync(join(outside, 'f.txt'), lines(() => false));
    writeFileSync(join(ws, 'd', 'f.txt'), lines(() => false));
    const kernel = guardedKernel(ws, join(base, 'spill'), editTool);
    const swapper = await startSwapper(ws, 'd', 'folder-or-link', 'd', outside);
    const reported = new Set<number>();
    const said = new Map<number, string>();
    try {
      for (let i = 0; i < 150; i++) {
        const r = await call(kernel, 'edit', { path: 'd/f.txt', edits: [{ oldText: `line ${i} = old\n`, newText: `line ${i} = new\n` }] });
        said.set(i, r.text);
        if (r.outcome === 'ok') reported.add(i);
        // Without /proc a rename by path can race the swap: then the edit says so rather than claim success.
        else if (r.outcome !== 'denied') expect(r.text).toMatch(/changed between the policy's decision|File not found|may have landed in another folder|for mutation: its real path could not be resolved/);
      }
    } finally {
      await swapper.stop();
    }
    const outsideNow = readFileSync(join(outside, 'f.txt'), 'utf8');
    if (naming === false) {
      // Without /proc a rename by path keeps a window of microseconds (docs/security.md). What is
      // promised there: an edit that landed outside was never reported as done.
      for (let i = 0; i < 150; i++) {
        if (outsideNow.includes(`line ${i} = new\n`)) expect(said.get(i)).toMatch(/may have landed in another folder/);
      }
    } else {
      expect(outsideNow).toBe(lines(() => false));
    }
    // Every edit reported done is in the workspace file.
    const final = readFileSync(join(ws, 'd', 'f.txt'), 'utf8');
    for (const i of reported) expect(final).toContain(`line ${i} = new\n`);
  });
});
