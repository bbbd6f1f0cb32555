import { describe, expect, it } from 'vitest';
import { createTestContext } from '@airlock/kernel/testing';
import { ByteTail, countNewlines } from '../src/byte-tail.js';

const truncate = createTestContext().truncate;

/** A deterministic generator, so a failure can be replayed. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

const PIECES = ['a', 'bc', '\n', '\n\n', 'é', '€', '😀', 'line of text\n', 'x'.repeat(40)];

describe('ByteTail', () => {
  it('counts newlines at every alignment', () => {
    const bytes = Buffer.from('\n\na\nbb\n\n\nccc\n\n\n\n\nd\n');
    const expected = (b: Uint8Array) => b.reduce((n, x) => n + (x === 10 ? 1 : 0), 0);
    for (let start = 0; start < 8; start++) {
      for (let end = start; end <= bytes.length; end++) {
        const view = bytes.subarray(start, end);
        expect(countNewlines(view), `${start}-${end}`).toBe(expected(view));
      }
    }
  });

  it('equals truncating the whole output, however the bytes are chunked', () => {
    const rnd = prng(42);
    for (let round = 0; round < 200; round++) {
      const limits = { maxLines: 1 + Math.floor(rnd() * 12), maxBytes: 8 + Math.floor(rnd() * 120) };
      let text = '';
      const parts = Math.floor(rnd() * 80);
      for (let i = 0; i < parts; i++) text += PIECES[Math.floor(rnd() * PIECES.length)];
      const bytes = Buffer.from(text);
      const tail = new ByteTail(limits, truncate);
      for (let at = 0; at < bytes.length; ) {
        const size = 1 + Math.floor(rnd() * 9);
        tail.push(Buffer.from(bytes.subarray(at, at + size)));
        at += size;
      }
      const got = tail.snapshot(true);
      const want = truncate.tail(text, limits);
      expect(got, `round ${round}: ${JSON.stringify(text)} ${JSON.stringify(limits)}`).toEqual(want);
      // The last line owns its "\n" when it has one.
      const lines = text.split('\n');
      const lastLine = text.endsWith('\n') ? `${lines[lines.length - 2]}\n` : lines[lines.length - 1]!;
      expect(tail.lastLineBytes).toBe(Buffer.byteLength(lastLine));
    }
  });

  it('a mid-stream snapshot leaves out a character whose bytes are still on their way', () => {
    const tail = new ByteTail({ maxLines: 10, maxBytes: 100 }, truncate);
    tail.push(Buffer.from([0x61, 0xf0, 0x9f]));
    expect(tail.snapshot().content).toBe('a');
    tail.push(Buffer.from([0x98, 0x80]));
    expect(tail.snapshot(true).content).toBe('a😀');
  });

  it('keeps a bounded window for any output size', () => {
    const tail = new ByteTail({ maxLines: 2000, maxBytes: 1000 }, truncate);
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    for (let i = 0; i < 200; i++) tail.push(Buffer.from(chunk));
    const result = tail.snapshot(true);
    expect(result.totalBytes).toBe(200 * 64 * 1024);
    expect(result.lastLinePartial).toBe(true);
    expect(result.content.length).toBe(1000);
  });
});
