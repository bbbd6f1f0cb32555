import { close as closeFd, read as readFd, type Stats } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { promisify } from 'node:util';
import Type, { type Static } from 'typebox';
import type { AgentTool, AgentToolResult, Content, Extension, Resource, ToolContext, TruncationLimits } from '@airlock/contract';
import { ChangedSinceJudgedError, DanglingLinkError, judgedFor, notRegularFileError, targetAt, openJudgedFile, openTargetSync, PathError, resolveExistingPath, type JudgedTarget } from '@airlock/tool-common';
import { describeFsError, isDirectory } from './errors.js';
import { appendNotice, formatSize, imageDimensions, lineTooLongNotice, moreLinesNotice, sniffConvertibleMime, sniffImageMime, type ConvertibleMime, type ImageMime } from '@airlock/toolkit/util';
import { showingNotice } from './format.js';
import { describeBinary } from './binary.js';
import { AbortError, selectLines, type PositionalReader } from './lines.js';
import { BmpError, decodeBmp, isBmp } from './bmp.js';
import { encodePng } from './png-encode.js';


/**
 * The read tool: a file's lines within the context limits, streamed (a head read of a 50 MB file
 * reads what it keeps), PNG/JPEG/GIF/WebP as image blocks, other binaries described, not dumped.
 */

export const ReadParams = Type.Object({
  path: Type.String({ description: 'Path of the file to read, relative to the working folder or absolute.' }),
  offset: Type.Optional(Type.Integer({ minimum: 1, description: 'Line number to start reading from (1-based).' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: 'Maximum number of lines to read.' })),
});
export type ReadParams = Static<typeof ReadParams>;

/** What a text read cut, for UIs and logs (never sent to the model). */
export interface ReadTruncation {
  truncatedBy: 'lines' | 'bytes';
  outputLines: number;
  outputBytes: number;
  /** Lines in the file; undefined when it was too large to count past the selection. */
  totalLines: number | undefined;
  /** File size in bytes. */
  totalBytes: number;
  firstLineExceedsLimit: boolean;
  maxLines: number;
  maxBytes: number;
}

/** What read attaches: the formats models take, and those the resizer converts to PNG (TIFF, AVIF). */
type FileImageMime = ImageMime | ConvertibleMime;

export interface ReadDetails {
  truncation?: ReadTruncation;
  /** The lines shown (end < start when none were), and of how many; total undefined: not counted. */
  lines?: { start: number; end: number; total: number | undefined };
  /** `convertedFrom`: the file's own format when read converted it (a BMP is attached as PNG). */
  image?: { mimeType: FileImageMime; bytes: number; width?: number; height?: number; attached: boolean; convertedFrom?: 'image/bmp' };
  binary?: { bytes: number };
}

export interface ReadToolOptions {
  /** For the description only; each call uses `ctx.limits`. Default 2,000 lines / 50 KiB. */
  limits?: Partial<TruncationLimits>;
  /**
   * Bytes past the selection the tool scans to count the file's lines for "of T". Beyond it the
   * notice names the file size instead, so a head read of a huge file stays O(kept). Default 8 MiB
   * (counting costs about 0.5 ms per MiB from the page cache).
   */
  countBudget?: number;
}

/**
 * Image files larger than this are described, not loaded. Smaller ones are attached whole and the
 * kernel fits them to the model's limits (the host's resizer, `images.autoResize`); a photo
 * straight from a camera is 5–30 MB, so the cap only stops absurd inputs from filling memory.
 */
export const MAX_IMAGE_FILE_BYTES = 64 * 1024 * 1024;
/** A NUL byte in this many first bytes marks a binary file. */
const BINARY_SNIFF = 8 * 1024;
/** Header bytes read to sniff the type: the binary check and every image header but JPEG's. */
const HEAD_BYTES = BINARY_SNIFF;
/** Files smaller than this are read in one read (the line selection's own chunk). */
const WHOLE_BYTES = 64 * 1024;
/** JPEG states its size in the SOF segment, which can sit after EXIF data and thumbnails. */
const JPEG_HEAD_BYTES = 128 * 1024;
const DEFAULT_COUNT_BUDGET = 8 * 1024 * 1024;

