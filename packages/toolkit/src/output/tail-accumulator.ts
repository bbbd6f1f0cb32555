import type { TailAccumulator, TruncationLimits, TruncationResult } from '@airlock/contract';
import { countNewlines } from './newlines.js';
import { resolveLimits, truncateTail } from './truncate.js';

/**
 * A rolling tail of a stream that equals `truncateTail(fullText)` for valid UTF-8, content and
 * totals, in memory bounded by the limits rather than by the stream or its chunk sizes.
 *
 * Why raw bytes: decoding every chunk to a string and counting its lines with `indexOf` cost more
 * than the command itself for `seq 1 2000000` (16 MB, 2 M lines). Here a chunk costs a copy of at
 * most the window's worth of it and a word-at-a-time newline count; text is decoded only from the
 * window, only when someone takes a snapshot (~30% faster for bash on that command).
 *
 * "fullText" is the concatenation of what was pushed, decoded as one UTF-8 stream: a character
 * split across chunks decodes whole, and invalid bytes become U+FFFD. A string chunk is UTF-8
 * encoded into the same byte stream, so a lone surrogate in it becomes U+FFFD too (a high
 * surrogate ending a chunk is held back until we know whether its pair follows).
 *
 * Totals (`totalBytes`, `totalLines`, `lastLineBytes`, and those of a snapshot) count raw bytes,
 * the size of a full-output file. For valid UTF-8 that is also the decoded size. For invalid
 * bytes it can differ: one stray byte is 1 raw byte but its U+FFFD is 3. Until `end()`, bytes that
 * start a character still incomplete at the end are left out of both the text and the totals, as
 * the rest of the character may be on its way.
 *
 * Why the window can be cut: it keeps at least `maxBytes + 4` bytes once the stream is that big.
 * A snapshot holds back at most 3 trailing bytes of an incomplete character, and decoding never
 * shrinks the rest (bytes of a character cut off at the window's start become U+FFFD, 3 bytes
 * each), so the decoded window still exceeds `maxBytes`: no line reaching its start fits in the
 * tail, and what lies before it cannot change the result.
 */
export class StreamingTail implements TailAccumulator {
  readonly limits: Readonly<TruncationLimits>;
  /** Bytes the window keeps at least (see the class comment for the 4). */
  readonly #keep: number;
  /** The window never grows past this; then its last #keep bytes move to the front. */
  readonly #capacity: number;
  /** The window is #buffer[0, #windowBytes): the last bytes pushed, copied so callers may reuse theirs. */
  #buffer: Uint8Array;
  #windowBytes = 0;
  /** A high surrogate that ended a string chunk, held until we know whether its pair follows. */
  #heldHigh = '';
  #totalBytes = 0;
  #newlines = 0;
  /** Bytes after the last "\n" so far. */
  #openLineBytes = 0;
  /** Bytes of the last line closed by a "\n", including it. */
  #closedLineBytes = 0;
  #cached: TruncationResult | undefined;
  /** Set by end() before the final decode: from then on nothing more can complete a character. */
  #ended = false;
  #final: TruncationResult | undefined;

  constructor(limits?: Partial<TruncationLimits>) {
    this.limits = resolveLimits(limits);
    this.#keep = this.limits.maxBytes + 4;
    this.#capacity = 2 * this.#keep;
    // Grown on demand, so a short output does not pay for a 100 KB window.
    this.#buffer = new Uint8Array(Math.min(this.#capacity, 4096));
  }

  /** Raw bytes so far, less an incomplete character at the end until `end()`. */
  get totalBytes(): number {
    return this.#totalBytes - this.#pending();
  }

