import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catastrophicPatterns, createToolHarness, makeTempDir, scaledMs } from '@airlock/kernel/testing';
import { createGrepTool, findRipgrep } from '../src/index.js';

/**
 * Issue 24 §3: grep's pattern and glob are the model's text. The Node engine matches both in
 * linear time, so a pattern or glob that makes a backtracking engine run for ever answers at
 * once, with the lines rg finds (rg's engine is linear too) and JavaScript's answer on each line
 * it can decide quickly. No timed assertion: the test's timeout is the bound.
 */

async function grep(cwd: string, args: Record<string, unknown>, engine: 'node' | 'rg') {
  await using h = createToolHarness(createGrepTool({ engine }), { cwd });
  const msg = await h.call(args);
  return { outcome: msg.outcome, text: h.text(msg) };
}

describe('grep: catastrophic patterns and globs answer, with the lines rg and JavaScript agree on', () => {
  it('every generated pattern, on a file of its evil line and its short lines', async () => {
    for (const c of catastrophicPatterns()) {
      const dir = makeTempDir('airlock-grep-redos-');
      const lines = [...c.short, c.evil].join('\n').split('\n');
      writeFileSync(join(dir, 'f.txt'), `${lines.join('\n')}\n`);
      // The reference: JavaScript on each short line (the long one is rg's to judge, below).
      const native = new RegExp(c.pattern, 'u');
      const numbered = lines.map((line, i) => ({ line, n: i + 1 }));
      const long = new Set(numbered.filter((l) => l.line.length > 1000).map((l) => l.n));
      const expected = numbered.filter((l) => !long.has(l.n) && native.test(l.line)).map((l) => l.n);
      const node = await grep(dir, { pattern: c.pattern, limit: 1000 }, 'node');
      expect(node.outcome, c.pattern).toBe('ok');
      const found = node.text.split('\n').flatMap((l) => /^f\.txt:(\d+): /.exec(l)?.[1] ?? []).map(Number);
      expect(found.filter((n) => !long.has(n)), c.pattern).toEqual(expected);
      if (findRipgrep()) expect((await grep(dir, { pattern: c.pattern, limit: 1000 }, 'rg')).text, c.pattern).toBe(node.text);
    }
  }, scaledMs(120_000));

  it('a glob of many stars over long names answers, and finds what it should', async () => {
    const dir = makeTempDir('airlock-grep-glob-');
    const long = `${'a'.repeat(200)}.txt`;
    mkdirSync(join(dir, 'd'));
    writeFileSync(join(dir, 'd', long), 'hit\n');
    writeFileSync(join(dir, 'd', 'ab.txt'), 'hit\n');
    for (const [glob, want] of [
      [`${'*a'.repeat(12)}*b`, []],
      [`${'*a'.repeat(12)}*.txt`, [`d/${long}`]],
      ['d/**/*a*a*a*a*a*a*a*a*a*a*a*.txt', [`d/${long}`]],
      ['*b.txt', ['d/ab.txt']],
    ] as const) {
      const r = await grep(dir, { pattern: 'hit', glob }, 'node');
      expect(r.text.split('\n').filter((l) => l.includes(':1:')).map((l) => l.split(':')[0]), glob).toEqual(want);
      if (findRipgrep()) expect((await grep(dir, { pattern: 'hit', glob }, 'rg')).text, glob).toBe(r.text);
    }
  }, scaledMs(60_000));

  it('refuses a lookaround or a backreference by name, on both engines, before reading anything', async () => {
    const dir = makeTempDir('airlock-grep-look-');
    writeFileSync(join(dir, 'f.txt'), 'aa\n');
    for (const engine of findRipgrep() ? (['node', 'rg'] as const) : (['node'] as const)) {
      const r = await grep(dir, { pattern: '(a)\\1' }, engine);
      expect(r.outcome).toBe('error');
      expect(r.text).toContain('Invalid regular expression "(a)\\\\1": it uses a backreference "\\1"; grep matches in linear time');
    }
  });
});
