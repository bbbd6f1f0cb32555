/**
 * Image detection by magic bytes, and pixel size from the header. A local copy of the kernel's
 * header parsing (packages/kernel/src/output/images.ts): extensions take no runtime kernel import.
 */

/** The last two are attached as they are and converted to PNG by the kernel's image step (the host's sharp). */
export type ImageMime = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp' | 'image/tiff' | 'image/avif';

/** The image format of `bytes` by magic number, or undefined. Never trusts a file name. */
export function sniffImageMime(bytes: Uint8Array): ImageMime | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWithAscii(bytes, 'GIF87a') || startsWithAscii(bytes, 'GIF89a')) return 'image/gif';
  if (startsWithAscii(bytes, 'RIFF') && startsWithAscii(bytes.subarray(8), 'WEBP')) return 'image/webp';
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) return 'image/tiff';
  if (startsWithAscii(bytes.subarray(4), 'ftyp') && (startsWithAscii(bytes.subarray(8), 'avif') || startsWithAscii(bytes.subarray(8), 'avis'))) return 'image/avif';
  return undefined;
}

/** Pixel size stated in the header, or undefined when `bytes` ends before it or it is malformed. */
export function imageDimensions(bytes: Uint8Array, mime: ImageMime): { width: number; height: number } | undefined {
  switch (mime) {
    case 'image/png':
      if (bytes.length < 24 || !startsWithAscii(bytes.subarray(12), 'IHDR')) return undefined;
      return { width: u32be(bytes, 16), height: u32be(bytes, 20) };
    case 'image/gif':
      if (bytes.length < 10) return undefined;
      return { width: u16le(bytes, 6), height: u16le(bytes, 8) };
    case 'image/webp':
      return webpDimensions(bytes);
    case 'image/jpeg':
      return jpegDimensions(bytes);
    case 'image/tiff':
    case 'image/avif':
      // Stated deep in the file (IFD entries, boxes); the image step reads it when converting.
      return undefined;
  }
}

/** Some common binary formats by magic bytes, for a more useful "binary file" description. */
export function describeBinary(bytes: Uint8Array): string | undefined {
  if (startsWithAscii(bytes, '\x7fELF')) return 'ELF executable or library';
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) return 'ZIP archive (or a format built on it: jar, docx, xlsx…)';
  if (startsWith(bytes, [0x1f, 0x8b])) return 'gzip data';
  if (startsWithAscii(bytes, '%PDF-')) return 'PDF document';
  if (startsWithAscii(bytes, 'SQLite format 3\0')) return 'SQLite database';
  if (startsWith(bytes, [0x00, 0x61, 0x73, 0x6d])) return 'WebAssembly module';
  if (startsWith(bytes, [0xcf, 0xfa, 0xed, 0xfe]) || startsWith(bytes, [0xca, 0xfe, 0xba, 0xbe])) return 'Mach-O binary';
  return undefined;
}

function webpDimensions(bytes: Uint8Array): { width: number; height: number } | undefined {
  if (bytes.length < 16) return undefined;
  const chunk = String.fromCharCode(...bytes.subarray(12, 16));
  if (chunk === 'VP8X' && bytes.length >= 30) return { width: 1 + u24le(bytes, 24), height: 1 + u24le(bytes, 27) };
  if (chunk === 'VP8L' && bytes.length >= 25 && bytes[20] === 0x2f) {
    const packed = u32le(bytes, 21);
    return { width: 1 + (packed & 0x3fff), height: 1 + ((packed >>> 14) & 0x3fff) };
  }
  if (chunk === 'VP8 ' && bytes.length >= 30 && bytes[23] === 0x9d && bytes[24] === 0x01 && bytes[25] === 0x2a) {
    return { width: u16le(bytes, 26) & 0x3fff, height: u16le(bytes, 28) & 0x3fff };
  }
  return undefined;
}

function jpegDimensions(bytes: Uint8Array): { width: number; height: number } | undefined {
  let offset = 2;
  while (offset + 4 <= bytes.length) {
    if (bytes[offset] !== 0xff) return undefined;
    const marker = bytes[offset + 1] as number;
    if (marker === 0xff) {
      offset++;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      offset += 2;
      continue;
    }
    const length = u16be(bytes, offset + 2);
    if (length < 2) return undefined;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (offset + 9 > bytes.length) return undefined;
      return { width: u16be(bytes, offset + 7), height: u16be(bytes, offset + 5) };
    }
    if (marker === 0xda || marker === 0xd9) return undefined;
    offset += 2 + length;
  }
  return undefined;
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((b, i) => bytes[i] === b);
}

function startsWithAscii(bytes: Uint8Array, prefix: string): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix.charCodeAt(i)) return false;
  return true;
}

const at = (b: Uint8Array, i: number): number => b[i] ?? 0;
const u16be = (b: Uint8Array, i: number): number => (at(b, i) << 8) | at(b, i + 1);
const u16le = (b: Uint8Array, i: number): number => at(b, i) | (at(b, i + 1) << 8);
const u24le = (b: Uint8Array, i: number): number => at(b, i) | (at(b, i + 1) << 8) | (at(b, i + 2) << 16);
const u32le = (b: Uint8Array, i: number): number => (u24le(b, i) | (at(b, i + 3) << 24)) >>> 0;
const u32be = (b: Uint8Array, i: number): number => ((at(b, i) << 24) | (at(b, i + 1) << 16) | u16be(b, i + 2)) >>> 0;