export function createReadTool(options: ReadToolOptions = {}): AgentTool<typeof ReadParams, ReadDetails | undefined> {
  const maxLines = options.limits?.maxLines ?? 2000;
  const maxBytes = options.limits?.maxBytes ?? 51200;
  const countBudget = options.countBudget ?? DEFAULT_COUNT_BUDGET;
  return {
    name: 'read',
    label: 'Read',
    description:
      `Read a file. Text comes back as it is, at most ${maxLines} lines or ${formatSize(maxBytes)} per call, ` +
      'whichever comes first; a notice at the end says which lines were shown and the offset to continue from. ' +
      'Use offset (1-based line) and limit (lines) to read part of a long file. ' +
      'PNG, JPEG, GIF and WebP images are returned as images; BMP, TIFF and AVIF images are converted to PNG; other binary files are described, not shown. ' +
      'Use ls for directories.',
    parameters: ReadParams,
    replay: 'safe',
    executionMode: 'parallel',
    prepareArguments(args) {
      // Models send offset 0 or null for "from the start" and null for "no limit".
      if (args === null || typeof args !== 'object') return args;
      const a = { ...(args as Record<string, unknown>) };
      if (a.offset === null || a.offset === 0) delete a.offset;
      if (a.limit === null) delete a.limit;
      return a;
    },
    resources(params, ctx) {
      let path: string;
      try {
        path = openTargetSync(params.path, ctx.cwd);
      } catch (error) {
        if (error instanceof PathError) return []; // execute fails before touching the disk
        throw error;
      }
      return [{ kind: 'fs.read', path, written: params.path } satisfies Resource];
    },
    async execute(_id, params, signal, _onUpdate, ctx) {
      if (signal?.aborted) throw new AbortError();
      const path = await resolveExistingPath(params.path, ctx.cwd);
      const shown = params.path;
      // The file the policy judged, opened without following a link put in its place, and
      // confirmed to be that file (see tool-common's openJudgedFile).
      const judged = judgedFor(ctx) ?? (await judgeNow(path));
      let opened: { fd: number; stats: Stats };
      try {
        opened = openJudgedFile(judged, shown);
      } catch (error) {
        if (error instanceof ChangedSinceJudgedError || error instanceof DanglingLinkError) throw error;
        throw new Error(await describeFsError(error, path, shown));
      }
      const { fd, stats: stat } = opened;
      try {
        if (stat.isDirectory()) throw new Error(isDirectory(shown));
        if (!stat.isFile()) throw notRegularFileError(shown, stat, 'the read tool reads regular files only');
        const result = await readOpen(descriptorReader(fd), path, stat.size, params, ctx, signal, countBudget);
        ctx.files.note(judged.path, { mtimeMs: stat.mtimeMs, size: stat.size });
        return result;
      } catch (error) {
        if (error instanceof Error && !(error as NodeJS.ErrnoException).code) throw error;
        throw new Error(await describeFsError(error, path, shown));
      } finally {
        await closeAsync(fd);
      }
    },
  };
}

const readAsync = promisify(readFd);
const closeAsync = promisify(closeFd);

/** Reads at positions through a descriptor (a FileHandle cannot be made from one). */
function descriptorReader(fd: number): PositionalReader {
  return { read: (buffer, offset, length, position) => readAsync(fd, buffer, offset, length, position) };
}

/** Positional reads of a file already read whole: a read at or past its end gets nothing. */
function memoryReader(bytes: Buffer): PositionalReader {
  return {
    read: async (buffer, offset, length, position) => ({ bytesRead: position >= bytes.length ? 0 : bytes.copy(buffer, offset, position, Math.min(bytes.length, position + length)) }),
  };
}

/** Outside a kernel nothing was judged: hold the open to the file the path leads to now. */
async function judgeNow(path: string): Promise<JudgedTarget> {
  return targetAt(await realpath(path).catch(() => path));
}

