import type { ImageContent } from '@airlock/contract';

/** The image formats the kernel passes to models. Anything else is not sent as an image. */
export type ImageMime = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

/**
 * Image formats models do not take but the host's resizer (sharp) decodes: the kernel hands
 * them to the resizer, which re-encodes them as PNG. Without a resizer they become a note.
 */
export type ConvertibleMime = 'image/tiff' | 'image/avif';

/** The largest image providers take: pixels per side, and bytes of base64 text. */
export interface ImageLimits {
  maxDimension: number;
  maxBytes: number;
}

/** Limits most providers share: Anthropic's many-image rule (2000 px) and its 5 MiB base64 cap, with headroom. */
export const DEFAULT_IMAGE_LIMITS: Readonly<ImageLimits> = Object.freeze({ maxDimension: 2000, maxBytes: Math.floor(4.5 * 1024 * 1024) });

/** Why an image was replaced by a text note. */
export type ImageNoteReason =
  /** The `images.blockImages` setting is on. */
  | 'blocked'
  /** The model has no image input. */
  | 'no-image-input'
  /** The data is not base64 of a PNG, JPEG, GIF or WebP image. */
  | 'not-an-image'
  /** The declared `mimeType` differs from what the bytes are. */
  | 'mime-mismatch'
  /** Over the pixel or byte limit, and no resizer could shrink it. */
  | 'over-limits'
  /** A format models do not take (TIFF, AVIF) and no resizer converted it. */
  | 'not-converted';

/** What the kernel can tell about an image cheaply, from its header alone. */
export interface ImageInfo {
  /** The `mimeType` the tool declared (not trusted). */
  declaredMime: string;
  /** What the magic bytes say; undefined when they match no supported format. */
  mime: ImageMime | undefined;
  /** Set when `mime` is undefined but the bytes are a format the resizer converts to PNG. */
  convertible?: ConvertibleMime;
  /** Decoded size in bytes, from the base64 length (approximate if the text holds line breaks). */
  bytes: number;
  /** Pixel size, when the header states it within the first bytes (see {@link imageDimensions}). */
  width?: number;
  height?: number;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] as const;

// Enough for every signature below: WebP needs "RIFF" + size + "WEBP".
const SNIFF_BYTES = 12;
// Enough for the PNG IHDR, GIF screen descriptor and every WebP variant's size fields.
const HEADER_BYTES = 30;
// JPEG states its size in the SOF segment, after APPn segments (EXIF, thumbnails). Past this we give up.
const JPEG_SCAN_BYTES = 128 * 1024;

/**
 * The image format of `bytes` by magic number, or undefined. Never trusts a file name or a
 * declared MIME type.
 *
 * @example
 * sniffImageMime(new Uint8Array([0xff, 0xd8, 0xff, 0xe0])); // "image/jpeg"
 */
export function sniffImageMime(bytes: Uint8Array): ImageMime | undefined {
  if (startsWith(bytes, PNG_SIGNATURE)) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWithAscii(bytes, 'GIF87a') || startsWithAscii(bytes, 'GIF89a')) return 'image/gif';
  if (startsWithAscii(bytes, 'RIFF') && startsWithAscii(bytes.subarray(8), 'WEBP')) return 'image/webp';
  return undefined;
}

/**
 * A format the host's resizer converts (TIFF, AVIF), by magic number, or undefined.
 *
 * @example sniffConvertibleMime(new Uint8Array([0x49, 0x49, 0x2a, 0x00])); // "image/tiff"
 */
export function sniffConvertibleMime(bytes: Uint8Array): ConvertibleMime | undefined {
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) return 'image/tiff';
  if (startsWithAscii(bytes.subarray(4), 'ftyp') && (startsWithAscii(bytes.subarray(8), 'avif') || startsWithAscii(bytes.subarray(8), 'avis'))) return 'image/avif';
  return undefined;
}

