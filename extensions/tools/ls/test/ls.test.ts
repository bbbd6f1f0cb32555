import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createTestContext, createToolHarness, makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { closestNames as closeNames } from '@airlock/toolkit/util';
import extension, { compareNames, lsTool, type LsDetails } from '../src/index.js';
import { isRoot, runAsNobody } from '../../../lib/tool-common/test/support/as-unprivileged.js';

function tempDir(): string {
  return makeTempDir('airlock-ls-');
}

async function ls(cwd: string, params: { path?: string; limit?: number } = {}, ctx = createTestContext({ cwd })) {
  const result = await lsTool.execute('t', params, undefined, undefined, ctx);
  const first = result.content[0];
  return { text: first?.type === 'text' ? first.text : '', details: result.details as LsDetails };
}

describe('ls: what Pi asserts', () => {
  it('lists dotfiles and marks directories with /', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, '.hidden'), '');
    writeFileSync(join(dir, 'file.txt'), '');
    mkdirSync(join(dir, 'sub'));
    const { text } = await ls(dir);
    expect(text.split('\n')).toEqual(['.hidden', 'file.txt', 'sub/']);
  });
});

describe('ls: order and marks', () => {
  it('sorts case-insensitively, then by exact name, by code units (not locale)', async () => {
    const dir = tempDir();
    for (const name of ['b', 'B', 'a', 'Zeta', 'ä', '_x', '10', '9', 'README.md']) writeFileSync(join(dir, name), '');
    const { text } = await ls(dir);
    expect(text.split('\n')).toEqual(['10', '9', '_x', 'a', 'B', 'b', 'README.md', 'Zeta', 'ä']);
    expect(compareNames('B', 'b')).toBeLessThan(0);
    expect(compareNames('a', 'B')).toBeLessThan(0);
  });

  it('marks symlinks with their target, says when the target is a folder, and notes a broken one', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'file.txt'), '');
    mkdirSync(join(dir, 'folder'));
    symlinkSync('file.txt', join(dir, 'to-file'));
    symlinkSync('folder', join(dir, 'to-folder'));
    symlinkSync('nowhere', join(dir, 'broken'));
    const { text } = await ls(dir);
    expect(text.split('\n')).toEqual([
      'broken -> nowhere (broken symlink: the target does not exist)',
      'file.txt',
      'folder/',
      'to-file -> file.txt',
      'to-folder/ -> folder',
    ]);
  });

  it('lists an entry it cannot stat with a note instead of dropping it (a symlink loop)', async () => {
    const dir = tempDir();
    symlinkSync('loop', join(dir, 'loop'));
    writeFileSync(join(dir, 'ok'), '');
    const { text } = await ls(dir);
    expect(text.split('\n')).toEqual(['loop -> loop (cannot stat: ELOOP, a symlink loop)', 'ok']);
  });

  it('names special files and escapes control characters in names', async () => {
    const dir = tempDir();
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    writeFileSync(join(dir, 'new\nline'), '');
    const { text } = await ls(dir);
    expect(text.split('\n')).toEqual(['new\\x0aline', 'pipe (named pipe)']);
  });

  it('says so for an empty folder, and lists a symlinked folder', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'empty'));
    expect((await ls(dir, { path: 'empty' })).text).toBe('(empty directory)');
    symlinkSync('empty', join(dir, 'alias'));
    const { text, details } = await ls(dir, { path: 'alias' });
    expect(text).toBe('(empty directory)');
    expect(details.path).toBe(join(dir, 'empty'));
  });
});

