import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtFile, makeTempDir, scaledMs } from '@airlock/kernel/testing';

/**
 * Issue 19 §4: two `airlock` processes editing one file lost edits already reported "Replaced"
 * (3 of 4 rounds on a 3.6 MB file): each process's mutation queue orders only its own calls.
 * Here two real processes edit one 3.6 MB file at the same time, each round through a fresh
 * kernel (a fresh session, as a new `airlock` run would be), and every edit reported done must
 * be in the file at the end.
 */

// The child runs the built packages: plain ESM that Node loads at once.
const kernelTesting = builtFile(new URL('../../../../packages/kernel/src/testing/index.ts', import.meta.url));
const editSource = builtFile(new URL('../src/index.ts', import.meta.url));

const ROUNDS = 8;

const EDITOR = `
import { createToolHarness } from ${JSON.stringify(kernelTesting)};
import { editTool } from ${JSON.stringify(editSource)};
const [file, tag, rounds] = process.argv.slice(2);
process.stdout.write('ready\\n');
await new Promise((go) => process.stdin.once('data', go));
for (let i = 0; i < Number(rounds); i++) {
  const h = createToolHarness(editTool);
  const r = await h.call({ path: file, edits: [{ oldText: '<' + tag + i + '>=old', newText: '<' + tag + i + '>=new' }] });
  process.stdout.write(JSON.stringify({ i, outcome: r.outcome, text: h.text(r) }) + '\\n');
  await h.dispose();
}
process.exit(0);
`;

interface Report {
  i: number;
  outcome: string;
  text: string;
}

function editor(dir: string, file: string, tag: string) {
  const child = spawn(process.execPath, [join(dir, 'editor.mjs'), file, tag, String(ROUNDS)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const ready = new Promise<void>((resolve, reject) => {
    const check = () => (out.includes('ready\n') ? resolve() : undefined);
    child.stdout!.on('data', check);
    child.once('exit', (code) => reject(new Error(`editor ${tag} exited early (${code})`)));
  });
  const done = new Promise<Report[]>((resolve) =>
    child.once('exit', () =>
      resolve(
        out
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as Report),
      ),
    ),
  );
  return { child, ready, done };
}

describe('edit: two processes editing one file lose nothing reported done', () => {
  it('every "Replaced" from either process is in the file at the end (3.6 MB file)', async () => {
    const dir = makeTempDir('airlock-edit-two-');
    writeFileSync(join(dir, 'editor.mjs'), EDITOR);
    const file = join(dir, 'big.txt');
    const markers = Array.from({ length: ROUNDS }, (_, i) => `<a${i}>=old\n<b${i}>=old\n`).join('');
    // ~3.6 MB: long enough that reading and writing it takes real time, as in the report.
    writeFileSync(file, `${markers}${'filler line of ordinary text, nothing to see here\n'.repeat(72_000)}`);

    const a = editor(dir, file, 'a');
    const b = editor(dir, file, 'b');
    await Promise.all([a.ready, b.ready]);
    a.child.stdin!.end('go\n');
    b.child.stdin!.end('go\n');
    const reports = { a: await a.done, b: await b.done };

    const final = readFileSync(file, 'utf8');
    const lost: string[] = [];
    let replaced = 0;
    for (const [tag, list] of Object.entries(reports)) {
      expect(list).toHaveLength(ROUNDS);
      for (const r of list) {
        if (r.outcome === 'ok') {
          expect(r.text).toMatch(/^Replaced 1 block/);
          replaced++;
          if (!final.includes(`<${tag}${r.i}>=new`)) lost.push(`${tag}${r.i}`);
        } else {
          // A refusal is fine only if it says the file changed and what to do.
          expect(r.text).toMatch(/changed on disk|is being changed by/);
        }
      }
    }
    expect(lost).toEqual([]);
    // The lock lets both go one after the other: ordinary concurrent work succeeds.
    expect(replaced).toBe(2 * ROUNDS);
    expect(readdirSync(dir).sort()).toEqual(['big.txt', 'editor.mjs']);
  }, scaledMs(120_000));
});
