import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDescriptorNamingForTests } from '@airlock/tool-common';
import { makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { call, guardedKernel, NAMING, startSwapper } from '../../../lib/tool-common/test/support/race.js';
import { lsTool } from '../src/index.js';

/** Issue 19 §4 for ls: a folder swapped for a link to a folder outside never gets that folder listed. */
describe.each(NAMING)('ls (%s): the folder listed is the one judged, under a swapping process', (_how, naming) => {
  beforeAll(() => setDescriptorNamingForTests(naming));
  afterAll(() => setDescriptorNamingForTests(undefined));

  // Without /proc ls lists by path between two identity checks: a folder swapped out and back
  // during the listing can show the other folder's names (docs/security.md; a loaded machine
  // widens that window). What still holds there: never contents, and no listing is mislabelled.
  it('150 listings of d while d is swapped for a link to outside: no outside name appears with /proc, and without it names at most', { timeout: scaledMs(60_000) }, async () => {
    const base = realpathSync(makeTempDir('airlock-ls-race-'));
    const ws = join(base, 'ws');
    const outside = join(base, 'outside');
    mkdirSync(join(ws, 'd'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(ws, 'd', 'inside.txt'), '');
    writeFileSync(join(outside, 'id_rsa-outside-name'), '');
    const kernel = guardedKernel(ws, join(base, 'spill'), lsTool);
    const swapper = await startSwapper(ws, 'd', 'folder-or-link', 'd', outside);
    let ok = 0;
    try {
      for (let i = 0; i < 150; i++) {
        const r = await call(kernel, 'ls', { path: 'd' });
        if (naming !== false) expect(r.text).not.toContain('id_rsa-outside-name');
        if (r.outcome === 'ok') {
          expect(r.text).toMatch(naming === false ? /^(inside\.txt|id_rsa-outside-name)$/ : /^inside\.txt$/);
          ok++;
        } else if (r.outcome !== 'denied') expect(r.text).toMatch(/changed between the policy's decision|Path not found/);
      }
    } finally {
      await swapper.stop();
    }
    expect((await call(kernel, 'ls', { path: 'd' })).text).toBe('inside.txt');
  });
});
