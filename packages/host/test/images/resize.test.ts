import type { ImageContent } from '@airlock/contract';
import type { ResizeRequest } from '@airlock/kernel';
import { DEFAULT_IMAGE_LIMITS, describeImage } from '@airlock/toolkit';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createImageResizer } from '../../src/images/resize.js';

/** Random pixels: they do not compress, so the byte limit really bites. */
function noise(width: number, height: number, channels: 3 | 4 = 3): Buffer {
  const raw = Buffer.alloc(width * height * channels);
  let x = 2463534242;
  for (let i = 0; i < raw.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    raw[i] = x & 0xff;
  }
  return raw;
}

async function image(width: number, height: number, format: 'png' | 'jpeg' | 'gif', channels: 3 | 4 = 3): Promise<ImageContent> {
  const data = await sharp(noise(width, height, channels), { raw: { width, height, channels } })[format]().toBuffer();
  return { type: 'image', data: data.toString('base64'), mimeType: `image/${format}` };
}

function request(image: ImageContent, limits: Partial<Omit<ResizeRequest, 'info'>> = {}): ResizeRequest {
  return { info: describeImage(image), maxDimension: DEFAULT_IMAGE_LIMITS.maxDimension, maxBytes: DEFAULT_IMAGE_LIMITS.maxBytes, signal: undefined, ...limits };
}

async function pixelsOf(block: { data: string }) {
  const meta = await sharp(Buffer.from(block.data, 'base64')).metadata();
  return { width: meta.width, height: meta.height, format: meta.format };
}

const resize = createImageResizer();

describe('image resize (sharp)', () => {
  it('fits a 4000x3000 PNG into 2000x2000, keeps PNG when it fits the bytes, and states the scale', async () => {
    const big = await image(4000, 3000, 'png');
    const [shown, note] = await resize(big, request(big, { maxBytes: 20 * 1024 * 1024 }));
    expect(shown).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(await pixelsOf(shown as ImageContent)).toEqual({ width: 2000, height: 1500, format: 'png' });
    expect(note).toEqual({
      type: 'text',
      text: "[Image resized to fit the image limits: original 4000x3000 px, shown at 2000x1500 (scale 0.5). Multiply coordinates in the shown image by 2 to get the original's.]",
    });
  });

  it('keeps a portrait JPEG’s aspect ratio and stays JPEG', async () => {
    const tall = await image(1200, 3000, 'jpeg');
    const [shown, note] = await resize(tall, request(tall));
    expect(await pixelsOf(shown as ImageContent)).toEqual({ width: 800, height: 2000, format: 'jpeg' });
    expect((shown as ImageContent).mimeType).toBe('image/jpeg');
    expect((note as { text: string }).text).toContain('scale 0.667');
    expect((note as { text: string }).text).toContain('by 1.5 to get');
  });

  it('an image within the pixels but over the byte limit is re-encoded first, then shrunk, until its base64 fits', async () => {
    const heavy = await image(600, 600, 'png');
    const maxBytes = 120 * 1024;
    const [shown, note] = await resize(heavy, request(heavy, { maxBytes }));
    const data = (shown as ImageContent).data;
    expect(data.length).toBeLessThanOrEqual(maxBytes);
    expect((shown as ImageContent).mimeType).toBe('image/jpeg');
    expect((note as { text: string }).text).toMatch(/re-encoded as JPEG at quality \d+/);
    const px = await pixelsOf(shown as ImageContent);
    expect(px.format).toBe('jpeg');
    expect(px.width).toBe(px.height);
  });

  it('says why when no size can fit the limit', async () => {
    const heavy = await image(200, 200, 'png');
    await expect(resize(heavy, request(heavy, { maxBytes: 200 }))).rejects.toThrow(/even at \d+x\d+ px it is over 200 bytes/);
  });

  it('applies EXIF orientation, so the shown image is upright', async () => {
    // Stored 400x100, EXIF orientation 6 (rotate 90° clockwise): upright it is 100x400.
    const data = await sharp(noise(400, 100), { raw: { width: 400, height: 100, channels: 3 } }).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const rotated: ImageContent = { type: 'image', data: data.toString('base64'), mimeType: 'image/jpeg' };
    const [shown, note] = await resize(rotated, request(rotated, { maxDimension: 200 }));
    expect(await pixelsOf(shown as ImageContent)).toMatchObject({ width: 50, height: 200 });
    expect((note as { text: string }).text).toContain('original 100x400 px, shown at 50x200');
  });

  it('a transparent PNG that must become JPEG gets a white background, not black', async () => {
    // Left half fully transparent, right half opaque noise: as PNG it stays big, so JPEG must be used.
    const rgba = noise(64, 64, 4);
    for (let i = 0; i < rgba.length; i += 4) rgba[i + 3] = (i / 4) % 64 < 32 ? 0 : 255;
    const png = await sharp(rgba, { raw: { width: 64, height: 64, channels: 4 } }).png().toBuffer();
    const input: ImageContent = { type: 'image', data: png.toString('base64'), mimeType: 'image/png' };
    const [shown] = await resize(input, request(input, { maxDimension: 32, maxBytes: 2000 }));
    expect((shown as ImageContent).mimeType).toBe('image/jpeg');
    expect(await pixelsOf(shown as ImageContent)).toMatchObject({ width: 32, height: 32 });
    const { data } = await sharp(Buffer.from((shown as ImageContent).data, 'base64')).raw().toBuffer({ resolveWithObject: true });
    // The first 8 columns (one JPEG block, away from the noisy half) of every row.
    const left = [...data].filter((_, i) => Math.floor(i / 3) % 32 < 8);
    expect(Math.min(...left)).toBeGreaterThan(200);
  });

  it('stops when the call is aborted', async () => {
    const big = await image(300, 300, 'png');
    await expect(resize(big, request(big, { maxDimension: 100, signal: AbortSignal.abort() }))).rejects.toThrow(/abort/i);
  });

  it('when the library cannot load, the error says what to do', async () => {
    const broken = createImageResizer({ load: () => Promise.reject(new Error('the image library sharp could not be loaded (x); reinstall dependencies, or set images.autoResize to false')) });
    const big = await image(40, 40, 'png');
    await expect(broken(big, request(big))).rejects.toThrow(/images.autoResize/);
  });
});
