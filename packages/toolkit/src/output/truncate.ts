import type { TruncationLimits, TruncationResult } from '@airlock/contract';

/**
 * Line and byte model used by every function here (and by the tail accumulator):
 * - A line owns its terminating "\n". The last line may have none. So "" is 0 lines, "a\n" is
 *   1 line, "a\n\n" is 2 lines ("a" and an empty one), and a line's size includes its "\n".
 * - Sizes are UTF-8 bytes. A lone surrogate counts 3 bytes, as it encodes to U+FFFD.
 * - Head output is always `text.slice(0, c)` and tail output `text.slice(c)`, with `c` at a line
 *   boundary (only the oversized-last-line case of tail cuts inside a line, at a code point).
 *   So a kept line keeps its "\n"; `outputBytes === utf8ByteLength(content)` and
 *   `outputLines === countLines(content)` always hold, and `truncated` means `content !== text`.
 */

/** 2,000 lines or 50 KiB, whichever comes first. */
export const DEFAULT_LIMITS: Readonly<TruncationLimits> = Object.freeze({ maxLines: 2000, maxBytes: 51200 });

/**
 * How far past the limits a tool that limited its own output may go: room for the notices that
 * say what was cut and how to get the rest (a blank line and a few bracketed lines). Output that
 * no tool limited gets none of it; a "limited" output past it is cut like any other, so the flag
 * cannot flood the context.
 */
export const NOTICE_ROOM: Readonly<{ lines: number; bytes: number }> = Object.freeze({ lines: 8, bytes: 2048 });

/**
 * Fill in missing limits from `base` and reject nonsense early, so a bad setting fails loudly.
 *
 * @example resolveLimits({ maxLines: 100 }) // { maxLines: 100, maxBytes: 51200 }
 */
export function resolveLimits(
  limits?: Partial<TruncationLimits>,
  base: Readonly<TruncationLimits> = DEFAULT_LIMITS,
): TruncationLimits {
  const maxLines = limits?.maxLines ?? base.maxLines;
  const maxBytes = limits?.maxBytes ?? base.maxBytes;
  for (const [name, value] of [
    ['maxLines', maxLines],
    ['maxBytes', maxBytes],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(`Truncation limit ${name} must be a whole number of at least 1, got ${String(value)}.`);
    }
  }
  return { maxLines, maxBytes };
}

/**
 * UTF-8 size of a string, without a Buffer or a full copy: short ranges are counted from their
 * UTF-16 code units, long ones are encoded piecewise into one small reusable scratch array (the
 * native encoder is ~20× faster than a JS loop, which matters for the totals of a 50 MB input).
 *
 * @example utf8ByteLength('é€😀') // 2 + 3 + 4 = 9
 */
export function utf8ByteLength(text: string): number {
  return utf8BytesUpTo(text, 0, text.length, Number.POSITIVE_INFINITY);
}

const encoder = new TextEncoder();
/** UTF-16 code units encoded per step; each becomes at most 3 bytes. */
const STEP_UNITS = 65536;
let scratch: Uint8Array | undefined;

/**
 * UTF-8 bytes of `text[start, end)`, but stops counting soon after passing `limit`, so an
 * oversized line costs about what the budget allows. Returns a value > limit in that case.
 * A surrogate cut off by the range counts 3 bytes, as a lone surrogate encodes to U+FFFD.
 */
export function utf8BytesUpTo(text: string, start: number, end: number, limit: number): number {
  if (end - start < 256) return countUnits(text, start, end, limit);
  scratch ??= new Uint8Array(3 * STEP_UNITS);
  let bytes = 0;
  for (let i = start; i < end && bytes <= limit; ) {
    let stop = Math.min(end, i + STEP_UNITS);
    // Never cut between the halves of a pair, or each half would count as U+FFFD.
    if (stop < end && isHighSurrogate(text.charCodeAt(stop - 1))) stop--;
    bytes += encoder.encodeInto(text.slice(i, stop), scratch).written;
    i = stop;
  }
  return bytes;
}

