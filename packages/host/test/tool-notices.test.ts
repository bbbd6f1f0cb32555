import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { headlessSessions } from './headless-session.js';

/**
 * Issue 11, "Truncation the model can act on": a built-in tool that cut its own output keeps its
 * notice through the whole host (the kernel's backstop does not cut it again), at the line limit
 * and at the byte limit, with the default limits (2,000 lines / 50 KiB).
 */

const BACKSTOP = /tool output is limited to|Full output: .*offset=/;

const sessions = headlessSessions('airlock-notices-');
const world = () => sessions({ allow: ['bash(*)'] });

const numbered = (n: number, width = 0) => Array.from({ length: n }, (_, i) => `line ${i + 1}`.padEnd(width, 'x')).join('\n') + '\n';

describe('a tool that limited its own output keeps its notice (through openHost)', () => {
  it('read at the line limit: 2,000 lines, the true total, and an offset into the real file', async () => {
    const w = await world();
    writeFileSync(join(w.project, 'big.txt'), numbered(2500));
    const r = await w.call('read', { path: 'big.txt' });
    expect(r.outcome).toBe('ok');
    expect(r.text).not.toMatch(BACKSTOP);
    expect(r.text).toBe(`${numbered(2000)}\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]`);
    const next = await w.call('read', { path: 'big.txt', offset: 2001 });
    expect(next.text).toBe(numbered(2500).split('\n').slice(2000).join('\n'));
  });

  it('read at the byte limit: "1-512 of 1000" for a 1,000-line file, not a count of its own output', async () => {
    const w = await world();
    // 100 bytes a line: 512 lines fill the 50 KiB exactly, so the notice is what goes over.
    writeFileSync(join(w.project, 'wide.txt'), numbered(1000, 99));
    const r = await w.call('read', { path: 'wide.txt' });
    expect(r.text).not.toMatch(BACKSTOP);
    expect(r.text).toBe(`${numbered(512, 99)}\n[Showing lines 1-512 of 1000 (50.0KB limit). Use offset=513 to continue.]`);
  });

  it('read with limit=2000 of a longer file keeps "more lines" (the caller\'s limit fills the line limit)', async () => {
    const w = await world();
    writeFileSync(join(w.project, 'big.txt'), numbered(2500));
    const r = await w.call('read', { path: 'big.txt', limit: 2000 });
    expect(r.last).toBe('[500 more lines in file. Use offset=2001 to continue.]');
  });

  it('grep: its match limit notice at 2,000 matches, and the line limit for limit=5000', async () => {
    const w = await world();
    writeFileSync(join(w.project, 'hits.txt'), numbered(2500));
    const capped = await w.call('grep', { pattern: 'line', path: 'hits.txt', limit: 2000 });
    expect(capped.text).not.toMatch(BACKSTOP);
    expect(capped.last).toBe('[2000 matches limit reached. Use limit=4000 for more, or refine the pattern.]');
    expect(capped.text).toContain('hits.txt:2000: line 2000\n\n[');
    const wide = await w.call('grep', { pattern: 'line', path: 'hits.txt', limit: 5000 });
    expect(wide.text).not.toMatch(BACKSTOP);
    expect(wide.last).toBe('[2000-line limit reached: showing 2000 of 2500 lines. Narrow the path, glob or pattern to see the rest.]');
  });

  it('grep at the byte limit names the byte limit and what was shown', async () => {
    const w = await world();
    // Each match line ("w:N: line N…") is 100 bytes: 512 of them fill the 50 KiB exactly.
    const rows = Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`.padEnd(99 - `w:${i + 1}: `.length, 'x'));
    writeFileSync(join(w.project, 'w'), rows.join('\n') + '\n');
    const r = await w.call('grep', { pattern: 'line', path: 'w', limit: 1000 });
    expect(r.text).not.toMatch(BACKSTOP);
    expect(r.last).toBe('[50.0KB limit reached: showing 512 of 1000 lines. Narrow the path, glob or pattern to see the rest.]');
  });

  it('find and ls: the result limit at 2,000, the line limit past it, and the byte limit', async () => {
    const w = await world();
    const many = join(w.project, 'many');
    mkdirSync(many);
    for (let i = 0; i < 2500; i++) writeFileSync(join(many, `f${String(i).padStart(4, '0')}.txt`), '');
    const long = join(w.project, 'long');
    mkdirSync(long);
    // 99-byte names: 512 lines of them fill the 50 KiB exactly.
    for (let i = 0; i < 1000; i++) writeFileSync(join(long, `${String(i).padStart(4, '0')}${'n'.repeat(91)}.txt`), '');

    const found = await w.call('find', { pattern: '*.txt', path: 'many', limit: 2000 });
    expect(found.text).not.toMatch(BACKSTOP);
    expect(found.last).toBe('[2000 results limit reached. Use limit=4000 for more, or refine the pattern.]');
    const foundAll = await w.call('find', { pattern: '*.txt', path: 'many', limit: 5000 });
    expect(foundAll.last).toBe('[2000-line limit reached: showing 2000 of 2500 results. Search a subfolder, or refine the pattern, to see the rest.]');
    const foundWide = await w.call('find', { pattern: '*.txt', path: 'long', limit: 1000 });
    expect(foundWide.text).not.toMatch(BACKSTOP);
    expect(foundWide.last).toMatch(/^\[50\.0KB limit reached: showing \d+ of 1000 results\./);

    const listed = await w.call('ls', { path: 'many', limit: 2000 });
    expect(listed.text).not.toMatch(BACKSTOP);
    expect(listed.last).toBe('[2000 entries limit reached. Use limit=4000 for more.]');
    const listedAll = await w.call('ls', { path: 'many', limit: 5000 });
    expect(listedAll.last).toBe('[2000-line limit reached: showing 2000 of 2500 entries. List a subfolder, or use find with a pattern, to see the rest.]');
    const listedWide = await w.call('ls', { path: 'long', limit: 1000 });
    expect(listedWide.text).not.toMatch(BACKSTOP);
    expect(listedWide.last).toBe('[50.0KB limit reached: showing 512 of 1000 entries. List a subfolder, or use find with a pattern, to see the rest.]');
  });

  it('bash at the line and byte limits: its tail notice with the true totals and a spill file holding everything', async () => {
    const w = await world();
    const lines = await w.call('bash', { command: 'seq 1 100000' });
    expect(lines.text).not.toMatch(BACKSTOP);
    const m = /^\[Showing lines (\d+)-100000 of 100000\. Full output: (\S+)\]$/.exec(lines.last);
    expect(m, lines.last).not.toBeNull();
    expect(lines.text.split('\n')[0]).toBe(m![1]);
    expect(readFileSync(m![2]!, 'utf8')).toBe(Array.from({ length: 100000 }, (_, i) => `${i + 1}\n`).join(''));

    const bytes = await w.call('bash', { command: "for i in $(seq 1 1000); do printf '%0200d\\n' $i; done" });
    expect(bytes.text).not.toMatch(BACKSTOP);
    const b = /^\[Showing lines (\d+)-1000 of 1000 \((\d+\.\dKB) limit\)\. Full output: (\S+)\]$/.exec(bytes.last);
    expect(b, bytes.last).not.toBeNull();
    expect(readFileSync(b![3]!, 'utf8').split('\n')).toHaveLength(1001);
  });
});
