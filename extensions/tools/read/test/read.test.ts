import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, createToolHarness, makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { isRoot, runAsNobody } from '../../../lib/tool-common/test/support/as-unprivileged.js';
import extension, { createReadTool, type ReadDetails } from '../src/index.js';
import { closestNames as closeNames } from '@airlock/toolkit/util';
import { selectLines } from '../src/lines.js';

let dir: string;
const tool = createReadTool();

function file(name: string, content: string | Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

function lines(n: number, prefix = 'line'): string {
  return Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`).join('\n');
}

async function read(params: { path: string; offset?: number; limit?: number }, ctx = createTestContext({ cwd: dir })) {
  const result = await tool.execute('id', params, undefined, undefined, ctx);
  const text = result.content.map((c) => (c.type === 'text' ? c.text : `[image ${c.mimeType}]`)).join('\n');
  return { result, text, details: result.details as ReadDetails | undefined, ctx };
}

/** A minimal PNG header (signature + IHDR) of the given size, padded to `bytes`. */
function png(width: number, height: number, bytes = 64): Buffer {
  const b = Buffer.alloc(bytes);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'ascii');
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  return b;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'airlock-read-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('read: text', () => {
  it('reads a whole small file without a notice, details undefined', async () => {
    file('small.txt', 'hello\nworld\n');
    const { text, details } = await read({ path: 'small.txt' });
    expect(text).toBe('hello\nworld\n');
    expect(details).toBeUndefined();
  });

  it('cuts 2,500 lines to 2,000 with a notice saying how to continue', async () => {
    file('2500.txt', lines(2500));
    const { text, details } = await read({ path: '2500.txt' });
    expect(text).toContain('line 2000\n');
    expect(text).not.toContain('line 2001');
    expect(text.endsWith('\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]')).toBe(true);
    expect(details?.truncation).toMatchObject({ truncatedBy: 'lines', totalLines: 2500, outputLines: 2000, maxLines: 2000 });
    expect(details?.lines).toEqual({ start: 1, end: 2000, total: 2500 });
  });

  it('does not truncate exactly 2,000 lines ending in a newline (the newline is no extra line)', async () => {
    file('2000nl.txt', `${lines(2000)}\n`);
    const { text, details } = await read({ path: '2000nl.txt' });
    expect(text).toBe(`${lines(2000)}\n`);
    expect(details).toBeUndefined();
  });

  it('cuts at the byte limit with a byte-limit notice, keeping whole lines', async () => {
    const long = Array.from({ length: 200 }, (_, i) => `${i + 1} ${'x'.repeat(500)}`).join('\n');
    file('bytes.txt', long);
    const { text, details } = await read({ path: 'bytes.txt' });
    expect(text).toMatch(/\n\n\[Showing lines 1-(\d+) of 200 \(50\.0KB limit\)\. Use offset=(\d+) to continue\.\]$/);
    const [, end, next] = /lines 1-(\d+) .* offset=(\d+)/.exec(text) ?? [];
    expect(Number(next)).toBe(Number(end) + 1);
    const body = text.slice(0, text.lastIndexOf('\n\n['));
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(51200);
    expect(body.split('\n').every((l) => l === '' || /^\d+ x{500}$/.test(l))).toBe(true);
    expect(details?.truncation?.truncatedBy).toBe('bytes');
  });

  it('starts at offset', async () => {
    file('100.txt', lines(100));
    const { text, details } = await read({ path: '100.txt', offset: 51 });
    expect(text.startsWith('line 51\n')).toBe(true);
    expect(text.endsWith('line 100')).toBe(true);
    expect(details?.lines).toEqual({ start: 51, end: 100, total: 100 });
  });

  it('stops at limit and says how many lines are left', async () => {
    file('100.txt', lines(100));
    const { text } = await read({ path: '100.txt', limit: 10 });
    expect(text).toBe(`${lines(10)}\n\n[90 more lines in file. Use offset=11 to continue.]`);
  });

  it('combines offset and limit', async () => {
    file('100.txt', lines(100));
    const { text } = await read({ path: '100.txt', offset: 41, limit: 20 });
    expect(text.startsWith('line 41\n')).toBe(true);
    expect(text).toContain('line 60\n\n[40 more lines in file. Use offset=61 to continue.]');
  });

  it('a limit that reaches the end exactly gives no notice', async () => {
    file('10.txt', `${lines(10)}\n`);
    const { text } = await read({ path: '10.txt', offset: 6, limit: 5 });
    expect(text).toBe('line 6\nline 7\nline 8\nline 9\nline 10\n');
  });

  it('rejects an offset past the end, saying how many lines there are', async () => {
    file('11.txt', `${lines(11)}\n`);
    await expect(read({ path: '11.txt', offset: 50 })).rejects.toThrow('Offset 50 is beyond the end of the file (11 lines).');
    await expect(read({ path: '11.txt', offset: 12 })).rejects.toThrow('(11 lines)');
    const { text } = await read({ path: '11.txt', offset: 11 });
    expect(text).toBe('line 11\n');
  });

  it('an empty file reads as empty; any offset past it is an error', async () => {
    file('empty.txt', '');
    expect((await read({ path: 'empty.txt' })).text).toBe('');
    await expect(read({ path: 'empty.txt', offset: 2 })).rejects.toThrow('the file is empty');
  });

  it('gives a diagnostic for a first line over the byte limit, with a command to see it', async () => {
    const path = file('minified.js', `${'a'.repeat(60_000)}\nsecond\n`);
    const { text, details } = await read({ path: 'minified.js' });
    expect(text).toBe(`[Line 1 is 58.6KB, exceeds the 50.0KB limit. See its start with bash: sed -n '1p' ${path} | head -c 51200]`);
    expect(details?.truncation).toMatchObject({ firstLineExceedsLimit: true, totalLines: 2 });
    const next = await read({ path: 'minified.js', offset: 2 });
    expect(next.text).toBe('second\n');
  });

  it('applies the byte limit to the decoded text of non-UTF-8 content', async () => {
    const latin1 = Buffer.from('caf\xe9 na\xefve\nline two\n', 'latin1');
    file('latin1.txt', latin1);
    const { text } = await read({ path: 'latin1.txt' });
    expect(text).toBe('caf\uFFFD na\uFFFDve\nline two\n');
    // 0xff bytes decode to U+FFFD (3 bytes each): 20,000 raw bytes are 60,000 bytes for the model.
    file('ff.txt', Buffer.concat([Buffer.from('ok\n'), Buffer.alloc(20_000, 0xff), Buffer.from('\nend\n')]));
    const big = await read({ path: 'ff.txt' });
    expect(big.text).toMatch(/^ok\n\n\[Showing lines 1-1 of 3 \(50\.0KB limit\)\. Use offset=2 to continue\.\]$/);
  });

  it('passes CRLF through and keeps multi-byte characters whole', async () => {
    file('crlf.txt', 'a\r\nbé😀\r\n');
    expect((await read({ path: 'crlf.txt' })).text).toBe('a\r\nbé😀\r\n');
  });

  it('honours the context limits', async () => {
    file('100.txt', lines(100));
    const ctx = createTestContext({ cwd: dir, limits: { maxLines: 5 } });
    const { text } = await read({ path: '100.txt' }, ctx);
    expect(text).toBe(`${lines(5)}\n\n[Showing lines 1-5 of 100. Use offset=6 to continue.]`);
  });
});

describe('read: images and binaries', () => {
  it('detects PNG bytes in image.txt by magic bytes', async () => {
    file('image.txt', png(800, 600));
    const { result, details } = await read({ path: 'image.txt' });
    expect(result.content[0]).toEqual({ type: 'text', text: 'Read image file [image/png, 800x600, 64B]' });
    expect(result.content[1]).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(Buffer.from((result.content[1] as { data: string }).data, 'base64').equals(png(800, 600))).toBe(true);
    expect(details?.image).toMatchObject({ mimeType: 'image/png', width: 800, height: 600, attached: true });
  });

  it('attaches a TIFF as it is, by magic bytes, for the resizer to convert (the kernel sniffs it)', async () => {
    const tiff = Buffer.concat([Buffer.from([0x49, 0x49, 0x2a, 0x00]), Buffer.alloc(60, 0)]);
    file('scan.dat', tiff);
    const { result, details } = await read({ path: 'scan.dat' });
    expect(result.content[0]).toEqual({ type: 'text', text: 'Read image file [image/tiff, 64B]' });
    expect(result.content[1]).toMatchObject({ type: 'image', mimeType: 'image/tiff' });
    expect(Buffer.from((result.content[1] as { data: string }).data, 'base64').equals(tiff)).toBe(true);
    expect(details?.image).toMatchObject({ mimeType: 'image/tiff', attached: true });
  });

  it('finds a JPEG size after a large EXIF segment', async () => {
    const app1 = Buffer.alloc(12_000);
    app1.writeUInt16BE(0xffe1, 0);
    app1.writeUInt16BE(app1.length - 2, 2);
    const sof = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0x2c, 0x01, 0x90, 0x03]);
    file('photo.dat', Buffer.concat([Buffer.from([0xff, 0xd8]), app1, sof, Buffer.alloc(20)]));
    const { result } = await read({ path: 'photo.dat' });
    expect(result.content[0]).toEqual({ type: 'text', text: 'Read image file [image/jpeg, 400x300, 11.8KB]' });
    expect(result.content[1]).toMatchObject({ type: 'image', mimeType: 'image/jpeg' });
  });

  it('reads text in not-an-image.png as text', async () => {
    file('not-an-image.png', 'just text\n');
    const { result, text } = await read({ path: 'not-an-image.png' });
    expect(result.content).toHaveLength(1);
    expect(text).toBe('just text\n');
  });

  it('attaches an image over 2000 px whole: fitting it to the model is the resizer’s job', async () => {
    file('huge.png', png(4000, 3000));
    const { result, text, details } = await read({ path: 'huge.png' });
    expect(result.content).toHaveLength(2);
    expect(text).toContain('Read image file [image/png, 4000x3000, 64B]');
    expect(result.content[1]).toMatchObject({ type: 'image', mimeType: 'image/png', data: readFileSync(join(dir, 'huge.png')).toString('base64') });
    expect(details?.image).toMatchObject({ width: 4000, height: 3000, attached: true });
  });

  it('does not load an image file over 64 MB, and says how to make one it can read', async () => {
    file('absurd.png', png(30000, 30000));
    truncateSync(join(dir, 'absurd.png'), 65 * 1024 * 1024); // sparse: costs no disk
    const { result, text, details } = await read({ path: 'absurd.png' });
    expect(result.content).toHaveLength(1);
    expect(text).toContain('Read image file [image/png, 30000x30000, 65.0MB]');
    expect(text).toContain('over the 64.0MB an image file may have');
    expect(text).toContain('-resize 2000x2000');
    expect(details?.image?.attached).toBe(false);
  });

  it('does not attach an image when the model takes none', async () => {
    file('small.png', png(10, 10));
    const { result, text } = await read({ path: 'small.png' }, createTestContext({ cwd: dir, imageInput: false }));
    expect(result.content).toHaveLength(1);
    expect(text).toContain('does not accept images');
  });

  it('describes a binary file instead of dumping it', async () => {
    file('prog.bin', Buffer.concat([Buffer.from('\x7fELF', 'latin1'), Buffer.alloc(3000, 0), Buffer.from('tail')]));
    const { text, result } = await read({ path: 'prog.bin' });
    expect(result.content).toHaveLength(1);
    expect(text).toBe('Binary file, not shown: prog.bin (2.9KB, ELF executable or library). Inspect it with bash if needed (e.g. file, xxd | head).');
  });
});

describe('read: errors', () => {
  it('suggests close names for a file that is not there', async () => {
    file('config.json', '{}');
    await expect(read({ path: 'confg.json' })).rejects.toThrow(/File not found: confg\.json\. Did you mean "config\.json"/);
    await expect(read({ path: 'zzzzzzzzzzzzzz' })).rejects.toThrow(/^File not found: zzzzzzzzzzzzzz\.$/);
    await expect(read({ path: 'no-such-folder/x.txt' })).rejects.toThrow(/does not exist either/);
  });

  it('points a directory at the ls tool', async () => {
    mkdirSync(join(dir, 'sub'), { recursive: true });
    await expect(read({ path: 'sub' })).rejects.toThrow('sub is a directory, not a file. Use the ls tool');
  });

  it('reports permission denied', async () => {
    const path = file('secret.txt', 'secret');
    chmodSync(path, 0o000);
    try {
      if (isRoot) {
        // Root reads anything: run the read as nobody, in a folder it may enter, on a file it may not read.
        const open = makeTempDir('airlock-read-denied-');
        chmodSync(open, 0o755);
        writeFileSync(join(open, 'secret.txt'), 'secret', { mode: 0o600 });
        const outcome = await runAsNobody('tool-read', 'createReadTool', open, { path: 'secret.txt' }, { factoryArgs: [] });
        expect(outcome).toMatchObject({ ok: false, text: expect.stringMatching(/^Permission denied: cannot read secret\.txt/) });
      } else {
        await expect(read({ path: 'secret.txt' })).rejects.toThrow(/^Permission denied: cannot read secret\.txt/);
      }
    } finally {
      chmodSync(path, 0o600);
    }
  }, scaledMs(30_000));

  it('reports a path through a file clearly', async () => {
    file('plain.txt', 'x');
    await expect(read({ path: 'plain.txt/inner' })).rejects.toThrow(/not a folder/);
  });

  it('words a name too long as every tool does (the kernel\'s errno wording)', async () => {
    const long = 'n'.repeat(300);
    await expect(read({ path: long })).rejects.toThrow(`Cannot read ${long}: the name or path is too long.`);
  });

  it('rejects an empty path and a NUL byte through the kernel', async () => {
    const h = createToolHarness(tool, { cwd: dir });
    const empty = await h.call({ path: '' });
    expect(empty.outcome).not.toBe('ok');
    expect(h.text(empty)).toContain('The path is empty');
    const nul = await h.call({ path: 'a\0b' });
    expect(nul.outcome).not.toBe('ok');
    expect(h.text(nul)).toContain('NUL byte');
  });

  it('validates offset and limit, and takes offset 0 as "from the start"', async () => {
    file('h.txt', 'a\nb\n');
    const h = createToolHarness(tool, { cwd: dir });
    expect((await h.call({ path: 'h.txt', offset: -1 })).outcome).toBe('invalid');
    expect((await h.call({ path: 'h.txt', limit: 0 })).outcome).toBe('invalid');
    const zero = await h.call({ path: 'h.txt', offset: 0 });
    expect(zero.outcome).toBe('ok');
    expect(h.text(zero)).toBe('a\nb\n');
  });

  it('stops on abort', async () => {
    file('abort.txt', 'x\n');
    const controller = new AbortController();
    controller.abort();
    await expect(tool.execute('id', { path: 'abort.txt' }, controller.signal, undefined, createTestContext({ cwd: dir }))).rejects.toThrow('Operation aborted');
  });

  it('refuses a device file rather than reading forever', async () => {
    await expect(read({ path: '/dev/zero' })).rejects.toThrow(/\/dev\/zero is a character device, not a regular file/);
  });

  it('refuses a FIFO at once, without waiting for a writer (a blocking open would never return)', async () => {
    const fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const started = Date.now();
    await expect(read({ path: 'pipe' })).rejects.toThrow('pipe is a named pipe (FIFO), not a regular file; the read tool reads regular files only');
    expect(Date.now() - started).toBeLessThan(scaledMs(2000));
    // Still a FIFO: nothing was written into the workspace.
    expect(statSync(fifo).isFIFO()).toBe(true);
  }, scaledMs(5000));

  it('refuses a symlink to a FIFO the same way', async () => {
    execFileSync('mkfifo', [join(dir, 'pipe2')]);
    symlinkSync('pipe2', join(dir, 'to-pipe'));
    await expect(read({ path: 'to-pipe' })).rejects.toThrow(/to-pipe is a named pipe \(FIFO\)/);
  }, scaledMs(5000));
});

describe('read: contract', () => {
  it('notes what it read in the ledger, by real path', async () => {
    const path = file('noted.txt', 'x\n');
    const { ctx } = await read({ path: 'noted.txt' });
    const stat = statSync(path);
    expect(ctx.files.get(realpathSync(path))).toEqual({ mtimeMs: stat.mtimeMs, size: 2 });
  });

  it('declares an fs.read of the real path, or the resolved path when missing', () => {
    const path = file('res.txt', 'x');
    const ctx = createTestContext({ cwd: dir });
    expect(tool.resources?.({ path: '@res.txt' }, ctx)).toEqual([{ kind: 'fs.read', path: realpathSync(path), written: '@res.txt' }]);
    expect(tool.resources?.({ path: 'missing.txt' }, ctx)).toEqual([{ kind: 'fs.read', path: join(dir, 'missing.txt'), written: 'missing.txt' }]);
  });

  it('is replay-safe and parallel, and its description states the limits', () => {
    expect(tool.replay).toBe('safe');
    expect(tool.executionMode ?? 'parallel').toBe('parallel');
    expect(tool.description).toContain('2000 lines or 50.0KB');
    expect(createReadTool({ limits: { maxLines: 300, maxBytes: 10240 } }).description).toContain('300 lines or 10.0KB');
  });

  it('registers through the extension with the settings limits', () => {
    const tools: { description: string; name: string }[] = [];
    const api = { registerTool: (t: { description: string; name: string }) => void tools.push(t), settings: { limits: { maxLines: 123 } } };
    void extension.setup(api as never);
    expect(tools.map((t) => t.name)).toEqual(['read']);
    expect(tools[0]?.description).toContain('123 lines');
  });

  it('declares the file a link leads to: through a linked folder, and a dangling link to the file it names (which a read then says is missing)', async () => {
    mkdirSync(join(dir, 'real'), { recursive: true });
    symlinkSync('real', join(dir, 'via'));
    symlinkSync('real/later.txt', join(dir, 'dangling'));
    const ctx = createTestContext({ cwd: dir });
    expect(tool.resources?.({ path: 'via/none.txt' }, ctx)).toEqual([{ kind: 'fs.read', path: join(realpathSync(dir), 'real', 'none.txt'), written: 'via/none.txt' }]);
    expect(tool.resources?.({ path: 'dangling' }, ctx)).toEqual([{ kind: 'fs.read', path: join(realpathSync(dir), 'real', 'later.txt'), written: 'dangling' }]);
    const h = createToolHarness(tool, { cwd: dir });
    expect(h.text(await h.call({ path: 'dangling' }))).toBe('File not found: dangling is a symbolic link to real/later.txt, which does not exist.');
  });

  it('works through the kernel pipeline', async () => {
    file('k.txt', 'via kernel\n');
    const h = createToolHarness(tool, { cwd: dir });
    const r = await h.call({ path: join(dir, 'k.txt') });
    expect(r.outcome).toBe('ok');
    expect(h.text(r)).toBe('via kernel\n');
  });

  it("suggests the folder's close names with the kernel's one scorer (a longer name it starts, then a small edit)", async () => {
    for (const name of ['README.md', 'package.json', 'index.js', 'index.tsx', 'other.ts']) file(name, 'x');
    await expect(read({ path: 'readme.md' })).rejects.toThrow(/^File not found: readme\.md\. Did you mean "README\.md" in /);
    await expect(read({ path: 'index.ts' })).rejects.toThrow(/^File not found: index\.ts\. Did you mean "index\.tsx", "index\.js" in /);
    expect(closeNames('index.ts', ['index.js', 'index.tsx', 'other.ts'])).toEqual(['index.tsx', 'index.js']);
  });
});

describe('read: streaming cost', () => {
  const MB50 = 50 * 1024 * 1024;
  let big: string;

  beforeAll(async () => {
    big = join(dir, 'big.txt');
    // 50 MiB of 100-byte lines, written in 1 MiB pieces.
    const line = `${'y'.repeat(99)}\n`;
    const piece = line.repeat((1024 * 1024) / 100);
    const fh = await open(big, 'w');
    let written = 0;
    while (written < MB50) {
      const chunk = piece.slice(0, Math.min(piece.length, MB50 - written));
      await fh.write(chunk);
      written += chunk.length;
    }
    await fh.close();
  });

  it('a head read of a 50 MB file reads only about what it keeps', async () => {
    // The bytes the line selection asks of the file, counted at the file handle.
    const fh = await open(big, 'r');
    let readBytes = 0;
    try {
      const counting = { read: async (b: Buffer, o: number, l: number, p: number) => { const r = await fh.read(b, o, l, p); readBytes += r.bytesRead; return r; } };
      const sel = await selectLines(counting, { offset: 1, limit: undefined, maxLines: 2000, maxBytes: 51200, countBudget: 8 * 1024 * 1024, size: MB50 });
      expect(sel.outputLines).toBe(512);
    } finally {
      await fh.close();
    }
    expect(readBytes).toBeLessThan(512 * 1024);
    const { text, details } = await read({ path: big });
    expect(details?.lines).toEqual({ start: 1, end: 512, total: undefined });
    expect(text).toMatch(/\[Showing lines 1-512 of a 50\.0MB file \(50\.0KB limit\)\. Use offset=513 to continue\.\]$/);
  });

  it('an offset near the end scans the file in chunks and counts the lines', async () => {
    const total = Math.ceil(MB50 / 100);
    const { text, details } = await read({ path: big, offset: total - 1 });
    expect(details?.lines).toEqual({ start: total - 1, end: total, total });
    expect(text.split('\n').filter((l) => l.startsWith('y')).length).toBe(2);
    await expect(read({ path: big, offset: total + 1 })).rejects.toThrow(`(${total} lines)`);
  });

  it('counts the total when the rest is within the count budget', async () => {
    const fh = await open(big, 'r');
    try {
      const size = (await fh.stat()).size;
      const sel = await selectLines(fh, { offset: 1, limit: 10, maxLines: 2000, maxBytes: 51200, countBudget: Number.POSITIVE_INFINITY, size });
      expect(sel).toMatchObject({ outputLines: 10, stoppedBy: 'limit', totalLines: Math.ceil(MB50 / 100) });
    } finally {
      await fh.close();
    }
  });
});