async function readOpen(
  fh: PositionalReader,
  path: string,
  size: number,
  params: ReadParams,
  ctx: ToolContext,
  signal: AbortSignal | undefined,
  countBudget: number,
): Promise<AgentToolResult<ReadDetails | undefined>> {
  // A small file is read whole, one byte more than its size: a short read says it ended there,
  // and its lines are then selected from memory (one read instead of three).
  const whole = size < WHOLE_BYTES;
  const head = Buffer.allocUnsafe(whole ? size + 1 : HEAD_BYTES);
  const { bytesRead } = await fh.read(head, 0, head.length, 0);
  const bytes = head.subarray(0, bytesRead);
  if (whole && bytesRead < head.length) fh = memoryReader(bytes);
  const mime = sniffImageMime(bytes) ?? sniffConvertibleMime(bytes);
  if (mime) return readImage(fh, size, mime, bytes, ctx);
  if (isBmp(bytes)) return readBmp(fh, size, params.path, ctx);
  const sniff = bytes.subarray(0, BINARY_SNIFF);
  if (sniff.includes(0)) {
    const kind = describeBinary(bytes);
    const text = `Binary file, not shown: ${params.path} (${formatSize(size)}${kind ? `, ${kind}` : ''}). Inspect it with bash if needed (e.g. file, xxd | head).`;
    return { content: [{ type: 'text', text }], details: { binary: { bytes: size } } };
  }

  const offset = params.offset ?? 1;
  const { maxLines, maxBytes } = ctx.limits;
  const sel = await selectLines(fh, { offset, limit: params.limit, maxLines, maxBytes, countBudget, size, signal });
  const total = sel.totalLines;
  if (sel.offsetBeyondEnd) {
    const lines = total === 0 ? 'the file is empty' : `${total} ${total === 1 ? 'line' : 'lines'}`;
    throw new Error(`Offset ${offset} is beyond the end of the file (${lines}).`);
  }
  const end = offset + sel.outputLines - 1;
  const lines = { start: offset, end, total };
  const truncation = (by: 'lines' | 'bytes'): ReadTruncation => ({
    truncatedBy: by,
    outputLines: sel.outputLines,
    outputBytes: sel.outputBytes,
    totalLines: total,
    totalBytes: size,
    firstLineExceedsLimit: sel.stoppedBy === 'first-line-too-long',
    maxLines,
    maxBytes,
  });
  switch (sel.stoppedBy) {
    case null:
      return {
        content: [{ type: 'text', text: sel.text }],
        details: offset === 1 && params.limit === undefined ? undefined : { lines },
      };
    case 'first-line-too-long':
      return {
        content: [{ type: 'text', text: lineTooLongNotice(offset, maxBytes, { lineBytes: sel.firstLineBytes ?? 0, sourcePath: path }) }],
        details: { truncation: truncation('bytes'), lines },
        limited: true,
      };
    case 'limit': {
      const notice = moreLinesNotice(total === undefined ? undefined : total - end, end + 1);
      // The kept lines fill the limits at most; the notice rides on top (the kernel's notice room).
      return { content: [{ type: 'text', text: appendNotice(sel.text, notice) }], details: { lines }, limited: true };
    }
    case 'lines':
    case 'bytes': {
      const notice = showingNotice(offset, end, total, size, sel.stoppedBy === 'bytes' ? maxBytes : undefined);
      return {
        content: [{ type: 'text', text: appendNotice(sel.text, notice) }],
        details: { truncation: truncation(sel.stoppedBy), lines },
        limited: true,
      };
    }
  }
}