/**
 * {@link sniffImageMime} for base64 text. Decodes only the first 16 characters, so the cost does
 * not grow with the image. Returns undefined for malformed base64 in that prefix (including a
 * `data:` URL, which is not plain base64).
 *
 * @example
 * sniffBase64ImageMime('iVBORw0KGgoAAAANSUhEUg...'); // "image/png"
 */
export function sniffBase64ImageMime(base64: string): ImageMime | undefined {
  const prefix = decodeBase64Prefix(base64, SNIFF_BYTES);
  return prefix && sniffImageMime(prefix);
}

/**
 * Decode at most `maxBytes` bytes from the start of standard base64 (RFC 4648 §4; whitespace
 * skipped, as MIME line breaks are common). Reads only the characters needed. Returns undefined
 * when those characters are not valid base64; characters past them are not checked.
 *
 * @example
 * decodeBase64Prefix('R0lGODlhAQABAAAAACw=', 6); // bytes of "GIF89a"
 */
export function decodeBase64Prefix(base64: string, maxBytes: number): Uint8Array | undefined {
  const out = new Uint8Array(Math.max(0, maxBytes));
  let length = 0;
  let acc = 0;
  let bits = 0;
  let inQuad = 0; // characters seen in the current 4-character group
  let i = 0;
  for (; i < base64.length && length < out.length; i++) {
    const code = base64.charCodeAt(i);
    if (code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d) continue;
    if (code === 0x3d /* = */) {
      // Padding may only fill the last one or two places of a group.
      if (inQuad < 2) return undefined;
      return out.slice(0, length);
    }
    const value = code < 128 ? BASE64_VALUES[code] : -1;
    if (value === undefined || value < 0) return undefined;
    acc = ((acc << 6) | value) & 0xffff;
    bits += 6;
    inQuad = (inQuad + 1) & 3;
    if (bits >= 8) {
      bits -= 8;
      out[length++] = (acc >> bits) & 0xff;
    }
  }
  // Reaching the end with one character in a group: six bits cannot make a byte.
  if (i >= base64.length && inQuad === 1) return undefined;
  return out.slice(0, length);
}

/**
 * Decoded size of base64 text, from its length and padding alone (constant work). Interior
 * line breaks make it overestimate by their count times 3/4.
 */
export function base64ByteLength(base64: string): number {
  let end = base64.length;
  while (end > 0 && isBase64Space(base64.charCodeAt(end - 1))) end--;
  let padding = 0;
  while (padding < 2 && end > 0 && base64.charCodeAt(end - 1) === 0x3d) {
    end--;
    padding++;
  }
  return Math.floor((end * 3) / 4);
}

/**
 * Pixel size stated in an image header, or undefined when `bytes` ends before it (or the
 * header is malformed). PNG, GIF and WebP need the first 30 bytes; JPEG needs bytes up to its
 * SOF segment.
 *
 * @example
 * imageDimensions(pngHeaderBytes, 'image/png'); // { width: 800, height: 600 }
 */
export function imageDimensions(
  bytes: Uint8Array,
  mime: ImageMime,
): { width: number; height: number } | undefined {
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
  }
}

/**
 * Format, size and pixel size of an image, from its header only: decodes at most 30 bytes, or
 * for JPEG up to its SOF segment (capped at 128 KiB).
 *
 * @example
 * describeImage({ type: 'image', data: png, mimeType: 'image/jpeg' });
 * // { declaredMime: 'image/jpeg', mime: 'image/png', bytes: 2048, width: 32, height: 16 }
 */
export function describeImage(image: ImageContent): ImageInfo {
  const info: ImageInfo = {
    declaredMime: image.mimeType,
    mime: sniffBase64ImageMime(image.data),
    bytes: base64ByteLength(image.data),
  };
  if (info.mime === undefined) {
    const prefix = decodeBase64Prefix(image.data, SNIFF_BYTES);
    const convertible = prefix && sniffConvertibleMime(prefix);
    if (convertible) info.convertible = convertible;
    return info;
  }
  const header = decodeBase64Prefix(image.data, info.mime === 'image/jpeg' ? JPEG_SCAN_BYTES : HEADER_BYTES);
  const size = header && imageDimensions(header, info.mime);
  if (size) {
    info.width = size.width;
    info.height = size.height;
  }
  return info;
}

