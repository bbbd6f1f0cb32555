import { describe, expect, it } from 'vitest';
import { startLoad } from '../../extensions/tools/bash/test/support/output-cases.js';
import { sandbox } from './harness.js';
import { scaledMs } from '@airlock/kernel/testing';

/**
 * Issue 24 §6, the trial's own shape through the real CLI: a batch of 600 calls, bash `echo nN`
 * and `read` alternating. `echo n158` once came back `ok` with "(no output)" on a quiet machine,
 * and under load 3 of the 300 echoes did: every echo's output must be there, and every call `ok`.
 * `AIRLOCK_OUTPUT_LOAD=1` (set by `pnpm bench output`) runs it under load (busy cores).
 *
 * Slower than most tests (600 calls, half of them sandboxed commands): it is the trial's case.
 */
const LOAD = process.env.AIRLOCK_OUTPUT_LOAD === '1';
describe('airlock batch: 600 calls, bash echo and read alternating (issue 24 §6)', () => {
  it(`every echo comes back ok with its output${LOAD ? ', under load' : ''}`, async () => {
    const s = sandbox();
    s.write('project/notes.txt', 'hello\n');
    const calls = Array.from({ length: 600 }, (_, i) =>
      i % 2 === 0 ? { id: `c${i}`, name: 'bash', arguments: { command: `echo n${i}` } } : { id: `c${i}`, name: 'read', arguments: { path: 'notes.txt' } },
    );
    const stop = LOAD ? startLoad({ busyProcesses: 2, stallMs: 0 }) : () => undefined;
    let r: Awaited<ReturnType<typeof s.airlock>>;
    try {
      r = await s.airlock(['--json', 'batch', '-'], { stdin: JSON.stringify(calls) });
    } finally {
      stop();
    }
    expect(r.stderr).not.toContain('Error');
    const messages = JSON.parse(r.stdout) as { toolCallId: string; toolName: string; outcome: string; content: { type: string; text?: string }[] }[];
    expect(messages).toHaveLength(600);
    const wrong = messages.flatMap((m, i) => {
      const text = m.content.map((c) => c.text ?? '').join('');
      const want = i % 2 === 0 ? `n${i}\n` : 'hello\n';
      return m.toolCallId === `c${i}` && m.outcome === 'ok' && text === want ? [] : [`${m.toolCallId} ${m.toolName} ${m.outcome}: ${JSON.stringify(text)}`];
    });
    expect(wrong).toEqual([]);
    expect(r.code).toBe(0);
  }, scaledMs(180_000));
});