/**
 * End of the longest prefix of `text[start..]` that starts and ends on code points and takes at
 * most `maxBytes` bytes, with its size. Native encoding, so dropping the front of a 100 KB
 * window costs microseconds.
 *
 * @example utf8PrefixWithin('é😀a', 0, 5) // { end: 1, bytes: 2 }: the emoji would not fit
 */
export function utf8PrefixWithin(text: string, start: number, maxBytes: number): { end: number; bytes: number } {
  scratch ??= new Uint8Array(3 * STEP_UNITS);
  let end = start;
  let bytes = 0;
  while (end < text.length && bytes < maxBytes) {
    let stop = Math.min(text.length, end + STEP_UNITS);
    if (stop < text.length && isHighSurrogate(text.charCodeAt(stop - 1))) stop--;
    // encodeInto writes only whole code points, so a full destination leaves a clean boundary.
    const room = scratch.subarray(0, Math.min(scratch.length, maxBytes - bytes));
    const { read, written } = encoder.encodeInto(text.slice(end, stop), room);
    end += read;
    bytes += written;
    if (end < stop) break;
  }
  return { end, bytes };
}

function countUnits(text: string, start: number, end: number, limit: number): number {
  let bytes = 0;
  for (let i = start; i < end && bytes <= limit; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (isHighSurrogate(code) && i + 1 < end && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Lines in `text`: "" has 0, and a single trailing "\n" does not start another line.
 *
 * @example countLines('a\nb\n') // 2
 */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let newlines = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) newlines++;
  return text.charCodeAt(text.length - 1) === 0x0a ? newlines : newlines + 1;
}

/**
 * Human size in Pi's format: bytes below 1 KiB, then one decimal of KiB or MiB.
 *
 * @example formatSize(51200) // "50.0KB"
 */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}

/**
 * Keep the beginning: the longest run of whole lines (each with its "\n") within both limits.
 * When the first line alone is over `maxBytes`, nothing is kept and `firstLineExceedsLimit` is set.
 * Scans with indexOf and stops at the limit, so the cut costs what is kept (the totals still
 * need one pass over the text).
 *
 * @example truncateHead('a\nb\nc\n', { maxLines: 2 }).content // "a\nb\n"
 */
export function truncateHead(text: string, limits?: Partial<TruncationLimits>): TruncationResult {
  const { maxLines, maxBytes } = resolveLimits(limits);
  const totalLines = countLines(text);
  const totalBytes = utf8ByteLength(text);
  if (totalLines <= maxLines && totalBytes <= maxBytes) return untouched(text, totalLines, totalBytes, maxLines, maxBytes);

  let cut = 0;
  let lines = 0;
  let bytes = 0;
  let truncatedBy: 'lines' | 'bytes' = 'lines';
  // The early return guarantees a limit is hit before the end of the text.
  while (cut < text.length) {
    if (lines === maxLines) break;
    const newline = text.indexOf('\n', cut);
    const end = newline === -1 ? text.length : newline + 1;
    const lineBytes = utf8BytesUpTo(text, cut, end, maxBytes - bytes);
    if (bytes + lineBytes > maxBytes) {
      truncatedBy = 'bytes';
      break;
    }
    bytes += lineBytes;
    lines++;
    cut = end;
  }
  return {
    content: text.slice(0, cut),
    truncated: true,
    truncatedBy,
    totalLines,
    totalBytes,
    outputLines: lines,
    outputBytes: bytes,
    lastLinePartial: false,
    firstLineExceedsLimit: lines === 0,
    maxLines,
    maxBytes,
  };
}

/**
 * Keep the end: the longest run of whole lines from the end within both limits. Only when the
 * last line alone is over `maxBytes` does it cut inside a line: it keeps that line's last bytes,
 * starting at a code point (never half a surrogate pair), and sets `lastLinePartial`.
 *
 * @example truncateTail('a\nb\nc\n', { maxLines: 2 }).content // "b\nc\n"
 */
