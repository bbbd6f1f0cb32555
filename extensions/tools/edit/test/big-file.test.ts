import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestContext, makeTempDir } from '@airlock/kernel/testing';
import { editTool } from '../src/index.js';

// Speed is measured in bench/, never asserted here; this checks what a big file must get right.
describe('edit: a 10 MB file', () => {
  it('repeated one-line edits land exactly, leave every other byte alone, and report a small patch', async () => {
    const dir = makeTempDir('airlock-edit-big-');
    const lines: string[] = [];
    for (let i = 0; lines.length * 50 < 10 * 1024 * 1024; i++) lines.push(`line ${i} ${'x'.repeat(40)} ${i % 97}`);
    const file = join(dir, 'big.txt');
    const original = `${lines.join('\n')}\n`;
    writeFileSync(file, original);
    const mid = Math.floor(lines.length / 2);
    const ctx = createTestContext({ cwd: dir });
    for (let round = 0; round < 3; round++) {
      const result = await editTool.execute('t', { path: 'big.txt', edits: [{ oldText: `line ${mid} `, newText: `line ${mid} r${round}-` }] }, undefined, undefined, ctx);
      const details = result.details as { diff: string; firstChangedLine: number };
      expect(details.firstChangedLine).toBe(mid + 1);
      expect(details.diff.length).toBeLessThan(2000);
    }
    const expected = original.replace(`line ${mid} `, `line ${mid} r2-r1-r0-`);
    expect(readFileSync(file, 'utf8') === expected).toBe(true);
  });
});
