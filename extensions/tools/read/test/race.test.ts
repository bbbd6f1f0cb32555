import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDescriptorNamingForTests } from '@airlock/tool-common';
import { makeTempDir } from '@airlock/kernel/testing';
import { call, guardedKernel, NAMING, startSwapper } from '../../../lib/tool-common/test/support/race.js';
import { createReadTool } from '../src/index.js';

/**
 * Issue 19 §4: the policy judges a name, and the tool later opens a name. A process swapping the
 * name between an allowed file and a link to a secret made sequential reads leak the secret.
 * Each test runs 150 reads against a real swapping process and looks for the secret's bytes.
 */

const SECRET = 'SECRET_TOKEN=hunter2-do-not-leak';
const ROUNDS = 150;

function workspace() {
  const base = realpathSync(makeTempDir('airlock-read-race-'));
  const ws = join(base, 'ws');
  mkdirSync(ws);
  writeFileSync(join(ws, '.env'), `${SECRET}\n`);
  const kernel = guardedKernel(ws, join(base, 'spill'), createReadTool());
  return { base, ws, kernel };
}

/** 150 reads of `path`: none may carry the secret; the others are the file or a clear refusal. */
async function readMany(kernel: ReturnType<typeof guardedKernel>, path: string) {
  const seen = { ok: 0, denied: 0, changed: 0, other: [] as string[] };
  for (let i = 0; i < ROUNDS; i++) {
    const r = await call(kernel, 'read', { path });
    expect(r.text).not.toContain('hunter2');
    if (r.outcome === 'ok') {
      expect(r.text).toContain('ordinary');
      seen.ok++;
    } else if (r.outcome === 'denied') seen.denied++;
    else if (/changed between the policy's decision and the open/.test(r.text)) seen.changed++;
    else seen.other.push(r.text);
  }
  // The swapper leaves the name missing for a moment in each round: "not found" is honest then;
  // a judgement that met the link mid-swap could not resolve it, and says so.
  for (const text of seen.other) expect(text).toMatch(/^File not found: |was a symbolic link that could not be resolved when the call was judged/);
  return seen;
}

describe.each(NAMING)('read (%s): what is opened is what was judged, under a swapping process', (_how, naming) => {
  beforeAll(() => setDescriptorNamingForTests(naming));
  afterAll(() => setDescriptorNamingForTests(undefined));

  it('x swapped between a link to b.txt and a link to .env: no read returns .env', async () => {
    const { ws, kernel } = workspace();
    writeFileSync(join(ws, 'b.txt'), 'ordinary content\n');
    const swapper = await startSwapper(ws, 'x', 'links', 'b.txt', '.env');
    try {
      await readMany(kernel, 'x');
    } finally {
      await swapper.stop();
    }
    // Ordinary work goes on once the swapping stops (on a starved machine every read made during
    // it may meet the name mid-swap, so that count says nothing).
    writeFileSync(join(ws, 'calm.txt'), 'ordinary content\n');
    const calm = await call(kernel, 'read', { path: 'calm.txt' });
    expect([calm.outcome, calm.text]).toEqual(['ok', expect.stringContaining('ordinary')]);
  });

  it('b.txt itself swapped between the real file and a link to .env: no read returns .env', async () => {
    const { ws, kernel } = workspace();
    writeFileSync(join(ws, 'b.real'), 'ordinary content\n');
    const swapper = await startSwapper(ws, 'b.txt', 'file-or-link', 'b.real', '.env');
    try {
      const seen = await readMany(kernel, 'b.txt');
      expect(seen.ok + seen.denied + seen.changed).toBeGreaterThan(0);
    } finally {
      await swapper.stop();
    }
  });

  it('a folder on the way swapped for a link to a folder outside: no read returns the outside file', async () => {
    const { base, ws, kernel } = workspace();
    mkdirSync(join(ws, 'd'));
    writeFileSync(join(ws, 'd', 'b.txt'), 'ordinary content\n');
    mkdirSync(join(base, 'outside'));
    writeFileSync(join(base, 'outside', 'b.txt'), `${SECRET}\n`);
    const swapper = await startSwapper(ws, 'd', 'folder-or-link', 'd', join(base, 'outside'));
    try {
      await readMany(kernel, 'd/b.txt');
    } finally {
      await swapper.stop();
    }
  });

  it('without a race, reading through a link to a workspace file still works', async () => {
    const { ws, kernel } = workspace();
    writeFileSync(join(ws, 'b.txt'), 'ordinary content\n');
    symlinkSync('b.txt', join(ws, 'x'));
    const r = await call(kernel, 'read', { path: 'x' });
    expect([r.outcome, r.text]).toEqual(['ok', 'ordinary content\n']);
    expect((await call(kernel, 'read', { path: '.env' })).outcome).toBe('denied');
  });
});
