import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TruncationLimits } from '@airlock/contract';
import {
  DEFAULT_LIMITS,
  countLines,
  firstLineBytes,
  formatSize,
  lastLineBytes,
  resolveLimits,
  truncateHead,
  truncateTail,
  utf8ByteLength,
  utf8PrefixWithin,
} from '../../src/output/truncate.js';
import { createTruncationService } from '../../src/output/truncation-service.js';

// Buffer.byteLength is the independent oracle: it also encodes a lone surrogate as U+FFFD (3 bytes).
const bytesOf = (text: string): number => Buffer.byteLength(text, 'utf8');

/** Lines as the model defines them: each with its "\n", the last one possibly without. */
const linesOf = (text: string): string[] => text.match(/[^\n]*\n|[^\n]+$/g) ?? [];

/** Straightforward reference implementations, written from the rules, not from the code. */
function referenceHead(text: string, { maxLines, maxBytes }: TruncationLimits): string {
  const lines = linesOf(text);
  if (lines.length <= maxLines && bytesOf(text) <= maxBytes) return text;
  let kept = '';
  for (const [index, line] of lines.entries()) {
    if (index === maxLines || bytesOf(kept + line) > maxBytes) break;
    kept += line;
  }
  return kept;
}

function referenceTail(text: string, { maxLines, maxBytes }: TruncationLimits): string {
  const lines = linesOf(text);
  if (lines.length <= maxLines && bytesOf(text) <= maxBytes) return text;
  let kept = '';
  for (let count = 0; count < maxLines && count < lines.length; count++) {
    const line = lines[lines.length - 1 - count] ?? '';
    if (bytesOf(line + kept) > maxBytes) {
      if (count > 0) break;
      // The last line alone is too big: its last code points that fit.
      let partial = '';
      for (const char of Array.from(line).reverse()) {
        if (bytesOf(char + partial) > maxBytes) break;
        partial = char + partial;
      }
      return partial;
    }
    kept = line + kept;
  }
  return kept;
}

const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;
const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const wellFormed = (text: string): boolean => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);

/** Text rich in what breaks truncation: newlines, empty lines, 1-4 byte characters, lone surrogates. */
const piece = fc.oneof(
  fc.constantFrom('a', 'bc', '\n', '\n\n', 'é', '€', '😀', ' ', '\r\n', '\ud83d', '\ude00'),
  fc.string({ unit: 'binary', maxLength: 4 }),
);
const textArb = fc.array(piece, { maxLength: 120 }).map((pieces) => pieces.join(''));
const wellFormedTextArb = textArb.filter(wellFormed);
const limitsArb = fc.record({ maxLines: fc.integer({ min: 1, max: 12 }), maxBytes: fc.integer({ min: 1, max: 80 }) });

describe('utf8ByteLength', () => {
  it('counts 1 to 4 bytes per character and 3 for a lone surrogate', () => {
    expect(utf8ByteLength('')).toBe(0);
    expect(utf8ByteLength('a')).toBe(1);
    expect(utf8ByteLength('é')).toBe(2);
    expect(utf8ByteLength('€')).toBe(3);
    expect(utf8ByteLength('😀')).toBe(4);
    expect(utf8ByteLength('\ud83d')).toBe(3);
    expect(utf8ByteLength('\ude00\ud83d')).toBe(6);
  });

  it('does not split a pair where long input is encoded piecewise', () => {
    for (const offset of [65534, 65535, 65536, 65537]) {
      const text = `${'a'.repeat(offset)}😀${'é'.repeat(70000)}\ud83d`;
      expect(utf8ByteLength(text)).toBe(bytesOf(text));
    }
  });

  it('equals the UTF-8 encoding size for any string', () => {
    fc.assert(fc.property(textArb, (text) => utf8ByteLength(text) === bytesOf(text)));
    fc.assert(
      fc.property(textArb, fc.integer({ min: 1, max: 400 }), (text, times) => {
        const long = text.repeat(times);
        return utf8ByteLength(long) === bytesOf(long);
      }),
      { numRuns: 50 },
    );
  });
});

