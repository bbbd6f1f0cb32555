import { describe, expect, it } from 'vitest';
import {
  appendNotice,
  headNotice,
  lineTooLongNotice,
  moreLinesNotice,
  tailNotice,
  truncationNotice,
} from '../../src/output/notice.js';
import { firstLineBytes, lastLineBytes, truncateHead, truncateTail } from '../../src/output/truncate.js';

const numbered = (count: number): string => Array.from({ length: count }, (_, i) => `line ${i + 1}\n`).join('');
const fixedLines = (count: number): string => `${'x'.repeat(49)}\n`.repeat(count);

describe('headNotice', () => {
  it('says nothing when nothing was cut', () => {
    expect(headNotice(truncateHead(numbered(10)), { offsetParam: 'offset' })).toBeUndefined();
  });

  it('points read at the next offset after a line cut', () => {
    expect(headNotice(truncateHead(numbered(2500)), { offsetParam: 'offset' })).toBe(
      '[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]',
    );
  });

  it('names the byte limit when bytes cut first', () => {
    expect(headNotice(truncateHead(fixedLines(100001)), { offsetParam: 'offset' })).toBe(
      '[Showing lines 1-1024 of 100001 (50.0KB limit). Use offset=1025 to continue.]',
    );
  });

  it('counts from the start line of a read with an offset, against the whole file', () => {
    const slice = numbered(3000).split('\n').slice(99).join('\n'); // lines 100-3000 of a 3000-line file
    expect(headNotice(truncateHead(slice), { startLine: 100, offsetParam: 'offset' })).toBe(
      '[Showing lines 100-2099 of 3000. Use offset=2100 to continue.]',
    );
    expect(headNotice(truncateHead(numbered(2500)), { startLine: 101, totalLines: 9000, offsetParam: 'offset' })).toBe(
      '[Showing lines 101-2100 of 9000. Use offset=2101 to continue.]',
    );
  });

  it('gives the spill path to a generic caller, or just the counts without one', () => {
    const result = truncateHead(numbered(2500));
    expect(headNotice(result, { fullOutputPath: '/tmp/s/out.txt' })).toBe(
      '[Showing lines 1-2000 of 2500. Full output: /tmp/s/out.txt]',
    );
    expect(headNotice(result)).toBe('[Showing lines 1-2000 of 2500.]');
  });

  it('diagnoses a first line too long to show', () => {
    const text = `${'x'.repeat(60000)}\nnext\n`;
    const result = truncateHead(text);
    expect(headNotice(result, { offsetParam: 'offset', sourcePath: 'dist/app.min.js', lineBytes: firstLineBytes(text) })).toBe(
      "[Line 1 is 58.6KB, exceeds the 50.0KB limit. See its start with bash: sed -n '1p' dist/app.min.js | head -c 51200]",
    );
    expect(headNotice(result, { startLine: 7, fullOutputPath: '/tmp/my dir/it\'s.txt' })).toBe(
      "[Line 7 exceeds the 50.0KB limit. See its start with bash: sed -n '7p' '/tmp/my dir/it'\\''s.txt' | head -c 51200]",
    );
    expect(headNotice(result)).toBe('[Line 1 exceeds the 50.0KB limit, so it is not shown.]');
  });
});

describe('tailNotice', () => {
  it('says nothing when nothing was cut', () => {
    expect(tailNotice(truncateTail('ok\n'), { fullOutputPath: '/x' })).toBeUndefined();
  });

  it('shows the kept line range and the full output path', () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `${i + 1}`).join('\n');
    expect(tailNotice(truncateTail(lines), { fullOutputPath: '/tmp/s/bash.log' })).toBe(
      '[Showing lines 1001-3000 of 3000. Full output: /tmp/s/bash.log]',
    );
    expect(tailNotice(truncateTail(fixedLines(2000)), { fullOutputPath: '/tmp/s/bash.log' })).toBe(
      '[Showing lines 977-2000 of 2000 (50.0KB limit). Full output: /tmp/s/bash.log]',
    );
  });

  it('describes a partial last line with its real size', () => {
    const text = `start\n${'y'.repeat(1.2 * 1024 * 1024)}`;
    const result = truncateTail(text);
    expect(tailNotice(result, { fullOutputPath: '/tmp/s/bash.log', lineBytes: lastLineBytes(text) })).toBe(
      '[Showing last 50.0KB of line 2 (line is 1.2MB). Full output: /tmp/s/bash.log]',
    );
    expect(tailNotice(result)).toBe('[Showing last 50.0KB of line 2.]');
  });
});

describe('truncationNotice', () => {
  it('dispatches on the mode the caller applied', () => {
    const text = numbered(2500);
    expect(truncationNotice('head', truncateHead(text), { fullOutputPath: '/p' })).toBe(
      '[Showing lines 1-2000 of 2500. Full output: /p]',
    );
    expect(truncationNotice('tail', truncateTail(text), { fullOutputPath: '/p' })).toBe(
      '[Showing lines 501-2500 of 2500. Full output: /p]',
    );
  });
});

describe('lineTooLongNotice and moreLinesNotice', () => {
  it('word the read-specific cases', () => {
    expect(lineTooLongNotice(12, 1024, { lineBytes: 4096, sourcePath: 'a.txt' })).toBe(
      "[Line 12 is 4.0KB, exceeds the 1.0KB limit. See its start with bash: sed -n '12p' a.txt | head -c 1024]",
    );
    expect(moreLinesNotice(90, 11)).toBe('[90 more lines in file. Use offset=11 to continue.]');
    expect(moreLinesNotice(1, 5, 'start')).toBe('[1 more line in file. Use start=5 to continue.]');
    // A file too large to count its lines (read's case, once read's own copy of this notice).
    expect(moreLinesNotice(undefined, 2001)).toBe('[More lines in file. Use offset=2001 to continue.]');
  });
});

describe('appendNotice', () => {
  it('separates content and notice by exactly one blank line', () => {
    expect(appendNotice('a\nb\n', '[n]')).toBe('a\nb\n\n[n]');
    expect(appendNotice('a\nb', '[n]')).toBe('a\nb\n\n[n]');
    expect(appendNotice('a\n\n', '[n]')).toBe('a\n\n\n[n]');
    expect(appendNotice('', '[n]')).toBe('[n]');
    expect(appendNotice('a\n', undefined)).toBe('a\n');
  });
});
