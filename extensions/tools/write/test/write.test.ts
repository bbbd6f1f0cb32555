import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestContext, createToolHarness, makeTempDir, scaledMs } from '@airlock/kernel/testing';
import extension, { writeTool, type WriteDetails } from '../src/index.js';
import { isRoot, runAsNobody } from '../../../lib/tool-common/test/support/as-unprivileged.js';

function tempDir(): string {
  return makeTempDir('airlock-write-');
}

async function run(cwd: string, params: { path: string; content: string }, signal?: AbortSignal, ctx = createTestContext({ cwd })) {
  const result = await writeTool.execute('t', params, signal, undefined, ctx);
  const first = result.content[0];
  return { text: first?.type === 'text' ? first.text : '', details: result.details as WriteDetails, ctx };
}

const statOf = (path: string) => {
  const s = statSync(path);
  return { mtimeMs: s.mtimeMs, size: s.size };
};

describe('write: what Pi asserts', () => {
  it('writes a file and reports its path', async () => {
    const dir = tempDir();
    const { text } = await run(dir, { path: 'a.txt', content: 'hello\n' });
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('hello\n');
    expect(text).toContain('a.txt');
  });

  it('creates missing parent folders', async () => {
    const dir = tempDir();
    await run(dir, { path: 'deep/er/still/a.txt', content: 'x' });
    expect(readFileSync(join(dir, 'deep/er/still/a.txt'), 'utf8')).toBe('x');
  });
});

describe('write: reporting', () => {
  it('says whether it created or overwrote, counting UTF-8 bytes', async () => {
    const dir = tempDir();
    const created = await run(dir, { path: 'notes/a.md', content: 'héllo 😀\n' });
    expect(created.text).toBe('Created notes/a.md (12 bytes).');
    expect(created.details).toMatchObject({ created: true, bytes: 12, path: join(dir, 'notes/a.md') });
    writeFileSync(join(dir, 'notes/a.md'), 'x'.repeat(40));
    const over = await run(dir, { path: 'notes/a.md', content: 'héllo 😀\n' });
    expect(over.text).toBe('Overwrote notes/a.md (12 bytes, was 40).');
    expect(over.details).toMatchObject({ created: false, bytes: 12, previousBytes: 40 });
    expect(statSync(join(dir, 'notes/a.md')).size).toBe(12);
  });

  it('shows a path outside the working folder as absolute, and writes an empty file', async () => {
    const dir = tempDir();
    const other = tempDir();
    const { text } = await run(dir, { path: join(other, 'e.txt'), content: '' });
    expect(text).toBe(`Created ${join(other, 'e.txt')} (0 bytes).`);
    expect(readFileSync(join(other, 'e.txt'), 'utf8')).toBe('');
  });

  it('is a tool the extension registers, with replay never and an fs.write resource on the real path', () => {
    const registered: unknown[] = [];
    void extension.setup({ registerTool: (t: unknown) => void registered.push(t) } as never);
    expect(registered).toEqual([writeTool]);
    expect(writeTool.replay).toBe('never');
    const dir = tempDir();
    mkdirSync(join(dir, 'real'));
    symlinkSync(join(dir, 'real'), join(dir, 'link'));
    const ctx = createTestContext({ cwd: dir });
    expect(writeTool.resources?.({ path: 'link/new/file.txt', content: '' }, ctx)).toEqual([{ kind: 'fs.write', path: join(dir, 'real/new/file.txt'), written: 'link/new/file.txt' }]);
    writeFileSync(join(dir, 'real/f.txt'), '');
    expect(writeTool.resources?.({ path: '@link/f.txt', content: '' }, ctx)).toEqual([{ kind: 'fs.write', path: join(dir, 'real/f.txt'), written: '@link/f.txt' }]);
  });
});

