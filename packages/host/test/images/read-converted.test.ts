import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolResultMessage } from '@airlock/contract';
import { openHost, type Host } from '../../src/index.js';
import { removeTempDirs, tempDir } from '../extensions/fixtures.js';
import { scaledMs } from '@airlock/kernel/testing';

/**
 * A BMP is read as an image: converted to PNG and attached, through a real host with the default
 * tools. Each BMP is written by hand below (every layout read supports), and the PNG that comes
 * back is decoded with sharp and compared pixel by pixel with what was written.
 */

const hosts: Host[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
  removeTempDirs();
});

async function open(): Promise<{ host: Host; project: string }> {
  const root = tempDir('airlock-bmp-');
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(join(home, '.config', 'airlock'), { recursive: true });
  mkdirSync(project);
  const host = await openHost({ cwd: project, interactive: false, env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config') }, homeDir: home });
  hosts.push(host);
  return { host, project };
}

/** A 5x3 test picture, RGBA, rows top to bottom. */
const W = 5;
const H = 3;
function pixel(x: number, y: number): [number, number, number, number] {
  return [(x * 60) & 0xff, (y * 100) & 0xff, ((x + y) * 40) & 0xff, 255];
}

/** A BMP file of the test picture: header + optional extra (masks/palette) + rows. */
function bmp(opts: { bpp: number; topDown?: boolean; compression?: number; masks?: number[]; palette?: [number, number, number][]; encode: (x: number, y: number) => number[] }): Buffer {
  const stride = Math.floor((opts.bpp * W + 31) / 32) * 4;
  const headerSize = opts.masks && opts.masks.length === 4 ? 108 : 40;
  const paletteBytes = (opts.palette?.length ?? 0) * 4;
  const extra = headerSize === 40 && opts.masks ? opts.masks.length * 4 : 0;
  const offset = 14 + headerSize + extra + paletteBytes;
  const out = Buffer.alloc(offset + stride * H);
  out.write('BM', 0, 'ascii');
  out.writeUInt32LE(out.length, 2);
  out.writeUInt32LE(offset, 10);
  out.writeUInt32LE(headerSize, 14);
  out.writeInt32LE(W, 18);
  out.writeInt32LE(opts.topDown ? -H : H, 22);
  out.writeUInt16LE(1, 26);
  out.writeUInt16LE(opts.bpp, 28);
  out.writeUInt32LE(opts.compression ?? 0, 30);
  out.writeUInt32LE(opts.palette?.length ?? 0, 46);
  opts.masks?.forEach((m, i) => out.writeUInt32LE(m >>> 0, 54 + i * 4));
  opts.palette?.forEach(([r, g, b], i) => out.set([b, g, r, 0], 14 + headerSize + extra + i * 4));
  for (let y = 0; y < H; y++) {
    const row = offset + (opts.topDown ? y : H - 1 - y) * stride;
    const bits: number[] = [];
    for (let x = 0; x < W; x++) bits.push(...opts.encode(x, y));
    if (opts.bpp < 8) {
      // packed indices, most significant bits first
      for (let x = 0; x < W; x++) {
        const bit = x * opts.bpp;
        out[row + (bit >> 3)] = out[row + (bit >> 3)]! | (bits[x]! << (8 - opts.bpp - (bit & 7)));
      }
    } else out.set(bits, row);
  }
  return out;
}

const text = (m: ToolResultMessage) => m.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

async function pixelsOf(m: ToolResultMessage): Promise<{ width: number; height: number; rgba: number[] }> {
  const image = m.content.find((c) => c.type === 'image');
  expect(image, text(m)).toBeDefined();
  expect(image!.type === 'image' && image!.mimeType).toBe('image/png');
  const png = Buffer.from(image!.type === 'image' ? image!.data : '', 'base64');
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, rgba: [...data] };
}

const expected = (map: (p: [number, number, number, number]) => [number, number, number, number] = (p) => p) => {
  const all: number[] = [];
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) all.push(...map(pixel(x, y)));
  return all;
};

