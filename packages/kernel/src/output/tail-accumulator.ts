import type { TailAccumulator, TruncationLimits, TruncationResult } from '../contract/context.js';
import { resolveLimits, truncateTail, utf8ByteLength, utf8BytesUpTo, utf8PrefixWithin } from './truncate.js';

/**
 * A rolling tail of a stream that always equals `truncateTail(fullText)`, content and totals, in
 * memory bounded by the limits rather than by the stream.
 *
 * "fullText" is the concatenation of what was pushed: byte chunks are decoded as one UTF-8 stream
 * (a character split across chunks decodes whole; invalid bytes become U+FFFD), and a string
 * chunk first flushes any incomplete bytes. Totals are of that decoded text, so they equal the raw
 * byte count for valid UTF-8.
 *
 * Why the window can be cut: once it holds more than `maxBytes`, any line that reaches its start
 * cannot fit in the tail, so what lies before the window can never change the result.
 */
export class StreamingTail implements TailAccumulator {
  readonly limits: Readonly<TruncationLimits>;
  readonly #decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  #decoderInUse = false;
  /** A high surrogate that ended a string chunk, held until we know whether its pair follows. */
  #heldHigh = '';
  /** The window as appended pieces, oldest first from #first: appending never copies the window. */
  #pieces: string[] = [];
  #pieceBytes: number[] = [];
  #first = 0;
  #windowBytes = 0;
  #totalBytes = 0;
  #newlines = 0;
  #endsWithNewline = false;
  /** Bytes of the line still open at the end of the stream. */
  #openLineBytes = 0;
  /** Bytes of the last line closed by a "\n", including it. */
  #closedLineBytes = 0;
  #cached: TruncationResult | undefined;
  #final: TruncationResult | undefined;

  constructor(limits?: Partial<TruncationLimits>) {
    this.limits = resolveLimits(limits);
  }

  get totalBytes(): number {
    return this.#totalBytes;
  }

  get totalLines(): number {
    if (this.#totalBytes === 0) return 0;
    return this.#endsWithNewline ? this.#newlines : this.#newlines + 1;
  }

  /** UTF-8 bytes of the stream's last line (with its "\n"), for the partial-line notice. */
  get lastLineBytes(): number {
    return this.#endsWithNewline ? this.#closedLineBytes : this.#openLineBytes;
  }

  /** UTF-8 bytes held in the rolling window: never more than max(2 × maxBytes, maxBytes + 4) after a push. */
  get windowBytes(): number {
    return this.#windowBytes;
  }

  push(chunk: Uint8Array | string): void {
    if (this.#final !== undefined) throw new Error('TailAccumulator.push() after end(): the stream is already finished.');
    let text: string;
    if (typeof chunk === 'string') {
      text = this.#flushDecoder() + chunk;
    } else {
      text = this.#decoder.decode(chunk, { stream: true });
      this.#decoderInUse = true;
    }
    text = this.#heldHigh + text;
    this.#heldHigh = '';
    const last = text.charCodeAt(text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.#heldHigh = text.slice(-1);
      text = text.slice(0, -1);
    }
    this.#append(text);
  }

  snapshot(): TruncationResult {
    if (this.#final !== undefined) return this.#final;
    if (this.#cached === undefined) {
      const tail = truncateTail(this.#join(), this.limits);
      this.#cached = { ...tail, totalLines: this.totalLines, totalBytes: this.#totalBytes };
    }
    return this.#cached;
  }

  end(): TruncationResult {
    if (this.#final !== undefined) return this.#final;
    const rest = this.#heldHigh + this.#flushDecoder();
    this.#heldHigh = '';
    this.#append(rest);
    this.#final = this.snapshot();
    return this.#final;
  }

  #flushDecoder(): string {
    if (!this.#decoderInUse) return '';
    this.#decoderInUse = false;
    return this.#decoder.decode();
  }

  #append(text: string): void {
    if (text.length === 0) return;
    const bytes = utf8ByteLength(text);
    this.#totalBytes += bytes;
    this.#countLines(text, bytes);
    this.#pieces.push(text);
    this.#pieceBytes.push(bytes);
    this.#windowBytes += bytes;
    this.#cached = undefined;
    // Trimming in batches, only past 2 × maxBytes, keeps the work per pushed byte constant.
    if (this.#windowBytes > 2 * this.limits.maxBytes) this.#trim();
  }

  #countLines(text: string, bytes: number): void {
    const lastNewline = text.lastIndexOf('\n');
    if (lastNewline === -1) {
      this.#openLineBytes += bytes;
    } else {
      let newlines = 0;
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) newlines++;
      this.#newlines += newlines;
      const afterLast = utf8BytesUpTo(text, lastNewline + 1, text.length, Number.POSITIVE_INFINITY);
      const previous = lastNewline > 0 ? text.lastIndexOf('\n', lastNewline - 1) : -1;
      this.#closedLineBytes =
        previous === -1
          ? this.#openLineBytes + bytes - afterLast
          : utf8BytesUpTo(text, previous + 1, lastNewline + 1, Number.POSITIVE_INFINITY);
      this.#openLineBytes = afterLast;
    }
    this.#endsWithNewline = text.charCodeAt(text.length - 1) === 0x0a;
  }

  /** Keep the shortest suffix, starting at a code point, that still holds more than maxBytes. */
  #trim(): void {
    const keep = this.limits.maxBytes + 1;
    for (;;) {
      const bytes = this.#pieceBytes[this.#first] ?? 0;
      if (this.#windowBytes - bytes < keep) break;
      this.#windowBytes -= bytes;
      this.#pieces[this.#first] = '';
      this.#first++;
    }
    const oldest = this.#pieces[this.#first] ?? '';
    const excess = this.#windowBytes - keep;
    if (excess > 0) {
      // Pieces never end in a high surrogate (push holds it back), so no pair spans two pieces.
      const drop = utf8PrefixWithin(oldest, 0, excess);
      this.#pieces[this.#first] = oldest.slice(drop.end);
      this.#pieceBytes[this.#first] = (this.#pieceBytes[this.#first] ?? 0) - drop.bytes;
      this.#windowBytes -= drop.bytes;
    }
    // Drop the dead slots now and then, so the arrays stay as small as the window.
    if (this.#first > 64 && this.#first * 2 > this.#pieces.length) {
      this.#pieces = this.#pieces.slice(this.#first);
      this.#pieceBytes = this.#pieceBytes.slice(this.#first);
      this.#first = 0;
    }
  }

  /** The window as one string, kept as the only piece so the next join is free. */
  #join(): string {
    const live = this.#pieces.length - this.#first;
    const text = live === 1 ? (this.#pieces[this.#first] ?? '') : this.#pieces.slice(this.#first).join('');
    this.#pieces = [text];
    this.#pieceBytes = [this.#windowBytes];
    this.#first = 0;
    return text;
  }
}

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
