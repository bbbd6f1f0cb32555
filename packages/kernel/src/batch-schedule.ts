import type { ToolResultMessage } from '@airlock/contract';
import { type Access, accessOf, changesFiles, conflicts } from './call/access.js';
import { recheck } from './call/recheck.js';
import { type CallState, isStopped } from './state/call-state.js';
import { finish, type KernelRuntime, type RunContext, runPrepared } from './run-tool-call.js';

/** A preflighted call and its place in the batch. */
export interface Prepared {
  index: number;
  state: CallState;
}

interface Entry {
  readonly index: number;
  readonly state: CallState;
  access: Access;
  phase: 'waiting' | 'rechecking' | 'running' | 'done';
  /** Earlier calls of the batch, not done yet, that this one must follow (they conflict with it). */
  readonly after: Set<Entry>;
  /** Later calls that follow this one. */
  readonly before: Set<Entry>;
  /** A re-check changed what this call touches: a later call it now conflicts with may be running. */
  moved: boolean;
  /** A call that changed files this one touches finished after it was judged: judge it again first. */
  stale: CallState | undefined;
}

/**
 * Run the preflighted calls of a batch in which some call may change files, ordered by what they
 * touch (see call/access.ts), at most `limit` at once.
 *
 * - Two calls that conflict — one writes a file the other reads or writes, or either is a barrier
 *   (it declares no resources, or runs a process nobody analysed) — run in the model's order:
 *   the later one starts when the earlier one has finished. Calls with no conflict run side by side.
 * - A call waiting behind one that changed files is judged again (recheck) before it runs: that
 *   call may have planted a symlink the first judgement never saw. Re-checks run one at a time,
 *   so approval prompts never overlap. A re-check that finds the call now touches other files
 *   (a path that resolves elsewhere) also waits for any running call it now conflicts with.
 * - A call whose files no earlier call touches is not judged again: nothing of the batch can have
 *   changed what its paths resolve to.
 */
export async function runScheduled(kernel: KernelRuntime, run: RunContext, ready: readonly Prepared[], limit: number, messages: ToolResultMessage[]): Promise<void> {
  // Real paths looked up for this batch; forgotten whenever a call that may change files ends.
  let realPaths = new Map<string, string>();
  const entries: Entry[] = ready.map(({ index, state }) => ({ index, state, access: accessOf(state, realPaths), phase: 'waiting', after: new Set(), before: new Set(), moved: false, stale: undefined }));
  for (let j = 1; j < entries.length; j++) link(entries, j);
  let running = 0;
  let rechecking = false;
  let failed: { error: unknown } | undefined;
  let left = entries.length;
  let settle!: () => void;
  const allDone = new Promise<void>((resolve) => (settle = resolve));

  const blocked = (e: Entry, position: number): boolean => {
    if (e.after.size > 0) return true;
    if (!e.moved) return false;
    for (let k = position + 1; k < entries.length; k++) {
      const later = entries[k]!;
      if (later.phase === 'running' && conflicts(later.access, e.access)) return true;
    }
    return false;
  };

  const markDone = (e: Entry): void => {
    e.phase = 'done';
    left--;
    for (const later of e.before) later.after.delete(e);
    e.before.clear();
    if (changesFiles(e.access)) {
      realPaths = new Map();
      for (const other of entries) {
        if ((other.phase === 'waiting' || other.phase === 'rechecking') && conflicts(e.access, other.access)) other.stale = e.state;
      }
    }
  };

  const startRecheck = (e: Entry, position: number): void => {
    e.phase = 'rechecking';
    rechecking = true;
    const after = e.stale!;
    e.stale = undefined;
    void (async () => {
      try {
        await recheck(e.state, kernel, after);
        if (isStopped(e.state)) {
          messages[e.index] = await finish(kernel, e.state);
          markDone(e);
        } else {
          const access = accessOf(e.state, realPaths);
          if (!sameAccess(access, e.access)) {
            e.access = access;
            e.moved = true;
            relink(entries, position);
          }
          e.phase = 'waiting';
        }
      } catch (error) {
        failed ??= { error };
        markDone(e);
      } finally {
        rechecking = false;
        pump();
      }
    })();
  };

  const start = (e: Entry): void => {
    e.phase = 'running';
    running++;
    void (async () => {
      try {
        await runPrepared(kernel, e.state, run);
        messages[e.index] = await finish(kernel, e.state);
      } catch (error) {
        // Only a kernel bug gets here; the batch still waits for its other calls before it throws.
        failed ??= { error };
      } finally {
        running--;
        markDone(e);
        pump();
      }
    })();
  };

  /** Entries before this one are all done or running: the scan starts here. */
  let first = 0;
  function pump(): void {
    while (first < entries.length && (entries[first]!.phase === 'done' || entries[first]!.phase === 'running')) first++;
    for (let j = first; j < entries.length; j++) {
      const e = entries[j]!;
      if (e.phase !== 'waiting' || blocked(e, j)) continue;
      if (e.stale !== undefined) {
        if (!rechecking) startRecheck(e, j);
        continue;
      }
      if (running >= limit) continue;
      start(e);
    }
    if (left === 0) settle();
  }

  pump();
  await allDone;
  if (failed !== undefined) throw failed.error;
}

/**
 * Record which earlier calls entry `j` must follow. The search stops at the nearest earlier
 * barrier: that one follows every call before it, so following it follows them all.
 */
function link(entries: readonly Entry[], j: number): void {
  const e = entries[j]!;
  for (let i = j - 1; i >= 0; i--) {
    const earlier = entries[i]!;
    if (earlier.phase !== 'done' && conflicts(earlier.access, e.access)) {
      e.after.add(earlier);
      earlier.before.add(e);
    }
    if (earlier.access.barrier) return;
  }
}

/** Entry `j` touches other files now: record its order against every call not done yet, anew. */
function relink(entries: readonly Entry[], j: number): void {
  const e = entries[j]!;
  for (const earlier of e.after) earlier.before.delete(e);
  for (const later of e.before) later.after.delete(e);
  e.after.clear();
  e.before.clear();
  link(entries, j);
  for (let k = j + 1; k < entries.length; k++) {
    const later = entries[k]!;
    if (later.phase !== 'done' && conflicts(e.access, later.access)) {
      later.after.add(e);
      e.before.add(later);
    }
  }
}

function sameAccess(a: Access, b: Access): boolean {
  if (a.barrier || b.barrier) return a.barrier === b.barrier;
  const same = (x: readonly string[], y: readonly string[]) => x.length === y.length && x.every((v, i) => v === y[i]);
  return same(a.reads, b.reads) && same(a.writes, b.writes);
}
