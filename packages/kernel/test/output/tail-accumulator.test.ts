import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTailAccumulator } from '../../src/output/tail-accumulator.js';
import { countLines, lastLineBytes, truncateTail } from '../../src/output/truncate.js';

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

const piece = fc.oneof(
  fc.constantFrom('a', 'bc', '\n', '\n\n', 'é', '€', '😀', ' ', '\r\n', 'x'.repeat(30)),
  fc.string({ unit: 'binary', maxLength: 4 }),
);
/** Well-formed text only: byte chunks must decode back to exactly the same string. */
const textArb = fc.array(piece, { maxLength: 150 }).map((pieces) => pieces.join(''));
const limitsArb = fc.record({ maxLines: fc.integer({ min: 1, max: 10 }), maxBytes: fc.integer({ min: 1, max: 60 }) });

/** Cut points into [0, length], sorted and unique, so each chunking is a random split. */
function splitAt<T extends { length: number; slice(start: number, end?: number): T }>(whole: T, cuts: number[]): T[] {
  const points = [...new Set(cuts.map((cut) => cut % (whole.length + 1)))].sort((a, b) => a - b);
  const parts: T[] = [];
  let start = 0;
  for (const point of [...points, whole.length]) {
    parts.push(whole.slice(start, point));
    start = point;
  }
  return parts;
}

const cutsArb = fc.array(fc.nat(), { maxLength: 40 });