describe('write: atomic', () => {
  it('replaces the file by rename (new inode), keeping its mode, and leaves no temp file', async () => {
    const dir = tempDir();
    const file = join(dir, 'a.sh');
    writeFileSync(file, 'old');
    chmodSync(file, 0o751);
    const inode = statSync(file).ino;
    await run(dir, { path: 'a.sh', content: 'new' });
    expect(readFileSync(file, 'utf8')).toBe('new');
    expect(statSync(file).ino).not.toBe(inode);
    expect(statSync(file).mode & 0o7777).toBe(0o751);
    expect(readdirSync(dir)).toEqual(['a.sh']);
  });

  it('gives a new file the usual mode for the umask, not the temp file 0600', async () => {
    const dir = tempDir();
    await run(dir, { path: 'n.txt', content: 'x' });
    const mask = process.umask();
    expect(statSync(join(dir, 'n.txt')).mode & 0o777).toBe(0o666 & ~mask);
  });

  it('never lets a concurrent reader see a half-written file', async () => {
    const dir = tempDir();
    const file = join(dir, 'big.txt');
    const size = 4 * 1024 * 1024;
    writeFileSync(file, 'a'.repeat(size));
    let writing = true;
    const seen: string[] = [];
    const reader = (async () => {
      const { readFile } = await import('node:fs/promises');
      while (writing) {
        const text = await readFile(file, 'utf8');
        seen.push(text.length === size && /^(a+|b+|c+)$/.test(text) ? 'whole' : `torn:${text.length}`);
      }
    })();
    const ctx = createTestContext({ cwd: dir });
    for (const ch of ['b', 'c', 'b', 'c', 'b']) await run(dir, { path: 'big.txt', content: ch.repeat(size) }, undefined, ctx);
    writing = false;
    await reader;
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((s) => s !== 'whole')).toEqual([]);
    expect(readdirSync(dir)).toEqual(['big.txt']);
  });

  it('does nothing when aborted before writing', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.txt'), 'keep');
    const controller = new AbortController();
    controller.abort();
    await expect(run(dir, { path: 'a.txt', content: 'lost' }, controller.signal)).rejects.toThrow();
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('keep');
    expect(readdirSync(dir)).toEqual(['a.txt']);
  });
});

describe('write: staleness', () => {
  it('refuses to overwrite a file that changed since it was read, and says to read it again', async () => {
    const dir = tempDir();
    const file = join(dir, 'a.txt');
    writeFileSync(file, 'v1');
    const ctx = createTestContext({ cwd: dir });
    ctx.files.note(file, statOf(file)); // what read does
    writeFileSync(file, 'v2 changed by someone else');
    await expect(run(dir, { path: 'a.txt', content: 'mine' }, undefined, ctx)).rejects.toThrow(/changed on disk.*Read the file again/s);
    expect(readFileSync(file, 'utf8')).toBe('v2 changed by someone else');
    ctx.files.note(file, statOf(file)); // read again
    await run(dir, { path: 'a.txt', content: 'mine' }, undefined, ctx);
    expect(readFileSync(file, 'utf8')).toBe('mine');
  });

  it('notes its own writes, so writing twice needs no read in between, but an outside change in between is refused', async () => {
    const dir = tempDir();
    const file = join(dir, 'a.txt');
    const ctx = createTestContext({ cwd: dir });
    await run(dir, { path: 'a.txt', content: 'one' }, undefined, ctx);
    expect(ctx.files.get(file)).toEqual(statOf(file));
    await run(dir, { path: 'a.txt', content: 'two' }, undefined, ctx);
    writeFileSync(file, 'outside!');
    await expect(run(dir, { path: 'a.txt', content: 'three' }, undefined, ctx)).rejects.toThrow(/read the file again/i);
  });

  it('overwrites a file never read in this session (like Pi), and checks the real path behind a symlink', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'never-read.txt'), 'old');
    await run(dir, { path: 'never-read.txt', content: 'new' });
    expect(readFileSync(join(dir, 'never-read.txt'), 'utf8')).toBe('new');

    const real = join(dir, 'real.txt');
    writeFileSync(real, 'v1');
    symlinkSync('real.txt', join(dir, 'alias.txt'));
    const ctx = createTestContext({ cwd: dir });
    ctx.files.note(real, statOf(real));
    writeFileSync(real, 'v2, longer');
    await expect(run(dir, { path: 'alias.txt', content: 'x' }, undefined, ctx)).rejects.toThrow(/changed on disk/);
  });
});

describe('write: symlinks', () => {
  it('writes through a symlink to the real file and keeps the link', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'target.txt'), 'old');
    symlinkSync('target.txt', join(dir, 'link.txt'));
    const { text, details } = await run(dir, { path: 'link.txt', content: 'new' });
    expect(lstatSync(join(dir, 'link.txt')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'target.txt'), 'utf8')).toBe('new');
    expect(text).toBe(`Overwrote link.txt (3 bytes, was 3). Wrote through the symlink to ${join(dir, 'target.txt')}.`);
    expect(details.path).toBe(join(dir, 'target.txt'));
  });

  it('creates the target of a dangling symlink, and its folders', async () => {
    const dir = tempDir();
    symlinkSync('sub/made.txt', join(dir, 'dangling'));
    await run(dir, { path: 'dangling', content: 'hi' });
    expect(readFileSync(join(dir, 'sub/made.txt'), 'utf8')).toBe('hi');
    expect(lstatSync(join(dir, 'dangling')).isSymbolicLink()).toBe(true);
  });
});