export function truncateTail(text: string, limits?: Partial<TruncationLimits>): TruncationResult {
  const { maxLines, maxBytes } = resolveLimits(limits);
  const totalLines = countLines(text);
  const totalBytes = utf8ByteLength(text);
  if (totalLines <= maxLines && totalBytes <= maxBytes) return untouched(text, totalLines, totalBytes, maxLines, maxBytes);

  let cut = text.length;
  let lines = 0;
  let bytes = 0;
  let truncatedBy: 'lines' | 'bytes' = 'lines';
  let lastLinePartial = false;
  while (cut > 0) {
    if (lines === maxLines) break;
    // Search from cut - 2 to skip this line's own "\n"; below 2 the line starts at 0
    // (lastIndexOf clamps a negative start to 0 and would find a "\n" at index 0).
    const start = cut >= 2 ? text.lastIndexOf('\n', cut - 2) + 1 : 0;
    const lineBytes = utf8BytesUpTo(text, start, cut, maxBytes - bytes);
    if (bytes + lineBytes > maxBytes) {
      truncatedBy = 'bytes';
      if (lines === 0) {
        cut = codePointSuffixStart(text, start, cut, maxBytes);
        bytes = utf8BytesUpTo(text, cut, text.length, Number.POSITIVE_INFINITY);
        lines = cut < text.length ? 1 : 0;
        lastLinePartial = true;
      }
      break;
    }
    bytes += lineBytes;
    lines++;
    cut = start;
  }
  return {
    content: text.slice(cut),
    truncated: true,
    truncatedBy,
    totalLines,
    totalBytes,
    outputLines: lines,
    outputBytes: bytes,
    lastLinePartial,
    firstLineExceedsLimit: false,
    maxLines,
    maxBytes,
  };
}

/**
 * UTF-8 bytes of the first line (with its "\n"), for the oversized-line notice.
 *
 * @example firstLineBytes('héllo\nworld') // 7
 */
export function firstLineBytes(text: string): number {
  const newline = text.indexOf('\n');
  return utf8BytesUpTo(text, 0, newline === -1 ? text.length : newline + 1, Number.POSITIVE_INFINITY);
}

/**
 * UTF-8 bytes of the last line (with its "\n" if any), for the partial-last-line notice.
 *
 * @example lastLineBytes('a\nbcd\n') // 4
 */
export function lastLineBytes(text: string): number {
  const start = text.length >= 2 ? text.lastIndexOf('\n', text.length - 2) + 1 : 0;
  return utf8BytesUpTo(text, start, text.length, Number.POSITIVE_INFINITY);
}

/**
 * Smallest index in [from, to] that starts a code point and leaves at most `maxBytes` bytes up
 * to `to`. Walks backwards, so it costs what is kept.
 */
function codePointSuffixStart(text: string, from: number, to: number, maxBytes: number): number {
  let i = to;
  let bytes = 0;
  while (i > from) {
    const code = text.charCodeAt(i - 1);
    let units = 1;
    let size: number;
    if (code < 0x80) size = 1;
    else if (code < 0x800) size = 2;
    else if (isLowSurrogate(code) && i - 2 >= from && isHighSurrogate(text.charCodeAt(i - 2))) {
      size = 4;
      units = 2;
    } else size = 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    i -= units;
  }
  return i;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function untouched(
  text: string,
  totalLines: number,
  totalBytes: number,
  maxLines: number,
  maxBytes: number,
): TruncationResult {
  return {
    content: text,
    truncated: false,
    truncatedBy: null,
    totalLines,
    totalBytes,
    outputLines: totalLines,
    outputBytes: totalBytes,
    lastLinePartial: false,
    firstLineExceedsLimit: false,
    maxLines,
    maxBytes,
  };
}
