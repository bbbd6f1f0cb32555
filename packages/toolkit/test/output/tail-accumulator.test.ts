import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countNewlines } from '../../src/output/newlines.js';
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

/** The window bound the accumulator documents: it slides once it would pass 2 × (maxBytes + 4). */
const windowBound = (maxBytes: number): number => 2 * (maxBytes + 4);

/** A deterministic generator, so a failure can be replayed. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

describe('countNewlines', () => {
  it('counts at every alignment and length, against a byte loop', () => {
    const bytes = Buffer.from('\n\na\nbb\n\n\nccc\n\n\n\n\nd\n');
    const expected = (b: Uint8Array): number => b.reduce((n, x) => n + (x === 10 ? 1 : 0), 0);
    for (let start = 0; start < 8; start++) {
      for (let end = start; end <= bytes.length; end++) {
        const view = bytes.subarray(start, end);
        expect(countNewlines(view), `${start}-${end}`).toBe(expected(view));
      }
    }
  });

  it('sees no newline in bytes that differ from 0x0a by a carry (0x0b, 0x8a, 0x09…)', () => {
    // The classic "has zero byte" trick is exact only with the masking used; these would trip a sloppy one.
    const bytes = Uint8Array.of(0x0b, 0x8a, 0x09, 0x0a, 0x00, 0xff, 0x0a, 0x0b, 0x1a, 0x0a, 0x0a, 0x0a);
    for (let start = 0; start < 4; start++) {
      const view = bytes.subarray(start);
      expect(countNewlines(view)).toBe(view.filter((x) => x === 0x0a).length);
    }
  });
});

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
          expect(tail.windowBytes).toBeLessThanOrEqual(windowBound(limits.maxBytes));
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

  it('equals truncateTail for valid text pushed as a mix of byte and string chunks', () => {
    fc.assert(
      fc.property(textArb, cutsArb, fc.array(fc.boolean(), { maxLength: 40 }), limitsArb, (text, cuts, asString, limits) => {
        const tail = createTailAccumulator(limits);
        const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
        splitAt(encode(text), cuts).forEach((chunk, i) => {
          // Only a chunk that is whole characters can be text; one cut inside a character stays bytes.
          let decoded: string | undefined;
          try {
            decoded = strict.decode(chunk);
          } catch {
            decoded = undefined;
          }
          tail.push(asString[i] === true && decoded !== undefined ? decoded : chunk);
          expect(tail.windowBytes).toBeLessThanOrEqual(windowBound(limits.maxBytes));
        });
        expect(tail.end()).toEqual(truncateTail(text, limits));
      }),
      { numRuns: 300 },
    );
  });

  it('holds a high surrogate back until its pair arrives; a lone one ends as U+FFFD', () => {
    const tail = createTailAccumulator({ maxBytes: 100 });
    tail.push('a\ud83d');
    expect(tail.snapshot()).toMatchObject({ content: 'a', totalBytes: 1 });
    tail.push('\ude00');
    expect(tail.snapshot()).toMatchObject({ content: 'a😀', totalBytes: 5 });
    tail.push('\ud83d');
    // Strings are UTF-8 encoded into the byte stream, and a lone surrogate encodes to U+FFFD.
    expect(tail.end()).toEqual(truncateTail('a😀\ufffd', { maxBytes: 100 }));
  });

  it('leaves a character whose bytes are still on their way out of a snapshot, text and totals', () => {
    const tail = createTailAccumulator({ maxLines: 10, maxBytes: 100 });
    tail.push(Uint8Array.of(0x61, 0x0a, 0xf0, 0x9f));
    expect(tail.snapshot()).toEqual(truncateTail('a\n', { maxLines: 10, maxBytes: 100 }));
    expect([tail.totalBytes, tail.totalLines, tail.lastLineBytes]).toEqual([2, 1, 2]);
    tail.push(Uint8Array.of(0x98, 0x80));
    expect(tail.end()).toEqual(truncateTail('a\n😀', { maxLines: 10, maxBytes: 100 }));
    expect([tail.totalBytes, tail.totalLines, tail.lastLineBytes]).toEqual([6, 2, 4]);
  });

  it('copies what it keeps, so a caller may reuse its chunk buffer', () => {
    const tail = createTailAccumulator({ maxBytes: 100 });
    const buffer = new Uint8Array(4);
    for (const text of ['abc\n', 'def\n']) {
      buffer.set(encode(text));
      tail.push(buffer);
    }
    buffer.fill(0x7a);
    expect(tail.end().content).toBe('abc\ndef\n');
  });

  it('decodes a character split across byte chunks', () => {
    const tail = createTailAccumulator();
    for (const byte of encode('€😀\n')) tail.push(Uint8Array.of(byte));
    expect(tail.end()).toMatchObject({ content: '€😀\n', totalBytes: 8, totalLines: 1, truncated: false });
  });

  it('decodes incomplete bytes as U+FFFD before a string chunk and at the end, counting raw bytes', () => {
    const tail = createTailAccumulator();
    tail.push(Uint8Array.of(0xe2, 0x82));
    tail.push('ok\n');
    tail.push(Uint8Array.of(0xff, 0x41, 0xf0));
    const result = tail.end();
    expect(result.content).toBe('\ufffdok\n\ufffdA\ufffd');
    // Totals are the 8 raw bytes pushed, not the 13 of the decoded text (each U+FFFD is 3).
    expect(result).toEqual({ ...truncateTail('\ufffdok\n\ufffdA\ufffd'), totalBytes: 8 });
    expect(tail.lastLineBytes).toBe(3);
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

  it('equals truncating the whole output for random byte chunkings (seeded, replayable)', () => {
    const pieces = ['a', 'bc', '\n', '\n\n', 'é', '€', '😀', 'line of text\n', 'x'.repeat(40)];
    const rnd = prng(42);
    for (let round = 0; round < 200; round++) {
      const limits = { maxLines: 1 + Math.floor(rnd() * 12), maxBytes: 8 + Math.floor(rnd() * 120) };
      let text = '';
      const parts = Math.floor(rnd() * 80);
      for (let i = 0; i < parts; i++) text += pieces[Math.floor(rnd() * pieces.length)];
      const bytes = encode(text);
      const tail = createTailAccumulator(limits);
      for (let at = 0; at < bytes.length; ) {
        const size = 1 + Math.floor(rnd() * 9);
        tail.push(bytes.subarray(at, at + size));
        at += size;
      }
      expect(tail.end(), `round ${round}: ${JSON.stringify(text)} ${JSON.stringify(limits)}`).toEqual(truncateTail(text, limits));
      expect(tail.lastLineBytes).toBe(lastLineBytes(text));
    }
  });

  it('grows and slides its window under the default limits, small chunks, multi-byte text', () => {
    const rnd = prng(7);
    let text = '';
    for (let i = 0; text.length < 300_000; i++) text += `${i} ${'é€😀'.repeat(Math.floor(rnd() * 40))}\n`;
    const bytes = encode(text);
    const tail = createTailAccumulator();
    let pushed = 0;
    for (let round = 0; pushed < bytes.length; round++) {
      const size = 1 + Math.floor(rnd() * 3000);
      tail.push(bytes.subarray(pushed, pushed + size));
      pushed = Math.min(bytes.length, pushed + size);
      if (round % 40 === 0) {
        const prefix = new TextDecoder().decode(bytes.subarray(0, pushed), { stream: true });
        expect(tail.snapshot()).toEqual(truncateTail(prefix));
      }
      expect(tail.windowBytes).toBeLessThanOrEqual(windowBound(51200));
    }
    expect(tail.end()).toEqual(truncateTail(text));
  });

  it('keeps only a window of one chunk far bigger than the limit', () => {
    const tail = createTailAccumulator({ maxLines: 2000, maxBytes: 1000 });
    tail.push('head\n');
    tail.push(new Uint8Array(8 * 1024 * 1024).fill(0x61));
    expect(tail.windowBytes).toBeLessThanOrEqual(windowBound(1000));
    const result = tail.end();
    expect(result).toMatchObject({ totalBytes: 5 + 8 * 1024 * 1024, totalLines: 2, lastLinePartial: true });
    expect(result.content).toBe('a'.repeat(1000));
    expect(tail.lastLineBytes).toBe(8 * 1024 * 1024);
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
    expect(largestWindow).toBeLessThanOrEqual(windowBound(maxBytes));
    expect(result.totalBytes).toBe(count * chunkSize);
    const endsWithNewline = lastTwo[lastTwo.length - 1] === 0x0a;
    expect(result.totalLines).toBe(endsWithNewline ? newlines : newlines + 1);
    // The final 50 KiB lie inside the last two chunks, so decoding just those must agree.
    const expected = truncateTail(new TextDecoder().decode(lastTwo), { maxBytes });
    expect(result.content).toBe(expected.content);
    expect(result.outputLines).toBe(expected.outputLines);
    expect(result.truncatedBy).toBe('bytes');
  });
});