describe('write: bad inputs', () => {
  it('rejects an empty path and a path with a NUL byte, through the kernel', async () => {
    const h = createToolHarness(writeTool);
    const empty = await h.call({ path: '', content: 'x' });
    expect(empty.outcome).toBe('error');
    expect(h.text(empty)).toMatch(/path is empty/);
    const nul = await h.call({ path: 'a\0b.txt', content: 'x' });
    expect(nul.outcome).toBe('error');
    expect(h.text(nul)).toMatch(/NUL byte/);
  });

  it('refuses a directory where a file is expected, and a file where a folder is expected', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'folder'));
    await expect(run(dir, { path: 'folder', content: 'x' })).rejects.toThrow(/folder is a directory, not a file/);
    writeFileSync(join(dir, 'plain'), 'x');
    await expect(run(dir, { path: 'plain/child.txt', content: 'x' })).rejects.toThrow(/part of its folder path is a file/);
    expect(readFileSync(join(dir, 'plain'), 'utf8')).toBe('x');
  });

  it('validates missing arguments before running', async () => {
    const h = createToolHarness(writeTool);
    const msg = await h.call({ path: 'a.txt' });
    expect(msg.outcome).toBe('invalid');
  });

  it('writes huge content and non-ASCII names', async () => {
    const dir = tempDir();
    const content = 'ü'.repeat(3_000_000);
    const { text } = await run(dir, { path: 'ünï cødé.txt', content });
    expect(text).toBe('Created ünï cødé.txt (6000000 bytes).');
    expect(statSync(join(dir, 'ünï cødé.txt')).size).toBe(6_000_000);
  });

  it('huge arguments: 50 MB of content', async () => {
    const dir = tempDir();
    const content = 'z'.repeat(50 * 1024 * 1024);
    const { text } = await run(dir, { path: 'huge.txt', content });
    expect(text).toBe(`Created huge.txt (${content.length} bytes).`);
    expect(statSync(join(dir, 'huge.txt')).size).toBe(content.length);
  }, scaledMs(30_000));

  it('overwrites a file whose contents are not UTF-8, reporting its old size', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0xff, 0x0a]));
    const { text } = await run(dir, { path: 'latin1.txt', content: 'café\n' });
    expect(text).toBe('Overwrote latin1.txt (6 bytes, was 6).');
    expect(readFileSync(join(dir, 'latin1.txt'), 'utf8')).toBe('café\n');
  });

  it('reports permission denied with what to do, leaving nothing behind', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'locked'));
    const params = { path: 'locked/a.txt', content: 'x' };
    let outcome: { ok: boolean; text: string };
    if (isRoot) {
      // Root ignores permission bits: run the write as nobody, who cannot write a root-owned 0755 folder.
      chmodSync(dir, 0o755);
      outcome = await runAsNobody('tool-write', 'writeTool', dir, params);
    } else {
      chmodSync(join(dir, 'locked'), 0o555);
      try {
        outcome = { ok: true, text: (await run(dir, params)).text };
      } catch (error) {
        outcome = { ok: false, text: (error as Error).message };
      }
      chmodSync(join(dir, 'locked'), 0o755);
    }
    expect(outcome.ok).toBe(false);
    expect(outcome.text).toMatch(/^Permission denied: cannot write locked\/a\.txt \(EACCES.*Write somewhere you have access to, or ask the user/);
    expect(existsSync(join(dir, 'locked/a.txt'))).toBe(false);
    expect(readdirSync(join(dir, 'locked'))).toEqual([]);
  }, scaledMs(30_000));
});

describe('write: through one kernel', () => {
  it('1000 concurrent writes to one file leave exactly one of them, whole, and no temp files', async () => {
    const dir = tempDir();
    const h = createToolHarness(writeTool, { cwd: dir });
    const contents = Array.from({ length: 1000 }, (_, i) => `write ${i}\n`.repeat(50 + (i % 7)));
    const results = await Promise.all(contents.map((content) => h.call({ path: 'shared.txt', content })));
    expect(results.filter((r) => r.outcome !== 'ok').map((r) => h.text(r))).toEqual([]);
    const final = readFileSync(join(dir, 'shared.txt'), 'utf8');
    expect(contents).toContain(final);
    expect(readdirSync(dir).filter((n) => n.includes('airlock-tmp'))).toEqual([]);
    expect(results.filter((r) => h.text(r).startsWith('Created'))).toHaveLength(1);
  }, scaledMs(60_000));
});
