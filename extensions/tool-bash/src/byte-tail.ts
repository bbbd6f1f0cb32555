import type { TruncationLimits, TruncationResult, TruncationService } from '@airlock/kernel';

/**
 * A rolling tail of the command's raw output bytes, decoded only when someone looks at it.
 *
 * Why not the kernel's `ctx.truncate.stream()`: it decodes every chunk to a string and counts its
 * lines with `indexOf`, which for `seq 1 2000000` (16 MB, 2 M lines) costs more than the command
 * itself. Here a chunk costs a reference kept in an array and one word-at-a-time newline count;
 * the text is built from the window (about 2 × maxBytes) only for an update or the final result.
 *
 * Equivalence with truncating the whole output: the window always holds at least
 * `maxBytes + 8` bytes once the output is that big. Leading bytes that continue a character cut
 * off by the window are skipped (at most 3), a snapshot holds back an incomplete last character
 * (at most 3), and decoding never shrinks the rest, so the decoded window still exceeds `maxBytes`: no line reaching its start fits in the tail, and what lies
 * before it cannot change the tail. Only the totals come from the whole stream.
 *
 * Totals count raw bytes (the size of the full-output file). For valid UTF-8 that is also the
 * decoded size; for invalid bytes (shown as U+FFFD) it can be a little smaller.
 */
export class ByteTail {
  readonly #limits: TruncationLimits;
  readonly #truncate: TruncationService;
  /**
   * Bytes to keep at least: the limit, plus room for a character cut at the window's start and,
   * in a snapshot taken mid-stream, one still incomplete at its end (3 bytes each at most).
   */
  readonly #keep: number;
  #chunks: Uint8Array[] = [];
  #first = 0;
  #windowBytes = 0;
  #totalBytes = 0;
  #newlines = 0;
  #endsWithNewline = false;
  /** Bytes after the last "\n" so far. */
  #openLineBytes = 0;
  /** Bytes of the last line closed by a "\n", with it. */
  #closedLineBytes = 0;
  #cached: TruncationResult | undefined;

  constructor(limits: TruncationLimits, truncate: TruncationService) {
    this.#limits = limits;
    this.#truncate = truncate;
    this.#keep = limits.maxBytes + 8;
  }

  get totalBytes(): number {
    return this.#totalBytes;
  }

  /** Lines as the kernel counts them: a trailing "\n" does not start another line. */
  get totalLines(): number {
    if (this.#totalBytes === 0) return 0;
    return this.#endsWithNewline ? this.#newlines : this.#newlines + 1;
  }

  /** Raw size of the last line (with its "\n"), for the partial-line notice. */
  get lastLineBytes(): number {
    return this.#endsWithNewline ? this.#closedLineBytes : this.#openLineBytes;
  }

  /** The chunk is kept by reference: the caller must not reuse its memory (stream chunks are fresh). */
  push(chunk: Uint8Array): void {
    const length = chunk.length;
    if (length === 0) return;
    this.#cached = undefined;
    this.#totalBytes += length;
    this.#newlines += countNewlines(chunk);
    const last = chunk.lastIndexOf(0x0a);
    if (last === -1) {
      this.#openLineBytes += length;
    } else {
      const previous = last > 0 ? chunk.lastIndexOf(0x0a, last - 1) : -1;
      this.#closedLineBytes = previous === -1 ? this.#openLineBytes + last + 1 : last - previous;
      this.#openLineBytes = length - last - 1;
    }
    this.#endsWithNewline = chunk[length - 1] === 0x0a;
    this.#chunks.push(chunk);
    this.#windowBytes += length;
    this.#trim();
  }

  /**
   * The tail as it stands. A character still incomplete at the end is left out (its remaining
   * bytes may be on their way); `final` decodes it as U+FFFD instead, as the stream is over.
   */
  snapshot(final = false): TruncationResult {
    if (this.#cached !== undefined) return this.#cached;
    const window = this.#window();
    let start = 0;
    // The window starts at a chunk boundary, possibly inside a character cut off by the window.
    if (this.#totalBytes > this.#windowBytes) while (start < 3 && start < window.length && ((window[start] ?? 0) & 0xc0) === 0x80) start++;
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(window.subarray(start), { stream: !final });
    const tail = this.#truncate.tail(text, this.#limits);
    const result: TruncationResult = { ...tail, totalLines: this.totalLines, totalBytes: this.#totalBytes };
    if (final) this.#cached = result;
    return result;
  }

  /** Drop whole chunks from the front while what remains still holds `#keep` bytes. */
  #trim(): void {
    for (;;) {
      const oldest = this.#chunks[this.#first];
      if (oldest === undefined || this.#windowBytes - oldest.length < this.#keep) break;
      this.#windowBytes -= oldest.length;
      this.#chunks[this.#first] = EMPTY;
      this.#first++;
    }
    // Drop the dead slots now and then, so the array stays as small as the window.
    if (this.#first > 64 && this.#first * 2 > this.#chunks.length) {
      this.#chunks = this.#chunks.slice(this.#first);
      this.#first = 0;
    }
  }

  #window(): Uint8Array {
    const live = this.#chunks.length - this.#first;
    if (live === 1) return this.#chunks[this.#first]!;
    const joined = Buffer.concat(this.#chunks.slice(this.#first), this.#windowBytes);
    // Keep the join, so a second snapshot with no new data does not copy again.
    this.#chunks = [joined];
    this.#first = 0;
    return joined;
  }
}

const EMPTY = new Uint8Array(0);

/**
 * "\n" bytes in `bytes`, four at a time: XOR with 0x0a0a0a0a turns each newline into a zero byte,
 * and the exact zero-byte test below (no false positives from carries) marks each with its high
 * bit. About 4× faster than a byte loop and 6× faster than an indexOf loop on dense short lines.
 */
export function countNewlines(bytes: Uint8Array): number {
  let count = 0;
  let i = 0;
  // Head bytes up to a 4-byte boundary, so the rest can be viewed as 32-bit words.
  const head = Math.min(bytes.length, (4 - (bytes.byteOffset & 3)) & 3);
  for (; i < head; i++) if (bytes[i] === 0x0a) count++;
  const words = (bytes.length - i) >>> 2;
  if (words > 0) {
    const view = new Uint32Array(bytes.buffer, bytes.byteOffset + i, words);
    for (let w = 0; w < words; w++) {
      const x = (view[w] ?? 0) ^ 0x0a0a0a0a;
      const zeros = ~(((x & 0x7f7f7f7f) + 0x7f7f7f7f) | x | 0x7f7f7f7f);
      // One bit per zero byte at the bottom of each byte; the multiply sums them in the top byte.
      if (zeros !== 0) count += Math.imul(zeros >>> 7, 0x01010101) >>> 24;
    }
    i += words * 4;
  }
  for (; i < bytes.length; i++) if (bytes[i] === 0x0a) count++;
  return count;
}