/**
 * What is wrong with an image's data, if anything: not a supported image, or a declared MIME
 * type that differs from the bytes. Settings and model capabilities are the caller's to check.
 *
 * @example
 * imageDataProblem(describeImage(image)); // "mime-mismatch" for a PNG declared as image/jpeg
 */
export function imageDataProblem(info: ImageInfo): 'not-an-image' | 'mime-mismatch' | undefined {
  if (info.mime === undefined) return 'not-an-image';
  if (info.declaredMime.trim().toLowerCase() !== info.mime) return 'mime-mismatch';
  return undefined;
}

/**
 * The text that stands in for an image the model will not see. It says why and what the image
 * was, so the model neither assumes it saw the picture nor retries blindly.
 *
 * @example
 * imageNote('no-image-input', image);
 * // "[Image omitted: the current model does not accept images. Original: PNG, 800x600, 41.3KB.]"
 */
export function imageNote(
  reason: ImageNoteReason,
  image: ImageContent | ImageInfo,
  over: { limits: ImageLimits; resizeError?: string } = { limits: DEFAULT_IMAGE_LIMITS },
): string {
  const info = 'type' in image ? describeImage(image) : image;
  switch (reason) {
    case 'over-limits': {
      const { maxDimension, maxBytes } = over.limits;
      const limits = `the image limits (${maxDimension}x${maxDimension} px, ${formatBytes(maxBytes)} of base64)`;
      return over.resizeError === undefined
        ? `[Image omitted: it is over ${limits} and resizing is off (setting images.autoResize). ${original(info)}.]`
        : `[Image omitted: it is over ${limits} and could not be resized: ${oneLine(over.resizeError)}. ${original(info)}.]`;
    }
    case 'blocked':
      return `[Image omitted: image input is turned off (setting images.blockImages). ${original(info)}.]`;
    case 'no-image-input':
      return `[Image omitted: the current model does not accept images. ${original(info)}.]`;
    case 'not-converted': {
      const name = info.convertible === 'image/tiff' ? 'TIFF' : 'AVIF';
      const why = over.resizeError === undefined ? 'the resizer that converts it is off (setting images.autoResize)' : `it could not be converted: ${oneLine(over.resizeError)}`;
      return `[Image omitted: models take no ${name} and ${why}. Convert it to PNG with another program (e.g. ImageMagick: convert in.${name.toLowerCase()} out.png) and read that. (${formatBytes(info.bytes)})]`;
    }
    case 'not-an-image':
      return (
        `[Image omitted: the data is not a PNG, JPEG, GIF or WebP image ` +
        `(${declared(info.declaredMime)}, ${formatBytes(info.bytes)}).]`
      );
    case 'mime-mismatch':
      return (
        `[Image omitted: ${declared(info.declaredMime)}, but the data is ` +
        `${info.mime ? `a ${FORMAT_NAMES[info.mime]} image` : 'not a supported image'}. ${original(info)}.]`
      );
  }
}

function original(info: ImageInfo): string {
  if (info.mime === undefined) {
    return `Original: unrecognised data, ${declared(info.declaredMime)}, ${formatBytes(info.bytes)}`;
  }
  const pixels = info.width !== undefined && info.height !== undefined ? `, ${info.width}x${info.height}` : '';
  return `Original: ${FORMAT_NAMES[info.mime]}${pixels}, ${formatBytes(info.bytes)}`;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}

