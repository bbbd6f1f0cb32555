import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { selectLines } from '../src/lines.js';

const dir = mkdtempSync(join(tmpdir(), 'airlock-read-prop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The obvious in-memory model: split into lines (each owning its "\n"), slice, keep within limits. */
function reference(data: Buffer, offset: number, limit: number | undefined, maxLines: number, maxBytes: number) {
  const lines: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < data.length; i++) if (data[i] === 0x0a) (lines.push(data.subarray(start, i + 1)), (start = i + 1));
  if (start < data.length) lines.push(data.subarray(start));
  const total = lines.length;
  if (offset > Math.max(total, 1)) return { offsetBeyondEnd: true, totalLines: total };
  const want = Math.min(limit ?? Number.POSITIVE_INFINITY, maxLines);
  const kept: string[] = [];
  let bytes = 0;
  let stoppedBy: string | null = null;
  let firstLineBytes: number | undefined;
  for (const line of lines.slice(offset - 1)) {
    if (kept.length === want) {
      stoppedBy = kept.length === limit ? 'limit' : 'lines';
      break;
    }
    const text = line.toString('utf8');
    const b = Buffer.byteLength(text);
    if (bytes + b > maxBytes) {
      stoppedBy = kept.length === 0 ? 'first-line-too-long' : 'bytes';
      if (kept.length === 0) firstLineBytes = line.length;
      break;
    }
    kept.push(text);
    bytes += b;
  }
  return { offsetBeyondEnd: false, totalLines: total, text: kept.join(''), outputLines: kept.length, stoppedBy, firstLineBytes };
}

const piece = fc.constantFrom('a', 'bc', '\n', '\n', 'é', '😀', '\r\n', 'xxxxxxxxxx', '\xff');

describe('selectLines matches the in-memory model', () => {
  it('for any content, offset, limits and chunk sizes', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { maxLength: 60 }),
        fc.integer({ min: 1, max: 12 }),
        fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 9 }),
        async (pieces, offset, limit, maxLines, maxBytes, keep, scan) => {
          // '\xff' stands for an invalid UTF-8 byte, written raw.
          const raw = Buffer.concat(pieces.map((p) => (p === '\xff' ? Buffer.from([0xff]) : Buffer.from(p, 'utf8'))));
          const path = join(dir, `f${++n}.txt`);
          writeFileSync(path, raw);
          const fh = await open(path, 'r');
          try {
            const got = await selectLines(fh, {
              offset, limit, maxLines, maxBytes, countBudget: Number.POSITIVE_INFINITY, size: raw.length, chunkBytes: { keep, scan },
            });
            const want = reference(raw, offset, limit, maxLines, maxBytes);
            expect(got.offsetBeyondEnd).toBe(want.offsetBeyondEnd);
            expect(got.totalLines).toBe(want.totalLines);
            if (!want.offsetBeyondEnd) {
              expect(got.text).toBe(want.text);
              expect(got.outputLines).toBe(want.outputLines);
              expect(got.stoppedBy).toBe(want.stoppedBy);
              expect(got.firstLineBytes).toBe(want.firstLineBytes);
              expect(got.outputBytes).toBe(Buffer.byteLength(got.text));
            }
          } finally {
            await fh.close();
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
