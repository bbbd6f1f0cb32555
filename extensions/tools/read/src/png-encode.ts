import { deflateSync } from 'node:zlib';
import type { RgbaImage } from './bmp.js';

/**
 * A lossless PNG of decoded pixels: RGB when every pixel is opaque, else RGBA; 8 bits a channel,
 * no filters (screenshots compress well enough through deflate alone).
 *
 * @example encodePng({ width: 1, height: 1, rgba: new Uint8Array([255, 0, 0, 255]), opaque: true }) // a 1x1 red PNG
 */
export function encodePng(image: RgbaImage): Buffer {
  const { width, height, rgba, opaque } = image;
  const channels = opaque ? 3 : 4;
  const rowBytes = width * channels + 1;
  const raw = Buffer.allocUnsafe(rowBytes * height);
  for (let y = 0; y < height; y++) {
    let out = y * rowBytes;
    raw[out++] = 0; // filter: none
    let p = y * width * 4;
    for (let x = 0; x < width; x++, p += 4) {
      raw[out++] = rgba[p]!;
      raw[out++] = rgba[p + 1]!;
      raw[out++] = rgba[p + 2]!;
      if (!opaque) raw[out++] = rgba[p + 3]!;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = opaque ? 2 : 6;
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.allocUnsafe(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'ascii');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
