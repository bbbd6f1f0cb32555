// The phase table in docs/hooks.md, rendered from the kernel's phase record (PHASES), so the page
// cannot drift from the code. `node scripts/phase-table.mjs --write` (after `tsc -b`) rewrites the
// page; packages/kernel/test/phase-docs.test.ts fails while the page and the record differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const START = '<!-- phase-table:start (generated from PHASES by packages/kernel/scripts/phase-table.mjs; do not edit) -->';
export const END = '<!-- phase-table:end -->';
export const HOOKS_DOC = fileURLToPath(new URL('../../../docs/hooks.md', import.meta.url));

/**
 * The markdown table of every phase, one row per key of `phases`, in the record's order.
 *
 * @example
 * renderPhaseTable(PHASES).split('\n')[0]; // '| phase | a handler may | and returns | …'
 */
export function renderPhaseTable(phases) {
  const cell = (text) => String(text).replace(/\|/g, '\\|');
  const lines = [
    '| phase | runs in stage | a handler may | and returns | default failure mode | when a handler fails | default time limit | an abort stops the call here | policy phase |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const [key, row] of Object.entries(phases)) {
    const limit = row.timeoutMs === 0 ? 'none' : `${row.timeoutMs / 1000} s`;
    lines.push(`| \`${key}\` | ${row.stage} | ${cell(row.may)} | ${cell(row.returns)} | ${row.failure} | ${cell(row.onFailure)} | ${limit} | ${row.mayAbort ? 'yes' : 'no'} | ${row.policy ? 'yes' : 'no'} |`);
  }
  return lines.join('\n');
}

/** `doc` with the text between the markers replaced by the table; throws when a marker is missing. */
export function withPhaseTable(doc, phases) {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/hooks.md lacks the markers ${START} … ${END}: put them back where the phase table goes`);
  return `${doc.slice(0, start + START.length)}\n${renderPhaseTable(phases)}\n${doc.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { PHASES } = await import('../dist/bus/phases.js');
  const doc = readFileSync(HOOKS_DOC, 'utf8');
  const next = withPhaseTable(doc, PHASES);
  if (!process.argv.includes('--write')) {
    process.stdout.write(next === doc ? 'docs/hooks.md is up to date\n' : 'docs/hooks.md is out of date: run with --write\n');
    process.exitCode = next === doc ? 0 : 1;
  } else if (next !== doc) {
    writeFileSync(HOOKS_DOC, next);
    process.stdout.write('docs/hooks.md: phase table rewritten\n');
  }
}
