import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * A test's time limit is there to turn a hang into a failure; it scales with the machine's load
 * (scaledMs), or the test waits on an event instead. A bare number fails on a busy machine (under
 * a load of 13 the suite once had 34 such failures) while proving nothing about speed, which is
 * what the benchmarks under bench/ measure. This reads every test file for the forms a bare limit
 * takes, so a new one is caught where it is written.
 */

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

function testFiles(): string[] {
  const found: string[] = [];
  const visit = (dir: string, inTests: boolean): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path, inTests || entry.name === 'test');
      else if (inTests && entry.name.endsWith('.ts')) found.push(path);
    }
  };
  for (const top of ['packages', 'extensions', 'examples', 'test']) visit(join(ROOT, top), top === 'test');
  // This file's own samples are bare on purpose.
  return found.filter((file) => file !== fileURLToPath(import.meta.url));
}

/** The line on which the `{` closed by the `}` at `at` opened (strings and comments are not skipped: good enough for test files). */
function openerLine(text: string, at: number): string {
  let depth = 0;
  for (let i = at; i >= 0; i--) {
    if (text[i] === '}') depth++;
    else if (text[i] === '{' && --depth === 0) return text.slice(text.lastIndexOf('\n', i) + 1, text.indexOf('\n', i));
  }
  return '';
}

/** Every bare time limit in one file's text, as `line: what`. */
export function bareTimeLimits(text: string): string[] {
  const found: string[] = [];
  const lineOf = (index: number) => text.slice(0, index).split('\n').length;
  const NUMBER = String.raw`\d[\d_]*`;
  for (const m of text.matchAll(new RegExp(String.raw`testTimeout: ${NUMBER}`, 'g'))) found.push(`${lineOf(m.index)}: vitest testTimeout`);
  // `{ timeout: 30_000 }`: a test's or describe's options, expect.poll, vi.waitFor, execFile.
  for (const m of text.matchAll(new RegExp(String.raw`\{ timeout: ${NUMBER} \}`, 'g'))) found.push(`${lineOf(m.index)}: { timeout: n }`);
  // `}, 30_000);` closing it(), test() or describe(): the limit given as the last argument.
  for (const m of text.matchAll(new RegExp(String.raw`\}, ${NUMBER}\);`, 'g'))) {
    if (/\b(it|test|describe)(\.\w+)*\(/.test(openerLine(text, m.index))) found.push(`${lineOf(m.index)}: a test's limit as its last argument`);
  }
  // expect(Date.now() - started).toBeLessThan(5000): an upper bound on elapsed time.
  for (const m of text.matchAll(new RegExp(String.raw`now\(\)[^\n;]*\)\.toBeLessThan(OrEqual)?\(\s*${NUMBER}\s*\)`, 'g'))) found.push(`${lineOf(m.index)}: an elapsed-time upper bound`);
  return found;
}

describe('test time limits scale with the load', () => {
  it('finds each form of a bare limit (so the check below can fail)', () => {
    const sample = [
      "vi.setConfig({ testTimeout: 90_000 });",
      "it('a', { timeout: 60_000 }, async () => {});",
      "it('b', async () => {",
      "  await x();",
      "}, 30_000);",
      "setTimeout(() => {",
      "  done();",
      "}, 50);",
      "expect(Date.now() - started).toBeLessThan(5_000);",
      "expect(Date.now() - started).toBeLessThan(scaledMs(5_000, { below: 30_000 }));",
      "it('c', { timeout: scaledMs(60_000) }, async () => {});",
    ].join('\n');
    expect(bareTimeLimits(sample)).toEqual([
      '1: vitest testTimeout',
      '2: { timeout: n }',
      "5: a test's limit as its last argument",
      '9: an elapsed-time upper bound',
    ]);
  });

  it('no test file has one: each uses scaledMs (from @airlock/kernel/testing) or waits on an event', () => {
    const bare = testFiles().flatMap((file) => bareTimeLimits(readFileSync(file, 'utf8')).map((where) => `${relative(ROOT, file)}:${where}`));
    expect(bare, 'wrap the number in scaledMs(n), or scaledMs(n, { below: hangMs }) when it must stay under the hang it tells apart').toEqual([]);
  });
});