function declared(mime: string): string {
  // A tool may declare anything: keep the note one short line the model cannot be steered by.
  const clean = mime.trim().replace(/\p{Cc}/gu, '?');
  if (clean === '') return 'declared with no MIME type';
  return `declared as ${clean.length > 40 ? `${clean.slice(0, 40)}…` : clean}`;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}

const FORMAT_NAMES: Record<ImageMime, string> = {
  'image/png': 'PNG',
  'image/jpeg': 'JPEG',
  'image/gif': 'GIF',
  'image/webp': 'WebP',
};

const BASE64_VALUES: readonly number[] = (() => {
  const table = new Array<number>(128).fill(-1);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < alphabet.length; i++) table[alphabet.charCodeAt(i)] = i;
  return table;
})();

function isBase64Space(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

function webpDimensions(bytes: Uint8Array): { width: number; height: number } | undefined {
  if (bytes.length < 16) return undefined;
  const chunk = String.fromCharCode(...bytes.subarray(12, 16));
  if (chunk === 'VP8X' && bytes.length >= 30) {
    return { width: 1 + u24le(bytes, 24), height: 1 + u24le(bytes, 27) };
  }
  if (chunk === 'VP8L' && bytes.length >= 25 && bytes[20] === 0x2f) {
    // 14 bits of width-1, then 14 bits of height-1, little-endian.
    const packed = u32le(bytes, 21);
    return { width: 1 + (packed & 0x3fff), height: 1 + ((packed >>> 14) & 0x3fff) };
  }
  if (chunk === 'VP8 ' && bytes.length >= 30 && bytes[23] === 0x9d && bytes[24] === 0x01 && bytes[25] === 0x2a) {
    // The top two bits of each field are a scaling hint, not part of the size.
    return { width: u16le(bytes, 26) & 0x3fff, height: u16le(bytes, 28) & 0x3fff };
  }
  return undefined;
}

function jpegDimensions(bytes: Uint8Array): { width: number; height: number } | undefined {
  let offset = 2; // after SOI
  while (offset + 4 <= bytes.length) {
    if (bytes[offset] !== 0xff) return undefined;
    const marker = bytes[offset + 1] as number;
    if (marker === 0xff) {
      offset++; // fill byte
      continue;
    }
    // Standalone markers carry no length.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      offset += 2;
      continue;
    }
    const length = u16be(bytes, offset + 2);
    if (length < 2) return undefined;
    // SOF0..SOF15, except DHT (C4), JPG (C8) and DAC (CC), which share the range.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (offset + 9 > bytes.length) return undefined;
      return { width: u16be(bytes, offset + 7), height: u16be(bytes, offset + 5) };
    }
    if (marker === 0xda || marker === 0xd9) return undefined; // scan data or end: no SOF before it
    offset += 2 + length;
  }
  return undefined;
}

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  if (bytes.length < prefix.length) return false;
  return prefix.every((byte, i) => bytes[i] === byte);
}

function startsWithAscii(bytes: Uint8Array, prefix: string): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix.charCodeAt(i)) return false;
  return true;
}

function byteAt(bytes: Uint8Array, i: number): number {
  return bytes[i] ?? 0;
}

function u16be(bytes: Uint8Array, i: number): number {
  return (byteAt(bytes, i) << 8) | byteAt(bytes, i + 1);
}

function u16le(bytes: Uint8Array, i: number): number {
  return byteAt(bytes, i) | (byteAt(bytes, i + 1) << 8);
}

function u24le(bytes: Uint8Array, i: number): number {
  return byteAt(bytes, i) | (byteAt(bytes, i + 1) << 8) | (byteAt(bytes, i + 2) << 16);
}

function u32le(bytes: Uint8Array, i: number): number {
  return (u24le(bytes, i) | (byteAt(bytes, i + 3) << 24)) >>> 0;
}

function u32be(bytes: Uint8Array, i: number): number {
  return ((byteAt(bytes, i) << 24) | (byteAt(bytes, i + 1) << 16) | u16be(bytes, i + 2)) >>> 0;
}