describe('ls: limits', () => {
  it('stops at the entry limit and says how to see more', async () => {
    const dir = tempDir();
    for (let i = 0; i < 12; i++) writeFileSync(join(dir, `f${String(i).padStart(2, '0')}`), '');
    const { text, details } = await ls(dir, { limit: 5 });
    expect(text).toBe('f00\nf01\nf02\nf03\nf04\n\n[5 entries limit reached. Use limit=10 for more.]');
    expect(details).toMatchObject({ total: 12, shown: 5, entryLimitReached: 5 });
  });

  it('applies the default limit of 500 through the kernel', async () => {
    const h = createToolHarness(lsTool);
    const dir = tempDir();
    for (let i = 0; i < 501; i++) writeFileSync(join(dir, `f${String(i).padStart(4, '0')}`), '');
    const msg = await h.call({ path: dir });
    expect(msg.outcome).toBe('ok');
    const text = h.text(msg);
    expect(text.endsWith('f0499\n\n[500 entries limit reached. Use limit=1000 for more.]')).toBe(true);
    expect(text).not.toContain('f0500');
  });

  it('cuts at the byte limit through ctx.truncate, with a notice', async () => {
    const dir = tempDir();
    for (let i = 0; i < 40; i++) writeFileSync(join(dir, `${String(i).padStart(2, '0')}-${'x'.repeat(60)}`), '');
    const ctx = createTestContext({ cwd: dir, limits: { maxBytes: 1024 } });
    const { text, details } = await ls(dir, {}, ctx);
    const lines = text.split('\n\n')[0]!.split('\n');
    expect(lines.length).toBeLessThan(40);
    expect(Buffer.byteLength(text.split('\n\n')[0]!)).toBeLessThanOrEqual(1024);
    expect(text).toContain(`[1.0KB limit reached: showing ${lines.length} of 40 entries.`);
    expect(details.truncation?.truncatedBy).toBe('bytes');
  });

  it('rejects a limit below 1', async () => {
    const h = createToolHarness(lsTool);
    expect((await h.call({ limit: 0 })).outcome).toBe('invalid');
  });
});

describe('ls: errors', () => {
  it('reports a missing folder and suggests close names next to it', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'components'));
    mkdirSync(join(dir, 'docs'));
    await expect(ls(dir, { path: 'componets' })).rejects.toThrow('Path not found: componets. Did you mean: components?');
    await expect(ls(dir, { path: 'nothing-like-it' })).rejects.toThrow(/^Path not found: nothing-like-it\.$/);
  });

  it('reports a file and suggests read', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.txt'), '');
    await expect(ls(dir, { path: 'a.txt' })).rejects.toThrow('Not a directory: a.txt is a file. Use read to see its content.');
  });

  it('rejects an empty path and a NUL byte through the kernel', async () => {
    const h = createToolHarness(lsTool);
    const empty = await h.call({ path: '' });
    expect(empty.outcome).toBe('error');
    expect(h.text(empty)).toMatch(/path is empty/);
    const nul = await h.call({ path: 'a\0' });
    expect(h.text(nul)).toMatch(/NUL byte/);
  });

  // Root reads every folder whatever its mode: as root, the call runs as nobody.
  it('reports permission denied', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'locked'));
    if (isRoot) {
      chmodSync(dir, 0o755);
      chmodSync(join(dir, 'locked'), 0o700);
      expect(await runAsNobody('tool-ls', 'lsTool', dir, { path: 'locked' })).toMatchObject({ ok: false, text: expect.stringMatching(/^Cannot read directory locked: permission denied/) });
    } else {
      chmodSync(join(dir, 'locked'), 0o000);
      await expect(ls(dir, { path: 'locked' })).rejects.toThrow(/^Cannot read directory locked: permission denied/);
    }
  }, scaledMs(30_000));
});

describe('ls: contract', () => {
  it('registers ls with replay safe and an fs.read of the real folder', () => {
    const registered: unknown[] = [];
    void extension.setup({ registerTool: (t: unknown) => void registered.push(t) } as never);
    expect(registered).toEqual([lsTool]);
    expect(lsTool.replay).toBe('safe');
    const dir = tempDir();
    mkdirSync(join(dir, 'real'));
    symlinkSync('real', join(dir, 'link'));
    const ctx = createTestContext({ cwd: dir });
    expect(lsTool.resources?.({ path: 'link' }, ctx)).toEqual([{ kind: 'fs.read', path: join(dir, 'real'), written: 'link' }]);
    expect(lsTool.resources?.({}, ctx)).toEqual([{ kind: 'fs.read', path: dir, written: '.' }]);
  });

  it('suggests by case, prefix and small typos, best first', () => {
    expect(closeNames('readme.MD', ['README.md', 'src'])).toEqual(['README.md']);
    expect(closeNames('tes', ['test', 'tests', 'zzz'])).toEqual(['test', 'tests']);
    expect(closeNames('qqqqqq', ['src'])).toEqual([]);
  });
});
