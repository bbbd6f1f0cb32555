import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PHASES } from '../src/index.js';
// @ts-expect-error — a plain .mjs script (it runs under node without a build step of its own); no types.
import { END, HOOKS_DOC, renderPhaseTable, START, withPhaseTable } from '../scripts/phase-table.mjs';

describe('docs/hooks.md shows the phase record', () => {
  it('has the table generated from PHASES (run `pnpm --filter @airlock/kernel docs:phases` after changing a phase)', () => {
    const doc = readFileSync(HOOKS_DOC as string, 'utf8');
    expect(doc).toContain(START);
    expect(doc).toContain(END);
    expect(withPhaseTable(doc, PHASES)).toBe(doc);
  });

  it('renders one row per phase, with what the record says', () => {
    const table = (renderPhaseTable(PHASES) as string).split('\n');
    expect(table).toHaveLength(2 + Object.keys(PHASES).length);
    expect(table[2]).toMatch(/^\| `tool_call:transform` \| 4 \|/);
    expect(table.find((l) => l.startsWith('| `tool_result:redact`'))).toMatch(/^\| `tool_result:redact` \| 7 \|/);
    expect(table.find((l) => l.startsWith('| `tool_call:approve`'))).toMatch(/\| closed \| the call is denied \| none \| yes \| yes \|$/);
    expect(table.find((l) => l.startsWith('| `tool_result:observe`'))).toMatch(/\| open \| the failure is reported \| 10 s \| no \| no \|$/);
  });

  it('a changed record makes the page out of date', () => {
    const doc = readFileSync(HOOKS_DOC as string, 'utf8');
    const changed = { ...PHASES, 'tool_call:observe': { ...PHASES['tool_call:observe'], timeoutMs: 5000 } };
    expect(withPhaseTable(doc, changed)).not.toBe(doc);
  });
});