describe('read converts BMP images to PNG and attaches them', { timeout: scaledMs(60_000) }, () => {
  it('24-bit bottom-up, 24-bit top-down and 32-bit BI_RGB', async () => {
    const { host, project } = await open();
    writeFileSync(join(project, 'a.bmp'), bmp({ bpp: 24, encode: (x, y) => [pixel(x, y)[2], pixel(x, y)[1], pixel(x, y)[0]] }));
    writeFileSync(join(project, 'b.bmp'), bmp({ bpp: 24, topDown: true, encode: (x, y) => [pixel(x, y)[2], pixel(x, y)[1], pixel(x, y)[0]] }));
    writeFileSync(join(project, 'c.bmp'), bmp({ bpp: 32, encode: (x, y) => [pixel(x, y)[2], pixel(x, y)[1], pixel(x, y)[0], 0] }));
    for (const name of ['a.bmp', 'b.bmp', 'c.bmp']) {
      const m = await host.execute({ id: name, name: 'read', arguments: { path: name } });
      expect(m.outcome, text(m)).toBe('ok');
      expect(text(m)).toContain(`image/bmp, ${W}x${H}`);
      expect(text(m)).toContain('converted to PNG');
      const got = await pixelsOf(m);
      expect([got.width, got.height]).toEqual([W, H]);
      expect(got.rgba).toEqual(expected());
    }
  });

  it('32-bit with alpha bitfields keeps transparency; 16-bit 5-6-5 bitfields', async () => {
    const { host, project } = await open();
    writeFileSync(
      join(project, 'alpha.bmp'),
      bmp({ bpp: 32, compression: 3, masks: [0x00ff0000, 0x0000ff00, 0x000000ff, 0xff000000], encode: (x, y) => [pixel(x, y)[2], pixel(x, y)[1], pixel(x, y)[0], x * 50] }),
    );
    const a = await pixelsOf(await host.execute({ id: 'a', name: 'read', arguments: { path: 'alpha.bmp' } }));
    const wantAlpha: number[] = [];
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) wantAlpha.push(x * 50);
    expect(a.rgba.filter((_, i) => i % 4 === 3)).toEqual(wantAlpha);

    const to565 = (r: number, g: number, b: number) => ((r >> 3) << 11) | ((g >> 2) << 5) | (b >> 3);
    writeFileSync(
      join(project, 'rgb565.bmp'),
      bmp({ bpp: 16, compression: 3, masks: [0xf800, 0x07e0, 0x001f], encode: (x, y) => { const v = to565(...(pixel(x, y).slice(0, 3) as [number, number, number])); return [v & 0xff, v >> 8]; } }),
    );
    const c = await pixelsOf(await host.execute({ id: 'c', name: 'read', arguments: { path: 'rgb565.bmp' } }));
    const round = (v: number, bits: number) => Math.round(((v >> (8 - bits)) * 255) / ((1 << bits) - 1));
    expect(c.rgba).toEqual(expected(([r, g, b, al]) => [round(r, 5), round(g, 6), round(b, 5), al]));
  });

  it('8-bit and 1-bit palettes', async () => {
    const { host, project } = await open();
    const colours: [number, number, number][] = [];
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) colours.push(pixel(x, y).slice(0, 3) as [number, number, number]);
    writeFileSync(join(project, 'p8.bmp'), bmp({ bpp: 8, palette: colours, encode: (x, y) => [y * W + x] }));
    expect((await pixelsOf(await host.execute({ id: 'p8', name: 'read', arguments: { path: 'p8.bmp' } }))).rgba).toEqual(expected());

    writeFileSync(join(project, 'p1.bmp'), bmp({ bpp: 1, palette: [[0, 0, 0], [255, 255, 255]], encode: (x, y) => [(x + y) % 2] }));
    const got = await pixelsOf(await host.execute({ id: 'p1', name: 'read', arguments: { path: 'p1.bmp' } }));
    const want: number[] = [];
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) want.push(...((x + y) % 2 ? [255, 255, 255, 255] : [0, 0, 0, 255]));
    expect(got.rgba).toEqual(want);
  });

  it('a BMP read cannot decode (RLE) is described with the reason and what to do, not attached', async () => {
    const { host, project } = await open();
    writeFileSync(join(project, 'rle.bmp'), bmp({ bpp: 8, compression: 1, palette: [[0, 0, 0]], encode: () => [0] }));
    const m = await host.execute({ id: 'r', name: 'read', arguments: { path: 'rle.bmp' } });
    expect(m.outcome).toBe('ok');
    expect(m.content.some((c) => c.type === 'image')).toBe(false);
    expect(text(m)).toContain('RLE-compressed');
    expect(text(m)).toContain('convert in.bmp out.png');
  });
});

describe('read attaches TIFF and AVIF images as PNG (the host converts them with sharp)', { timeout: scaledMs(60_000) }, () => {
  it('a TIFF comes back as a PNG with the same pixels; an AVIF as a PNG of the same size', async () => {
    const { host, project } = await open();
    const raw = Buffer.from(expected());
    await sharp(raw, { raw: { width: W, height: H, channels: 4 } }).tiff({ compression: 'lzw' }).toFile(join(project, 'scan.tiff'));
    await sharp(raw, { raw: { width: W, height: H, channels: 4 } }).avif().toFile(join(project, 'photo.avif'));

    const tiff = await host.execute({ id: 't', name: 'read', arguments: { path: 'scan.tiff' } });
    expect(tiff.outcome, text(tiff)).toBe('ok');
    expect(text(tiff)).toContain('converted from TIFF to PNG');
    expect((await pixelsOf(tiff)).rgba).toEqual(expected());

    const avif = await host.execute({ id: 'a', name: 'read', arguments: { path: 'photo.avif' } });
    expect(avif.outcome, text(avif)).toBe('ok');
    expect(text(avif)).toContain('converted from AVIF to PNG');
    const got = await pixelsOf(avif);
    expect([got.width, got.height]).toEqual([W, H]);
  });
});