  /** Lines as `countLines` counts them: a trailing "\n" does not start another line. */
  get totalLines(): number {
    const open = this.#openLineBytes - this.#pending();
    if (this.#totalBytes - this.#pending() === 0) return 0;
    return open > 0 ? this.#newlines + 1 : this.#newlines;
  }

  /** Raw bytes of the stream's last line (with its "\n"), for the partial-line notice. */
  get lastLineBytes(): number {
    const open = this.#openLineBytes - this.#pending();
    return open > 0 ? open : this.#closedLineBytes;
  }

  /** Bytes held in the rolling window: never more than 2 × (maxBytes + 4). */
  get windowBytes(): number {
    return this.#windowBytes;
  }

  push(chunk: Uint8Array | string): void {
    if (this.#final !== undefined) throw new Error('TailAccumulator.push() after end(): the stream is already finished.');
    if (typeof chunk !== 'string') {
      this.#append(chunk);
      return;
    }
    let text = this.#heldHigh + chunk;
    this.#heldHigh = '';
    const last = text.charCodeAt(text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.#heldHigh = text.slice(-1);
      text = text.slice(0, -1);
    }
    if (text.length > 0) this.#append(encoder.encode(text));
  }

  snapshot(): TruncationResult {
    if (this.#final !== undefined) return this.#final;
    this.#cached ??= this.#decode(false);
    return this.#cached;
  }

  end(): TruncationResult {
    if (this.#final !== undefined) return this.#final;
    // Now known to be lone: it encodes to U+FFFD.
    if (this.#heldHigh !== '') this.#append(encoder.encode(this.#heldHigh));
    this.#heldHigh = '';
    this.#ended = true;
    this.#final = this.#decode(true);
    return this.#final;
  }

  #append(bytes: Uint8Array): void {
    const length = bytes.length;
    if (length === 0) return;
    this.#cached = undefined;
    this.#totalBytes += length;
    this.#newlines += countNewlines(bytes);
    const last = bytes.lastIndexOf(0x0a);
    if (last === -1) {
      this.#openLineBytes += length;
    } else {
      const previous = last > 0 ? bytes.lastIndexOf(0x0a, last - 1) : -1;
      this.#closedLineBytes = previous === -1 ? this.#openLineBytes + last + 1 : last - previous;
      this.#openLineBytes = length - last - 1;
    }
    this.#store(bytes);
  }

  /** Copy into the window only what it keeps: a huge chunk costs #keep bytes, not its size. */
  #store(bytes: Uint8Array): void {
    let source = bytes;
    if (source.length >= this.#keep) {
      source = source.subarray(source.length - this.#keep);
      this.#windowBytes = 0;
    }
    const needed = this.#windowBytes + source.length;
    if (needed > this.#buffer.length && this.#buffer.length < this.#capacity) {
      const grown = new Uint8Array(Math.min(this.#capacity, Math.max(needed, 2 * this.#buffer.length)));
      grown.set(this.#buffer.subarray(0, this.#windowBytes));
      this.#buffer = grown;
    }
    if (needed > this.#buffer.length) {
      // At capacity: slide the bytes still needed to the front. Slides are at least #keep bytes
      // of input apart, so each pushed byte is moved at most once more.
      const old = this.#keep - source.length;
      this.#buffer.copyWithin(0, this.#windowBytes - old, this.#windowBytes);
      this.#windowBytes = old;
    }
    this.#buffer.set(source, this.#windowBytes);
    this.#windowBytes += source.length;
  }

  /**
   * Bytes at the end that start a character still missing bytes, as a streaming decoder holds
   * them back. Judged by the lead byte alone; for invalid input the decoder may disagree, which
   * only shifts the totals (the text itself always comes from the decoder).
   */
  #pending(): number {
    if (this.#ended) return 0;
    for (let back = 1; back <= 3 && back <= this.#windowBytes; back++) {
      const byte = this.#buffer[this.#windowBytes - back] ?? 0;
      if ((byte & 0xc0) === 0x80) continue;
      const size = byte >= 0xc2 && byte <= 0xdf ? 2 : byte >= 0xe0 && byte <= 0xef ? 3 : byte >= 0xf0 && byte <= 0xf4 ? 4 : 1;
      return back < size ? back : 0;
    }
    return 0;
  }

  #decode(final: boolean): TruncationResult {
    // A fresh decoder each time: mid-stream it must hold an incomplete last character back
    // without remembering it for the next snapshot. ignoreBOM keeps a BOM as text, as it was pushed.
    const window = this.#buffer.subarray(0, this.#windowBytes);
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(window, { stream: !final });
    const tail = truncateTail(text, this.limits);
    return { ...tail, totalLines: this.totalLines, totalBytes: this.totalBytes };
  }
}

const encoder = new TextEncoder();

/**
 * Start a rolling tail for streamed output (bash, logs).
 *
 * @example
 * const tail = createTailAccumulator();
 * child.stdout.on('data', (chunk) => { tail.push(chunk); render(tail.snapshot()); });
 * const result = tail.end();
 */
export function createTailAccumulator(limits?: Partial<TruncationLimits>): StreamingTail {
  return new StreamingTail(limits);
}