describe('createTailAccumulator', () => {
  it('equals truncateTail of the decoded prefix after every byte chunk, however the bytes are split', () => {
    fc.assert(
      fc.property(textArb, cutsArb, limitsArb, (text, cuts, limits) => {
        const bytes = encode(text);
        const tail = createTailAccumulator(limits);
        let pushed = 0;
        for (const chunk of splitAt(bytes, cuts)) {
          tail.push(chunk);
          pushed += chunk.length;
          // What a fresh streaming decoder makes of the prefix: incomplete characters held back.
          const prefix = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes.subarray(0, pushed), { stream: true });
          expect(tail.snapshot()).toEqual(truncateTail(prefix, limits));
          expect(tail.totalBytes).toBe(Buffer.byteLength(prefix));
          expect(tail.totalLines).toBe(countLines(prefix));
          expect(tail.lastLineBytes).toBe(lastLineBytes(prefix));
          expect(tail.windowBytes).toBeLessThanOrEqual(Math.max(2 * limits.maxBytes, limits.maxBytes + 4));
        }
        expect(tail.end()).toEqual(truncateTail(text, limits));
      }),
      { numRuns: 300 },
    );
  });

  it('equals truncateTail of the concatenation for string chunks, even when a pair is split', () => {
    fc.assert(
      fc.property(textArb, cutsArb, limitsArb, (text, cuts, limits) => {
        const tail = createTailAccumulator(limits);
        for (const chunk of splitAt(text, cuts)) tail.push(chunk);
        expect(tail.end()).toEqual(truncateTail(text, limits));
        expect(tail.lastLineBytes).toBe(lastLineBytes(text));
      }),
      { numRuns: 300 },
    );
  });

  it('holds a high surrogate back until its pair arrives, and keeps it lone at the end', () => {
    const tail = createTailAccumulator({ maxBytes: 100 });
    tail.push('a\ud83d');
    expect(tail.snapshot()).toMatchObject({ content: 'a', totalBytes: 1 });
    tail.push('\ude00');
    expect(tail.snapshot()).toMatchObject({ content: 'a😀', totalBytes: 5 });
    tail.push('\ud83d');
    expect(tail.end()).toEqual(truncateTail('a😀\ud83d', { maxBytes: 100 }));
  });

  it('decodes a character split across byte chunks', () => {
    const tail = createTailAccumulator();
    for (const byte of encode('€😀\n')) tail.push(Uint8Array.of(byte));
    expect(tail.end()).toMatchObject({ content: '€😀\n', totalBytes: 8, totalLines: 1, truncated: false });
  });

  it('flushes incomplete bytes as U+FFFD before a string chunk and at the end', () => {
    const tail = createTailAccumulator();
    tail.push(Uint8Array.of(0xe2, 0x82));
    tail.push('ok\n');
    tail.push(Uint8Array.of(0xff, 0x41, 0xf0));
    const result = tail.end();
    expect(result.content).toBe('\ufffdok\n\ufffdA\ufffd');
    expect(result).toEqual(truncateTail('\ufffdok\n\ufffdA\ufffd'));
  });

  it('keeps a byte order mark, so byte totals match the raw stream', () => {
    const tail = createTailAccumulator();
    tail.push(Uint8Array.of(0xef, 0xbb, 0xbf, 0x61));
    expect(tail.end()).toMatchObject({ content: '\ufeffa', totalBytes: 4 });
  });

  it('keeps the end of a last line longer than maxBytes', () => {
    const tail = createTailAccumulator({ maxBytes: 10 });
    tail.push('first\n');
    for (let i = 0; i < 1000; i++) tail.push('é😀');
    const result = tail.end();
    expect(result).toMatchObject({ lastLinePartial: true, outputLines: 1, totalLines: 2, totalBytes: 6 + 6000 });
    expect(result.content).toBe('😀é😀');
    expect(tail.lastLineBytes).toBe(6000);
  });

  it('caches the snapshot until the next push', () => {
    const tail = createTailAccumulator();
    tail.push('a\n');
    const first = tail.snapshot();
    expect(tail.snapshot()).toBe(first);
    tail.push('b');
    expect(tail.snapshot()).not.toBe(first);
    expect(tail.snapshot().content).toBe('a\nb');
  });

  it('refuses pushes after end and returns the same final result', () => {
    const tail = createTailAccumulator();
    tail.push('done\n');
    const result = tail.end();
    expect(tail.end()).toBe(result);
    expect(tail.snapshot()).toBe(result);
    expect(() => tail.push('more')).toThrow(/after end\(\)/);
    expect(() => tail.push(new Uint8Array(1))).toThrow(/after end\(\)/);
  });

  it('reports empty for an empty stream', () => {
    const tail = createTailAccumulator();
    tail.push('');
    tail.push(new Uint8Array(0));
    expect(tail.end()).toEqual(truncateTail(''));
  });

  it('stays bounded over 200 MB pushed in 64 KiB chunks, with exact totals', () => {
    const maxBytes = 51200;
    const chunkSize = 64 * 1024;
    // 30 bytes, so 64 KiB chunks cut through characters and lines; the stream is one continuous
    // repetition, hence valid UTF-8 whose decoded size equals its raw size.
    const pattern = encode('log line é€😀 0123456789\n');
    const chunkAt = new Map<number, { bytes: Uint8Array; newlines: number }>();
    const chunkStartingAt = (offset: number): { bytes: Uint8Array; newlines: number } => {
      let cached = chunkAt.get(offset);
      if (cached === undefined) {
        const bytes = new Uint8Array(chunkSize);
        for (let i = 0; i < chunkSize; i++) bytes[i] = pattern[(offset + i) % pattern.length] ?? 0;
        cached = { bytes, newlines: bytes.filter((byte) => byte === 0x0a).length };
        chunkAt.set(offset, cached);
      }
      return cached;
    };
    const count = Math.ceil((200 * 1024 * 1024) / chunkSize);
    const tail = createTailAccumulator({ maxBytes });
    let largestWindow = 0;
    let newlines = 0;
    const lastTwo = new Uint8Array(2 * chunkSize);
    for (let i = 0; i < count; i++) {
      const chunk = chunkStartingAt((i * chunkSize) % pattern.length);
      tail.push(chunk.bytes);
      newlines += chunk.newlines;
      largestWindow = Math.max(largestWindow, tail.windowBytes);
      if (i % 256 === 0) tail.snapshot();
      if (i >= count - 2) lastTwo.set(chunk.bytes, (i - (count - 2)) * chunkSize);
    }
    const result = tail.end();
    expect(largestWindow).toBeLessThanOrEqual(2 * maxBytes);
    expect(result.totalBytes).toBe(count * chunkSize);
    const endsWithNewline = lastTwo[lastTwo.length - 1] === 0x0a;
    expect(result.totalLines).toBe(endsWithNewline ? newlines : newlines + 1);
    // The final 50 KiB lie inside the last two chunks, so decoding just those must agree.
    const expected = truncateTail(new TextDecoder().decode(lastTwo), { maxBytes });
    expect(result.content).toBe(expected.content);
    expect(result.outputLines).toBe(expected.outputLines);
    expect(result.truncatedBy).toBe('bytes');
  }, 60_000);
});
