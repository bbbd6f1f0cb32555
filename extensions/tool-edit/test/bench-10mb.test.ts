import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestContext } from '@airlock/kernel/testing';
import { editTool } from '../src/index.js';

describe('edit: cost', () => {
  it('a one-line edit in a 10 MB file takes well under a second, the diff built from the edit position', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'airlock-edit-bench-')));
    const lines: string[] = [];
    for (let i = 0; lines.length * 50 < 10 * 1024 * 1024; i++) lines.push(`line ${i} ${'x'.repeat(40)} ${i % 97}`);
    const file = join(dir, 'big.txt');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const mid = Math.floor(lines.length / 2);
    const ctx = createTestContext({ cwd: dir });
    const times: number[] = [];
    for (let round = 0; round < 7; round++) {
      const t0 = performance.now();
      await editTool.execute('t', { path: 'big.txt', edits: [{ oldText: `line ${mid} `, newText: `line ${mid} r${round}-` }] }, undefined, undefined, ctx);
      times.push(performance.now() - t0);
      lines[mid] = lines[mid]!.replace(/^line (\d+) (r\d+-)?/, `line $1 r${round}-`);
      // next round edits the changed line
      lines[mid] = `line ${mid} ${lines[mid]!.slice(`line ${mid} `.length)}`;
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)]!;
    console.log(`edit 10 MB one-line: median ${median.toFixed(1)} ms, min ${times[0]!.toFixed(1)} ms`);
    expect(readFileSync(file, 'utf8')).toContain(`line ${mid} r6-`);
    expect(median).toBeLessThan(400);
  });
});
