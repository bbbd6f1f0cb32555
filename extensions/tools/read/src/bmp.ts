/**
 * Windows bitmaps (BMP) decoded to RGBA pixels, so read can attach them as PNG (models take PNG,
 * JPEG, GIF and WebP only, and the repo's image library, sharp, does not read BMP).
 *
 * Covers what tools and screenshots write: the OS/2 core header and the Windows info headers
 * (v1–v5), 1/4/8-bit palettes, 16/24/32-bit pixels with default or BI_BITFIELDS masks, bottom-up
 * and top-down rows. RLE-compressed and embedded JPEG/PNG bitmaps are reported as unsupported.
 */

/** Pixels kept in memory at most (4 bytes each): a 100-megapixel BMP is not a screenshot. */
export const MAX_BMP_PIXELS = 50_000_000;

export interface RgbaImage {
  width: number;
  height: number;
  /** width × height × 4 bytes, rows top to bottom. */
  rgba: Uint8Array;
  /** Every pixel is fully opaque. */
  opaque: boolean;
}

export class BmpError extends Error {
  override readonly name = 'BmpError';
}

/** Does `bytes` start like a BMP file ("BM" and a known header size)? */
export function isBmp(bytes: Uint8Array): boolean {
  if (bytes.length < 26 || bytes[0] !== 0x42 || bytes[1] !== 0x4d) return false;
  const header = u32(bytes, 14);
  return header === 12 || header === 40 || header === 52 || header === 56 || header === 108 || header === 124;
}

/**
 * Decode a whole BMP file. Throws BmpError saying what is wrong or unsupported.
 *
 * @example decodeBmp(readFileSync('shot.bmp')) // { width: 800, height: 600, rgba: Uint8Array(1920000), opaque: true }
 */
export function decodeBmp(bytes: Uint8Array): RgbaImage {
  if (!isBmp(bytes)) throw new BmpError('not a BMP file');
  const headerSize = u32(bytes, 14);
  const core = headerSize === 12;
  need(bytes, 14 + headerSize);
  const width = core ? u16(bytes, 18) : i32(bytes, 18);
  const rawHeight = core ? u16(bytes, 20) : i32(bytes, 22);
  const bpp = core ? u16(bytes, 24) : u16(bytes, 28);
  const compression = core ? 0 : u32(bytes, 30);
  const topDown = rawHeight < 0;
  const height = Math.abs(rawHeight);
  if (width <= 0 || height <= 0) throw new BmpError(`its size ${width}x${rawHeight} is not a picture`);
  if (width * height > MAX_BMP_PIXELS) throw new BmpError(`at ${width}x${height} pixels it is over the ${MAX_BMP_PIXELS.toLocaleString('en-US')} pixels read converts`);
  if (compression === 1 || compression === 2) throw new BmpError('it is RLE-compressed, which read does not decode');
  if (compression === 4 || compression === 5) throw new BmpError('it wraps a JPEG or PNG, which read does not unwrap');
  if (compression !== 0 && compression !== 3 && compression !== 6) throw new BmpError(`its compression (${compression}) is unknown`);
  if (![1, 4, 8, 16, 24, 32].includes(bpp)) throw new BmpError(`its ${bpp} bits per pixel are not a BMP depth`);

  const dataOffset = u32(bytes, 10);
  const stride = Math.floor((bpp * width + 31) / 32) * 4;
  need(bytes, dataOffset + stride * (height - 1) + Math.ceil((bpp * width) / 8));

  let palette: Uint8Array | undefined;
  if (bpp <= 8) {
    const entry = core ? 3 : 4;
    const used = core ? 0 : u32(bytes, 46);
    const count = used > 0 && used <= 1 << bpp ? used : 1 << bpp;
    const start = 14 + headerSize;
    palette = new Uint8Array(256 * 3);
    for (let i = 0; i < count && start + i * entry + 2 < bytes.length; i++) {
      palette[i * 3] = bytes[start + i * entry + 2]!;
      palette[i * 3 + 1] = bytes[start + i * entry + 1]!;
      palette[i * 3 + 2] = bytes[start + i * entry]!;
    }
  }
  const masks = bpp === 16 || bpp === 32 ? channelMasks(bytes, headerSize, bpp, compression) : undefined;

  const rgba = new Uint8Array(width * height * 4);
  let opaque = true;
  for (let y = 0; y < height; y++) {
    const row = dataOffset + (topDown ? y : height - 1 - y) * stride;
    let out = y * width * 4;
    for (let x = 0; x < width; x++, out += 4) {
      let r: number, g: number, b: number, a = 255;
      if (palette !== undefined) {
        const bit = x * bpp;
        const byte = bytes[row + (bit >> 3)]!;
        const index = (byte >> (8 - bpp - (bit & 7))) & ((1 << bpp) - 1);
        r = palette[index * 3]!;
        g = palette[index * 3 + 1]!;
        b = palette[index * 3 + 2]!;
      } else if (bpp === 24) {
        const p = row + x * 3;
        b = bytes[p]!;
        g = bytes[p + 1]!;
        r = bytes[p + 2]!;
      } else {
        const p = row + (x * bpp) / 8;
        const value = bpp === 16 ? u16(bytes, p) : u32(bytes, p);
        r = masks!.r(value);
        g = masks!.g(value);
        b = masks!.b(value);
        if (masks!.a !== undefined) a = masks!.a(value);
      }
      rgba[out] = r;
      rgba[out + 1] = g;
      rgba[out + 2] = b;
      rgba[out + 3] = a;
      if (a !== 255) opaque = false;
    }
  }
  return { width, height, rgba, opaque };
}

type Channel = (value: number) => number;

function channelMasks(bytes: Uint8Array, headerSize: number, bpp: number, compression: number): { r: Channel; g: Channel; b: Channel; a?: Channel } {
  if (compression === 3 || compression === 6) {
    // Masks sit right after a 40-byte header, or inside a v2+ header at the same place.
    need(bytes, 14 + 40 + 12);
    const alpha = compression === 6 || headerSize >= 56 ? u32(bytes, 66) : 0;
    const a = alpha !== 0 && 14 + 40 + 16 <= bytes.length ? channel(alpha) : undefined;
    return { r: channel(u32(bytes, 54)), g: channel(u32(bytes, 58)), b: channel(u32(bytes, 62)), ...(a === undefined ? {} : { a }) };
  }
  // BI_RGB: 5-5-5 for 16 bits; B, G, R and an unused byte for 32 bits (that byte is not alpha).
  return bpp === 16 ? { r: channel(0x7c00), g: channel(0x03e0), b: channel(0x001f) } : { r: channel(0xff0000), g: channel(0xff00), b: channel(0xff) };
}

/** A mask's bits as a 0–255 value. */
function channel(mask: number): Channel {
  if (mask === 0) return () => 0;
  let shift = 0;
  while (((mask >>> shift) & 1) === 0) shift++;
  const max = mask >>> shift;
  return (value) => Math.round((((value & mask) >>> shift) * 255) / max);
}

function need(bytes: Uint8Array, length: number): void {
  if (bytes.length < length) throw new BmpError(`the file ends early (${bytes.length} bytes, its header promises at least ${length})`);
}

function u16(b: Uint8Array, i: number): number {
  return b[i]! | (b[i + 1]! << 8);
}
function u32(b: Uint8Array, i: number): number {
  return (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;
}
function i32(b: Uint8Array, i: number): number {
  return b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24);
}
