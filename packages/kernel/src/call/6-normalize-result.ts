import type { Content, ImageContent, TextContent } from '@airlock/contract';
import type { SpillInfo, SpillOptions, TruncationLimits } from '@airlock/contract';
import { describeImage, imageDataProblem, imageNote, type ImageInfo } from '@airlock/toolkit';
import { countLines, formatSize, NOTICE_ROOM, truncateHead, utf8ByteLength } from '@airlock/toolkit';
import { deepFreeze } from '@airlock/toolkit/util';
import { errorMessage } from '@airlock/toolkit/util';
import type { CallState } from '../state/call-state.js';

/**
 * Stage 6: make any tool's result safe to put in front of the model.
 *
 * - Images are checked by their bytes (a wrong MIME type is corrected, non-images become a note),
 *   dropped for a model without image input or when `images.blockImages` is on. An image over the
 *   pixel or byte limit goes to the host's resizer; with none, it becomes a note (a provider
 *   would reject the whole request otherwise).
 * - Text over the limits is cut (head, whole lines) and the full text spilled to the session's
 *   spill folder, so a careless third-party tool cannot flood the context. A tool that limited its
 *   own output (`limited: true`, or its `ctx.truncate` cut something) keeps its own notice: its
 *   text may exceed the limits by NOTICE_ROOM before the backstop cuts it.
 * - An empty result becomes "(no output)", so the model never has to guess.
 */
export interface ImagePolicy {
  /** `images.blockImages`: replace every image with a note. */
  block: boolean;
  /** The model accepts image input. */
  imageInput: boolean;
  /** Largest width and height in pixels an image may have (default 2000). */
  maxDimension: number;
  /** Largest base64 text of one image, in bytes (default 4.5 MiB; Anthropic rejects over 5 MiB). */
  maxBytes: number;
  /**
   * The host's resizer (the kernel ships none; the host brings a library for it). Called
   * only for images over a limit, or whose size the header does not tell. Returns the blocks
   * that replace the image: usually the smaller image and a note with the scale factor.
   */
  resize?: ImageResizer;
}

/** What a resizer is asked to do: fit `image` within both limits. */
export interface ResizeRequest {
  info: ImageInfo;
  maxDimension: number;
  maxBytes: number;
  signal: AbortSignal | undefined;
}

export type ImageResizer = (image: ImageContent, request: ResizeRequest) => Promise<Content[]>;


export interface NormalizeOptions {
  limits: TruncationLimits;
  images: ImagePolicy;
  spill: (text: string, options: SpillOptions) => Promise<SpillInfo>;
}

/** Cheap check for the common case: small text, no images, not empty. */
export function needsNormalizing(state: CallState, limits: TruncationLimits): boolean {
  const content = state.result!.content;
  if (content.length === 0) return true;
  let chars = 0;
  let blank = true;
  for (const block of content) {
    if (block.type !== 'text') return true;
    chars += block.text.length;
    if (blank && block.text.trim() !== '') blank = false;
  }
  return blank || chars > Math.min(limits.maxBytes / 3, limits.maxLines);
}

export async function normalizeResult(state: CallState, options: NormalizeOptions): Promise<void> {
  const result = state.result!;
  let content = result.content;
  if (content.some((block) => block.type === 'image')) content = await normalizeImages(content, options.images, state.signal);
  content = await backstop(content, options, state.call.name, state.limitedByTool === true);
  if (content.every((block) => block.type === 'text' && block.text.trim() === '')) {
    content = [{ type: 'text', text: '(no output)' }];
  }
  if (content !== result.content) result.content = deepFreeze(content);
}

async function normalizeImages(content: Content[], policy: ImagePolicy, signal: AbortSignal | undefined): Promise<Content[]> {
  const out: Content[] = [];
  for (const block of content) {
    if (block.type !== 'image') {
      out.push(block);
      continue;
    }
    const info = describeImage(block);
    const problem = imageDataProblem(info);
    if (problem === 'not-an-image' && info.convertible !== undefined) {
      out.push(...(await convertImage({ ...block, mimeType: info.convertible }, info, policy, signal)));
      continue;
    }
    if (problem === 'not-an-image') {
      out.push({ type: 'text', text: imageNote('not-an-image', info) });
      continue;
    }
    // The bytes are an image; a wrong label is the tool's slip, and providers reject mismatches.
    const image: ImageContent = problem === 'mime-mismatch' ? { ...block, mimeType: info.mime! } : block;
    if (policy.block) out.push({ type: 'text', text: imageNote('blocked', info) });
    else if (!policy.imageInput) out.push({ type: 'text', text: imageNote('no-image-input', info) });
    else if (fitsLimits(image, info, policy)) out.push(image);
    else if (policy.resize === undefined) {
      // Unknown pixel size is let through when the bytes fit: the header was odd, not proven too big.
      if (info.width === undefined && image.data.length <= policy.maxBytes) out.push(image);
      else out.push({ type: 'text', text: imageNote('over-limits', info, { limits: policy }) });
    } else {
      try {
        out.push(...(await policy.resize(image, { info, maxDimension: policy.maxDimension, maxBytes: policy.maxBytes, signal })));
      } catch (error) {
        out.push({ type: 'text', text: imageNote('over-limits', info, { limits: policy, resizeError: errorMessage(error) }) });
      }
    }
  }
  return out;
}

