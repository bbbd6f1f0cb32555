import { createRequire, syncBuiltinESMExports } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolHarness, makeTempDir } from '@airlock/kernel/testing';
import { createBashTool } from '../src/index.js';
import { allCases, BENCH_ROUNDS, boundaryCases, checkResult, startLoad, type OutputCase } from './support/output-cases.js';
import { pidsRunning } from './support/processes.js';

const ROUNDS = BENCH_ROUNDS ?? 1;
const require = createRequire(import.meta.url);
const childProcess = require('node:child_process') as typeof import('node:child_process');

/**
 * Make every process the tool spawns block the event loop for `ms` right after its `exit` event
 * (after the tool's own listener, before the loop polls again): as a loaded host does when
 * another call's synchronous work runs then. Returns the function that undoes it.
 */
function stallAfterExit(ms: number): () => void {
  const original = childProcess.spawn;
  childProcess.spawn = ((...args: Parameters<typeof original>) => {
    const child = original(...args);
    child.on('exit', () =>
      process.nextTick(() => {
        const until = Date.now() + ms;
        while (Date.now() < until) {
          // blocked
        }
      }),
    );
    return child;
  }) as typeof original;
  syncBuiltinESMExports();
  return () => {
    childProcess.spawn = original;
    syncBuiltinESMExports();
  };
}

let undo: (() => void) | undefined;
afterEach(() => {
  undo?.();
  undo = undefined;
});

function harness() {
  return createToolHarness(createBashTool({ killGraceMs: 300 }));
}

/** Run every case `rounds` times, `parallel` at once; the problems found, in words. */
async function runCases(h: ReturnType<typeof harness>, cases: readonly OutputCase[], rounds: number, parallel: number): Promise<string[]> {
  const queue = Array.from({ length: rounds }, () => cases).flat();
  const problems: string[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < queue.length) {
      const c = queue[next++]!;
      const r = await h.call({ command: c.command });
      const problem = checkResult(c, r.outcome, h.text(r), (path) => readFileSync(path, 'latin1'));
      if (problem !== undefined) problems.push(`${c.command}: ${problem}`);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return problems;
}

describe('bash: every byte a finished command wrote reaches its result (issue 24 §6)', () => {
  it('a stall of the event loop right after the shell exits cuts nothing off', async () => {
    undo = stallAfterExit(500);
    const h = harness();
    // The background writer's bytes arrive 50 ms after the exit, during the stall; the quiet
    // timer (100 ms after the exit) is due when the stall ends, before the loop reads them.
    // (A stall far longer than the writer's delay: on a loaded machine it still writes in time.)
    const r = await h.call({ command: '(sleep 0.05; printf late) & printf early' });
    expect(h.text(r)).toBe('earlylate');
  });

  it('what a leftover writes while it is being ended is kept', async () => {
    const h = harness();
    // Ended with SIGTERM once the output has been quiet, the subshell says so on its way out.
    const r = await h.call({ command: "(trap 'echo term-seen; exit' TERM; sleep 5 & wait) & echo first" });
    expect(r.outcome).toBe('ok');
    expect(h.text(r)).toMatch(/^first\nterm-seen\n\n\[The command left (a process|\d+ processes) running; ended when it finished\./);
  });

  it.skipIf(process.platform !== 'linux')('a process out of reach that holds the output open: the result says the output may be incomplete, never ok', async () => {
    const h = harness();
    // Its own session, no marker in its environment, and its parent gone: the call cannot find it.
    const r = await h.call({ command: '(setsid env -i sleep 7.318 &); echo shown' });
    try {
      expect(r.outcome).toBe('error');
      expect(h.text(r)).toMatch(/^shown\n\n\[The output may be incomplete: .*\]\n\nThe command exited with code 0, but its output could not be collected whole\.$/s);
    } finally {
      for (const pid of pidsRunning(['sleep', '7.318'])) process.kill(pid, 'SIGKILL');
    }
  });

  it("a full-output file cut short by the session's spill budget is said to hold only the beginning", async () => {
    const spillDir = join(makeTempDir('airlock-bash-spill-'), 'spill');
    const h = createToolHarness(createBashTool({ killGraceMs: 300 }), { spill: { dir: spillDir, budgetBytes: 60_000 } });
    const r = await h.call({ command: 'yes abcdefghijklmno | head -c 100000' });
    expect(r.outcome).toBe('ok');
    expect(h.text(r)).toMatch(/Full output: \S+\]\n\n\[The full-output file holds only the beginning of the output: the session's spill budget ran out\.\]$/);
    expect((r.details as { fullOutputCapped?: boolean }).fullOutputCapped).toBe(true);
  });

  it('generated outputs arrive whole and byte-exact, on a quiet machine', async () => {
    const h = harness();
    expect(await runCases(h, allCases(), ROUNDS, 8)).toEqual([]);
  }, 60_000 * ROUNDS);

  it('generated outputs arrive whole and byte-exact under load (busy cores, event-loop stalls)', async () => {
    const h = harness();
    undo = startLoad();
    // In CI the boundary sizes only: the stalls make every call slow (`pnpm bench output` runs them all).
    expect(await runCases(h, BENCH_ROUNDS === undefined ? boundaryCases() : allCases(), ROUNDS, 8)).toEqual([]);
  }, 60_000 * ROUNDS);
});