describe('utf8PrefixWithin', () => {
  it('finds the longest whole-character prefix within a byte budget', () => {
    expect(utf8PrefixWithin('é😀a', 0, 5)).toEqual({ end: 1, bytes: 2 });
    expect(utf8PrefixWithin('é😀a', 0, 6)).toEqual({ end: 3, bytes: 6 });
    expect(utf8PrefixWithin('é😀a', 1, 100)).toEqual({ end: 4, bytes: 5 });
    expect(utf8PrefixWithin('abc', 0, 0)).toEqual({ end: 0, bytes: 0 });
  });

  it('is maximal and never ends inside a pair, also across its internal steps', () => {
    fc.assert(
      fc.property(textArb, fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 400_000 }), (text, times, budget) => {
        const long = `${'a'.repeat(65535)}${text.repeat(times)}`;
        const { end, bytes } = utf8PrefixWithin(long, 0, budget);
        expect(bytes).toBe(bytesOf(long.slice(0, end)));
        expect(bytes).toBeLessThanOrEqual(budget);
        expect(isHigh(long.charCodeAt(end - 1)) && isLow(long.charCodeAt(end))).toBe(false);
        if (end < long.length) {
          const next = isHigh(long.charCodeAt(end)) && isLow(long.charCodeAt(end + 1)) ? 2 : 1;
          expect(bytesOf(long.slice(0, end + next))).toBeGreaterThan(budget);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('countLines', () => {
  it('does not count a trailing newline as a line', () => {
    expect(countLines('')).toBe(0);
    expect(countLines('a')).toBe(1);
    expect(countLines('a\n')).toBe(1);
    expect(countLines('\n')).toBe(1);
    expect(countLines('a\n\n')).toBe(2);
    expect(countLines('a\nb')).toBe(2);
    expect(countLines('a\r\nb\r\n')).toBe(2);
  });

  it('agrees with the line model', () => {
    fc.assert(fc.property(textArb, (text) => countLines(text) === linesOf(text).length));
  });
});

describe('formatSize', () => {
  it('uses B below 1 KiB, then one decimal of KB or MB', () => {
    expect(formatSize(0)).toBe('0B');
    expect(formatSize(1023)).toBe('1023B');
    expect(formatSize(1024)).toBe('1.0KB');
    expect(formatSize(51200)).toBe('50.0KB');
    expect(formatSize(60000)).toBe('58.6KB');
    expect(formatSize(1024 * 1024 - 1)).toBe('1024.0KB');
    expect(formatSize(1024 * 1024)).toBe('1.0MB');
    expect(formatSize(1.2 * 1024 * 1024)).toBe('1.2MB');
  });
});

describe('resolveLimits', () => {
  it('fills defaults and keeps overrides', () => {
    expect(resolveLimits()).toEqual({ maxLines: 2000, maxBytes: 51200 });
    expect(resolveLimits({ maxLines: 5 })).toEqual({ maxLines: 5, maxBytes: 51200 });
    expect(resolveLimits({ maxBytes: 9 }, { maxLines: 3, maxBytes: 4 })).toEqual({ maxLines: 3, maxBytes: 9 });
    expect(resolveLimits({ maxLines: undefined }, { maxLines: 3, maxBytes: 4 })).toEqual({ maxLines: 3, maxBytes: 4 });
  });

  it('rejects limits that cannot be honoured', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => resolveLimits({ maxLines: bad })).toThrow(/maxLines must be a whole number/);
      expect(() => truncateTail('x', { maxBytes: bad })).toThrow(/maxBytes must be a whole number/);
    }
  });
});

describe('truncateHead', () => {
  const numbered = (count: number): string => Array.from({ length: count }, (_, i) => `line ${i + 1}\n`).join('');

  it('keeps 2,000 of 2,500 lines', () => {
    const result = truncateHead(numbered(2500));
    expect(result).toMatchObject({
      truncated: true,
      truncatedBy: 'lines',
      totalLines: 2500,
      outputLines: 2000,
      firstLineExceedsLimit: false,
      lastLinePartial: false,
      maxLines: 2000,
      maxBytes: 51200,
    });
    expect(result.content).toBe(numbered(2000));
    expect(result.outputBytes).toBe(bytesOf(numbered(2000)));
  });

  it('stops at the byte limit on a whole line', () => {
    const line = `${'x'.repeat(49)}\n`;
    const result = truncateHead(line.repeat(100001));
    expect(result).toMatchObject({ truncatedBy: 'bytes', totalLines: 100001, outputLines: 1024, outputBytes: 51200 });
    expect(result.totalBytes).toBe(5000050);
    expect(result.content).toBe(line.repeat(1024));
  });

  it('does not truncate 2,000 lines with a trailing newline', () => {
    const text = numbered(2000);
    expect(text.endsWith('\n')).toBe(true);
    expect(truncateHead(text)).toMatchObject({ truncated: false, truncatedBy: null, totalLines: 2000, content: text });
    expect(truncateTail(text)).toMatchObject({ truncated: false, totalLines: 2000, content: text });
  });

  it('treats exactly maxBytes as fitting and one byte more as not', () => {
    const exact = `${'x'.repeat(49)}\n`.repeat(1024);
    expect(bytesOf(exact)).toBe(DEFAULT_LIMITS.maxBytes);
    expect(truncateHead(exact).truncated).toBe(false);
    const over = `${exact}y`;
    expect(truncateHead(over)).toMatchObject({ truncated: true, truncatedBy: 'bytes', outputLines: 1024, content: exact });
    expect(truncateHead(numbered(2001))).toMatchObject({ truncatedBy: 'lines', outputLines: 2000 });
  });

  it('flags a first line larger than the limit and keeps nothing', () => {
    const text = `${'x'.repeat(60000)}\nshort\n`;
    const result = truncateHead(text);
    expect(result).toMatchObject({
      content: '',
      truncated: true,
      truncatedBy: 'bytes',
      firstLineExceedsLimit: true,
      outputLines: 0,
      outputBytes: 0,
      totalLines: 2,
    });
    expect(firstLineBytes(text)).toBe(60001);
  });

  it('returns empty input untouched', () => {
    expect(truncateHead('')).toMatchObject({ content: '', truncated: false, totalLines: 0, totalBytes: 0, outputLines: 0 });
  });

  it('counts multi-byte characters in bytes, not code units', () => {
    const result = truncateHead('éé\n😀\nz', { maxBytes: 10 });
    expect(result).toMatchObject({ content: 'éé\n😀\n', outputBytes: 10, outputLines: 2, truncatedBy: 'bytes' });
  });

  it('keeps within both limits, whole lines only, and matches the reference', () => {
    fc.assert(
      fc.property(textArb, limitsArb, (text, limits) => {
        const result = truncateHead(text, limits);
        const { content } = result;
        expect(content).toBe(referenceHead(text, limits));
        expect(text.startsWith(content)).toBe(true);
        expect(bytesOf(content)).toBe(result.outputBytes);
        expect(countLines(content)).toBe(result.outputLines);
        expect(result.outputBytes).toBeLessThanOrEqual(limits.maxBytes);
        expect(result.outputLines).toBeLessThanOrEqual(limits.maxLines);
        expect(result.totalBytes).toBe(bytesOf(text));
        expect(result.totalLines).toBe(countLines(text));
        expect(result.truncated).toBe(content !== text);
        expect(result.lastLinePartial).toBe(false);
        expect(result.firstLineExceedsLimit).toBe(result.truncated && content === '');
        if (result.truncated) {
          // Cut right after a newline: whole lines, never half of one.
          expect(content === '' || content.endsWith('\n')).toBe(true);
          const nextEnd = text.indexOf('\n', content.length);
          const withNext = text.slice(0, nextEnd === -1 ? text.length : nextEnd + 1);
          const why = result.outputLines === limits.maxLines ? 'lines' : 'bytes';
          expect(result.truncatedBy).toBe(why);
          if (why === 'bytes') expect(bytesOf(withNext)).toBeGreaterThan(limits.maxBytes);
        } else {
          expect(result.truncatedBy).toBeNull();
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('truncateTail', () => {
  it('keeps the last 2,000 of 2,500 lines', () => {
    const lines = Array.from({ length: 2500 }, (_, i) => `${i + 1}`);
    const result = truncateTail(`${lines.join('\n')}\n`);
    expect(result).toMatchObject({ truncatedBy: 'lines', totalLines: 2500, outputLines: 2000, lastLinePartial: false });
    expect(result.content).toBe(`${lines.slice(500).join('\n')}\n`);
  });

  it('keeps the end of a single oversized last line without a trailing newline', () => {
    const text = `head\n${'é'.repeat(30000)}`;
    const result = truncateTail(text);
    expect(result).toMatchObject({
      truncatedBy: 'bytes',
      lastLinePartial: true,
      outputLines: 1,
      outputBytes: 51200,
      totalLines: 2,
      totalBytes: 60005,
    });
    expect(result.content).toBe('é'.repeat(25600));
    expect(lastLineBytes(text)).toBe(60000);
  });

  it('keeps the end of a single oversized last line with a trailing newline, on a character boundary', () => {
    const result = truncateTail(`${'é'.repeat(30000)}\n`);
    // 51200 bytes would start inside an "é", so one byte less is kept.
    expect(result).toMatchObject({ lastLinePartial: true, outputBytes: 51199, outputLines: 1, totalLines: 1 });
    expect(result.content).toBe(`${'é'.repeat(25599)}\n`);
  });

  it('never keeps half of a surrogate pair', () => {
    const result = truncateTail('x😀😀😀', { maxBytes: 10 });
    expect(result).toMatchObject({ content: '😀😀', outputBytes: 8, lastLinePartial: true });
    const emoji = truncateTail('😀'.repeat(20000));
    expect(emoji.content).toBe('😀'.repeat(12800));
    expect(wellFormed(truncateTail(`a${'😀'.repeat(20000)}`, { maxBytes: 51199 }).content)).toBe(true);
  });

  it('keeps whole lines when the last line fits but an earlier one does not', () => {
    const result = truncateTail(`${'x'.repeat(100)}\nend\n`, { maxBytes: 50 });
    expect(result).toMatchObject({ content: 'end\n', lastLinePartial: false, truncatedBy: 'bytes', outputLines: 1 });
  });

  it('returns empty input untouched', () => {
    expect(truncateTail('')).toMatchObject({ content: '', truncated: false, totalLines: 0, outputBytes: 0 });
  });

  it('keeps within both limits, is a suffix at a line or character boundary, and matches the reference', () => {
    fc.assert(
      fc.property(textArb, limitsArb, (text, limits) => {
        const result = truncateTail(text, limits);
        const { content } = result;
        const cut = text.length - content.length;
        expect(content).toBe(referenceTail(text, limits));
        expect(text.endsWith(content)).toBe(true);
        expect(bytesOf(content)).toBe(result.outputBytes);
        expect(countLines(content)).toBe(result.outputLines);
        expect(result.outputBytes).toBeLessThanOrEqual(limits.maxBytes);
        expect(result.outputLines).toBeLessThanOrEqual(limits.maxLines);
        expect(result.totalBytes).toBe(bytesOf(text));
        expect(result.totalLines).toBe(countLines(text));
        expect(result.truncated).toBe(content !== text);
        expect(result.firstLineExceedsLimit).toBe(false);
        if (result.lastLinePartial) {
          // Inside the last line, never between the halves of a pair.
          expect(text.slice(cut, -1).includes('\n')).toBe(false);
          expect(isLow(text.charCodeAt(cut)) && isHigh(text.charCodeAt(cut - 1))).toBe(false);
          expect(result.truncatedBy).toBe('bytes');
        } else {
          expect(cut === 0 || text[cut - 1] === '\n').toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('keeps well-formed text well-formed', () => {
    fc.assert(
      fc.property(wellFormedTextArb, limitsArb, (text, limits) => {
        const tail = truncateTail(text, limits).content;
        const head = truncateHead(text, limits).content;
        return wellFormed(tail) && wellFormed(head);
      }),
    );
  });
});

describe('createTruncationService', () => {
  it('binds the session limits and lets a call override either one', () => {
    const service = createTruncationService({ maxLines: 3, maxBytes: 100 });
    const text = 'a\nb\nc\nd\ne\n';
    expect(service.head(text)).toMatchObject({ content: 'a\nb\nc\n', maxLines: 3, maxBytes: 100 });
    expect(service.tail(text, { maxLines: 2 })).toMatchObject({ content: 'd\ne\n', maxLines: 2, maxBytes: 100 });
    expect(service.head(text, { maxBytes: 4 })).toMatchObject({ content: 'a\nb\n', maxLines: 3, maxBytes: 4 });
    expect(service.head(text, { maxLines: undefined }).maxLines).toBe(3);
    const stream = service.stream({ maxBytes: 4 });
    stream.push(text);
    expect(stream.end()).toEqual(truncateTail(text, { maxLines: 3, maxBytes: 4 }));
  });

  it('defaults to 2,000 lines and 50 KiB, and rejects bad limits up front', () => {
    expect(createTruncationService().head('x')).toMatchObject({ maxLines: 2000, maxBytes: 51200 });
    expect(() => createTruncationService({ maxBytes: 0 })).toThrow(/maxBytes/);
    expect(() => createTruncationService().tail('x', { maxLines: -2 })).toThrow(/maxLines/);
  });
});