/** A TIFF or AVIF goes to the resizer, which re-encodes it as PNG (within the limits). */
async function convertImage(image: ImageContent, info: ImageInfo, policy: ImagePolicy, signal: AbortSignal | undefined): Promise<Content[]> {
  if (policy.block) return [{ type: 'text', text: imageNote('blocked', info) }];
  if (!policy.imageInput) return [{ type: 'text', text: imageNote('no-image-input', info) }];
  if (policy.resize === undefined) return [{ type: 'text', text: imageNote('not-converted', info) }];
  try {
    return await policy.resize(image, { info, maxDimension: policy.maxDimension, maxBytes: policy.maxBytes, signal });
  } catch (error) {
    return [{ type: 'text', text: imageNote('not-converted', info, { limits: policy, resizeError: errorMessage(error) }) }];
  }
}

function fitsLimits(image: ImageContent, info: ImageInfo, policy: ImagePolicy): boolean {
  return (
    info.width !== undefined &&
    info.height !== undefined &&
    info.width <= policy.maxDimension &&
    info.height <= policy.maxDimension &&
    image.data.length <= policy.maxBytes
  );
}

async function backstop(content: Content[], options: NormalizeOptions, toolName: string, limitedByTool: boolean): Promise<Content[]> {
  const { maxBytes, maxLines } = options.limits;
  let chars = 0;
  for (const block of content) if (block.type === 'text') chars += block.text.length;
  // A UTF-16 unit is at most 3 UTF-8 bytes and a line needs at least one unit, so small text is
  // provably within both limits without measuring it.
  if (chars <= Math.min(maxBytes / 3, maxLines)) return content;

  const texts = content.filter((b): b is TextContent => b.type === 'text').map((b) => b.text);
  let bytes = 0;
  let lines = 0;
  for (const text of texts) {
    bytes += utf8ByteLength(text);
    lines += countLines(text);
  }
  // A tool's own cut already says what was shown and how to continue (an offset into the real
  // file); cutting it again would replace that with a wrong total and a spill copy.
  const roomBytes = limitedByTool ? NOTICE_ROOM.bytes : 0;
  const roomLines = limitedByTool ? NOTICE_ROOM.lines : 0;
  if (bytes <= maxBytes + roomBytes && lines <= maxLines + roomLines) return content;

  const full = texts.join('\n');
  let path: string | undefined;
  try {
    path = (await options.spill(full, { name: toolName })).path;
  } catch {
    path = undefined;
  }
  let budgetBytes = maxBytes;
  let budgetLines = maxLines;
  let cut = false;
  const out: Content[] = [];
  let shownLines = 0;
  for (const block of content) {
    if (block.type !== 'text') {
      out.push(block);
      continue;
    }
    if (cut) continue;
    const kept = truncateHead(block.text, { maxBytes: budgetBytes, maxLines: Math.max(budgetLines, 0) });
    if (!kept.truncated) {
      out.push(block);
      budgetBytes -= kept.outputBytes + 1;
      budgetLines -= kept.outputLines;
      shownLines += kept.outputLines;
      continue;
    }
    cut = true;
    shownLines += kept.outputLines;
    if (kept.content.length > 0) out.push({ type: 'text', text: kept.content });
  }
  out.push({ type: 'text', text: backstopNotice(shownLines, lines, options.limits, path) });
  return out;
}

function backstopNotice(shown: number, total: number, limits: TruncationLimits, path: string | undefined): string {
  const limit = `${limits.maxLines} lines / ${formatSize(limits.maxBytes)}`;
  const full = path === undefined ? 'The full output could not be saved.' : `Full output: ${path} (read it with offset=${shown + 1} to continue).`;
  if (shown === 0) return `[The output's first line alone exceeds the ${limit} limit for tool output, so none of it is shown. ${full}]`;
  return `[Showing lines 1-${shown} of ${total}: tool output is limited to ${limit}. ${full}]`;
}