async function readImage(
  fh: PositionalReader,
  size: number,
  mime: FileImageMime,
  head: Buffer,
  ctx: ToolContext,
): Promise<AgentToolResult<ReadDetails | undefined>> {
  // TIFF and AVIF state their size deep in the file; the resizer reads it when converting.
  let dims = mime === 'image/tiff' || mime === 'image/avif' ? undefined : imageDimensions(head, mime);
  if (!dims && mime === 'image/jpeg' && size > head.length) {
    const more = Buffer.allocUnsafe(Math.min(size, JPEG_HEAD_BYTES));
    const { bytesRead } = await fh.read(more, 0, more.length, 0);
    dims = imageDimensions(more.subarray(0, bytesRead), mime);
  }
  const pixels = dims ? `, ${dims.width}x${dims.height}` : '';
  const label = `Read image file [${mime}${pixels}, ${formatSize(size)}]`;
  const image: NonNullable<ReadDetails['image']> = { mimeType: mime, bytes: size, attached: false, ...(dims ?? {}) };
  let why: string | undefined;
  if (!ctx.imageInput) {
    why = '[Image not attached: the current model does not accept images.]';
  } else if (size > MAX_IMAGE_FILE_BYTES) {
    why = `[Image not attached: at ${formatSize(size)} it is over the ${formatSize(MAX_IMAGE_FILE_BYTES)} an image file may have to be loaded. Make a smaller copy (for example with ImageMagick: convert in.png -resize 2000x2000 out.png) and read that.]`;
  }
  if (why) return { content: [{ type: 'text', text: `${label}\n${why}` }], details: { image } };
  const data = await readWhole(fh, size);
  const content: Content[] = [
    { type: 'text', text: label },
    { type: 'image', data: data.toString('base64'), mimeType: mime },
  ];
  return { content, details: { image: { ...image, attached: true } } };
}

/**
 * A BMP file, converted to PNG and attached (models take no BMP). A BMP read cannot decode
 * (RLE, a broken header) is described like any binary file, with the reason.
 */
async function readBmp(fh: PositionalReader, size: number, shown: string, ctx: ToolContext): Promise<AgentToolResult<ReadDetails | undefined>> {
  const label = (extra: string) => `Read image file [image/bmp${extra}, ${formatSize(size)}]`;
  if (!ctx.imageInput) {
    return { content: [{ type: 'text', text: `${label('')}\n[Image not attached: the current model does not accept images.]` }], details: { binary: { bytes: size } } };
  }
  if (size > MAX_IMAGE_FILE_BYTES) {
    const text = `${label('')}\n[Image not attached: at ${formatSize(size)} it is over the ${formatSize(MAX_IMAGE_FILE_BYTES)} an image file may have to be loaded. Make a smaller PNG copy (for example with ImageMagick: convert in.bmp -resize 2000x2000 out.png) and read that.]`;
    return { content: [{ type: 'text', text }], details: { binary: { bytes: size } } };
  }
  const data = await readWhole(fh, size);
  let png: Buffer;
  let width: number;
  let height: number;
  try {
    const decoded = decodeBmp(data);
    ({ width, height } = decoded);
    png = encodePng(decoded);
  } catch (error) {
    if (!(error instanceof BmpError)) throw error;
    const text = `Binary file, not shown: ${shown} (${formatSize(size)}, a BMP image read cannot convert: ${error.message}). Convert it to PNG with another program (e.g. ImageMagick: convert in.bmp out.png) and read that.`;
    return { content: [{ type: 'text', text }], details: { binary: { bytes: size } } };
  }
  const content: Content[] = [
    { type: 'text', text: `${label(`, ${width}x${height}`)}, converted to PNG` },
    { type: 'image', data: png.toString('base64'), mimeType: 'image/png' },
  ];
  return { content, details: { image: { mimeType: 'image/png', bytes: png.length, width, height, attached: true, convertedFrom: 'image/bmp' } } };
}

const Options = Type.Object({});

/** The settings it reads: how much of a file one read returns. */
const Settings = Type.Object({ limits: Type.Object({ maxLines: Type.Integer({ minimum: 1 }), maxBytes: Type.Integer({ minimum: 1 }) }) });

const extension = {
  name: 'tool-read',
  options: Options,
  settings: Settings,
  setup(api) {
    api.registerTool(createReadTool({ limits: api.settings.limits }));
  },
} satisfies Extension<typeof Options, typeof Settings>;

export default extension;

/** The first `size` bytes of an open file (fewer if it is shorter now than when it was measured). */
async function readWhole(fh: PositionalReader, size: number): Promise<Buffer> {
  const data = Buffer.allocUnsafe(size);
  let got = 0;
  while (got < size) {
    const { bytesRead } = await fh.read(data, got, size - got, got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return data.subarray(0, got);
}
