/**
 * The host's image resizer (`images.autoResize`), built on sharp (libvips, prebuilt for each
 * platform as an npm package, so nothing is downloaded at install or run time).
 *
 * The kernel calls it only for an image over the pixel or byte limit. It shrinks the image to fit
 * within `maxDimension` a side (keeping the aspect ratio), then re-encodes until the base64 text
 * fits `maxBytes`: the original format first (PNG stays lossless for screenshots), then JPEG at
 * falling quality, then a smaller scale. A note with the scale factor follows the image, so the
 * model can map coordinates it reads in the small image back to the original.
 */
import type { Content, ImageContent } from '@airlock/contract';
import type { ImageResizer, ResizeRequest } from '@airlock/kernel';
import type { Sharp, SharpOptions } from 'sharp';

type SharpFactory = (input: Buffer, options?: SharpOptions) => Sharp;

/** JPEG qualities tried in turn at each scale; below 40 text in screenshots stops being legible. */
const JPEG_QUALITIES = [85, 70, 55, 40] as const;
/** Each further attempt shrinks by this factor once re-encoding alone no longer fits. */
const SHRINK_STEP = 0.75;
/** Past this the image says nothing useful; give up with an error instead. */
const MIN_SIDE = 16;

let sharpModule: Promise<SharpFactory> | undefined;

/** sharp is imported on first use: its native library costs ~80 ms to load, and most runs see no large image. */
function loadSharp(): Promise<SharpFactory> {
  sharpModule ??= import('sharp').then(
    (module) => {
      const sharp = module.default;
      // libvips keeps recent operations cached (up to 50 MB); a tool result is resized once, so the cache only holds memory.
      sharp.cache(false);
      return sharp;
    },
    (error: unknown) => {
      sharpModule = undefined;
      throw new Error(
        `the image library sharp could not be loaded (${error instanceof Error ? error.message : String(error)}); ` +
          'reinstall dependencies, or set images.autoResize to false',
      );
    },
  );
  return sharpModule;
}

interface Encoded {
  data: Buffer;
  mimeType: 'image/png' | 'image/jpeg';
  width: number;
  height: number;
  quality?: number;
}

/**
 * A resizer for `createKernel({ images: { resize } })`.
 *
 * @example
 * const kernel = createKernel({ images: { resize: createImageResizer() } });
 */
export function createImageResizer(options: { load?: () => Promise<SharpFactory> } = {}): ImageResizer {
  const load = options.load ?? loadSharp;
  return async (image: ImageContent, request: ResizeRequest): Promise<Content[]> => {
    const sharp = await load();
    const input = Buffer.from(image.data, 'base64');
    // Animated GIF/WebP: the first frame is what a model can use; orientation from EXIF is applied so "up" is up.
    const meta = await sharp(input, { animated: false }).autoOrient().metadata();
    const width = meta.autoOrient?.width ?? meta.width;
    const height = meta.autoOrient?.height ?? meta.height;
    if (!width || !height) throw new Error('the image has no pixel size');

    const fitted = await fit(sharp, input, { width, height, lossless: image.mimeType !== 'image/jpeg' }, request);
    const note = resizeNote({ width, height }, fitted, image.mimeType);
    return [
      { type: 'image', data: fitted.data.toString('base64'), mimeType: fitted.mimeType },
      { type: 'text', text: note },
    ];
  };
}

async function fit(
  sharp: SharpFactory,
  input: Buffer,
  source: { width: number; height: number; lossless: boolean },
  request: ResizeRequest,
): Promise<Encoded> {
  let scale = Math.min(1, request.maxDimension / source.width, request.maxDimension / source.height);
  for (;;) {
    const width = Math.max(1, Math.round(source.width * scale));
    const height = Math.max(1, Math.round(source.height * scale));
    if (Math.min(width, height) < MIN_SIDE && scale < 1) {
      throw new Error(`even at ${width}x${height} px it is over ${request.maxBytes} bytes of base64`);
    }
    const fromInput = () => sharp(input, { animated: false }).autoOrient().resize(width, height, { fit: 'fill' });
    // The first encoding goes straight from the file, so libvips can shrink a JPEG while decoding
    // it (the common case ends here). Later ones reuse one decoded, resized copy.
    let pixels: (() => Sharp) | undefined;
    const next = async (): Promise<Sharp> => {
      if (pixels === undefined) {
        pixels = fromInput;
        return fromInput();
      }
      if (pixels === fromInput) {
        const decoded = await fromInput().raw().toBuffer({ resolveWithObject: true });
        pixels = () => sharp(decoded.data, { raw: decoded.info });
      }
      return pixels();
    };

    if (source.lossless) {
      request.signal?.throwIfAborted();
      const data = await (await next()).png().toBuffer();
      if (base64Length(data) <= request.maxBytes) return { data, mimeType: 'image/png', width, height };
    }
    for (const quality of JPEG_QUALITIES) {
      request.signal?.throwIfAborted();
      // JPEG has no alpha: transparent areas become white, as most viewers show them.
      const data = await (await next()).flatten({ background: '#ffffff' }).jpeg({ quality }).toBuffer();
      if (base64Length(data) <= request.maxBytes) return { data, mimeType: 'image/jpeg', width, height, quality };
    }
    scale *= SHRINK_STEP;
  }
}

function base64Length(data: Buffer): number {
  return 4 * Math.ceil(data.length / 3);
}

/**
 * The note that follows a resized image.
 *
 * @example
 * resizeNote({ width: 4000, height: 3000 }, { width: 2000, height: 1500, mimeType: 'image/png' }, 'image/png');
 * // "[Image resized to fit the image limits: original 4000x3000 px, shown at 2000x1500 (scale 0.5). Multiply
 * //  coordinates in the shown image by 2 to get the original's.]"
 */
export function resizeNote(
  original: { width: number; height: number },
  shown: Pick<Encoded, 'width' | 'height' | 'mimeType' | 'quality'>,
  originalMime: string,
): string {
  const factor = original.width / shown.width;
  const parts = [`original ${original.width}x${original.height} px, shown at ${shown.width}x${shown.height}`];
  if (shown.width !== original.width || shown.height !== original.height) parts[0] += ` (scale ${round(1 / factor)})`;
  if (shown.mimeType !== originalMime || shown.quality !== undefined) {
    parts.push(shown.quality === undefined ? `re-encoded as ${label(shown.mimeType)}` : `re-encoded as JPEG at quality ${shown.quality}`);
  }
  const scaled = shown.width !== original.width || shown.height !== original.height;
  // A format models do not take (TIFF, AVIF) that fits as it is was only converted.
  if (!scaled && (originalMime === 'image/tiff' || originalMime === 'image/avif') && shown.quality === undefined) {
    return `[Image converted from ${label(originalMime)} to ${label(shown.mimeType)}: ${original.width}x${original.height} px.]`;
  }
  const mapping = scaled ? ` Multiply coordinates in the shown image by ${round(factor)} to get the original's.` : '';
  return `[Image resized to fit the image limits: ${parts.join(', ')}.${mapping}]`;
}

const LABELS: Record<string, string> = { 'image/png': 'PNG', 'image/jpeg': 'JPEG', 'image/tiff': 'TIFF', 'image/avif': 'AVIF', 'image/gif': 'GIF', 'image/webp': 'WebP' };

function label(mime: string): string {
  return LABELS[mime] ?? mime;
}

function round(value: number): string {
  return String(Math.round(value * 1000) / 1000);
}
