import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestContext, createToolHarness, makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { editTool } from '../src/index.js';
import { isRoot, runAsNobody } from '../../../lib/tool-common/test/support/as-unprivileged.js';

const tempDir = () => makeTempDir('airlock-edit-bad-');

const failure = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the edit to fail');
};

describe('edit: bad inputs', () => {
  it('an empty path and a path with a NUL byte are errors that say what to do, through the kernel', async () => {
    const h = createToolHarness(editTool, { cwd: tempDir() });
    const empty = await h.call({ path: '', edits: [{ oldText: 'a', newText: 'b' }] });
    expect(empty.outcome).toBe('error');
    expect(h.text(empty)).toMatch(/path is empty.*Give the path of a file/);
    const nul = await h.call({ path: 'a\0b.txt', edits: [{ oldText: 'a', newText: 'b' }] });
    expect(nul.outcome).toBe('error');
    expect(h.text(nul)).toMatch(/NUL byte.*Check the path/);
  });

  it('a directory where a file is expected', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'sub'));
    const ctx = createTestContext({ cwd: dir });
    expect(await failure(editTool.execute('t', { path: 'sub', edits: [{ oldText: 'a', newText: 'b' }] }, undefined, undefined, ctx))).toBe(
      'sub is a directory, not a file. Give the path of a file inside it (use ls to see what is there).',
    );
  });

  it('huge arguments: a 50 MB newText lands whole', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'f.txt'), 'head\nMARK\ntail\n');
    const huge = 'y'.repeat(50 * 1024 * 1024);
    const ctx = createTestContext({ cwd: dir });
    const result = await editTool.execute('t', { path: 'f.txt', edits: [{ oldText: 'MARK', newText: huge }] }, undefined, undefined, ctx);
    expect(result.content[0]).toMatchObject({ text: 'Replaced 1 block(s) in f.txt.' });
    const after = readFileSync(join(dir, 'f.txt'));
    expect(after.length).toBe(huge.length + 'head\n\ntail\n'.length);
    expect(after.subarray(0, 5).toString()).toBe('head\n');
    expect(after.subarray(after.length - 6).toString()).toBe('\ntail\n');
  }, scaledMs(30_000));

  it('non-UTF-8 contents: refused with a clear error, every byte left as it was', async () => {
    const dir = tempDir();
    // Latin-1 "café" and a stray 0xFF: an editor in another encoding wrote this.
    const bytes = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x78, 0xff, 0x0a]);
    writeFileSync(join(dir, 'latin1.txt'), bytes);
    const ctx = createTestContext({ cwd: dir });
    const message = await failure(editTool.execute('t', { path: 'latin1.txt', edits: [{ oldText: 'x', newText: 'y' }] }, undefined, undefined, ctx));
    expect(message).toBe('latin1.txt is not valid UTF-8 text (binary or another encoding), so edit cannot change it safely. Use bash or write instead.');
    expect(readFileSync(join(dir, 'latin1.txt'))).toEqual(bytes);
    expect(readdirSync(dir)).toEqual(['latin1.txt']);
  });

  it('permission denied: says so and what to do, and changes nothing', async () => {
    const dir = tempDir();
    const file = join(dir, 'f.txt');
    writeFileSync(file, 'keep me\n', { mode: 0o644 });
    let outcome: { ok: boolean; text: string };
    if (isRoot) {
      // Root ignores permission bits: run the edit as nobody, who can read the file but not write its folder.
      chmodSync(dir, 0o755);
      outcome = await runAsNobody('tool-edit', 'editTool', dir, { path: 'f.txt', edits: [{ oldText: 'keep', newText: 'lose' }] });
    } else {
      chmodSync(dir, 0o555);
      try {
        const result = await editTool.execute('t', { path: 'f.txt', edits: [{ oldText: 'keep', newText: 'lose' }] }, undefined, undefined, createTestContext({ cwd: dir }));
        outcome = { ok: true, text: JSON.stringify(result.content) };
      } catch (error) {
        outcome = { ok: false, text: (error as Error).message };
      } finally {
        chmodSync(dir, 0o755);
      }
    }
    expect(outcome.ok).toBe(false);
    expect(outcome.text).toMatch(/^Permission denied: cannot write f\.txt \(EACCES.*write permission on its folder.*Ask the user to change the permissions/);
    expect(readFileSync(file, 'utf8')).toBe('keep me\n');
    expect(readdirSync(dir)).toEqual(['f.txt']);
  }, scaledMs(30_000));
});
