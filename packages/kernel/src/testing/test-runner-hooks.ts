/**
 * Cleanup that happens by itself in tests. When vitest runs the tests, what a helper makes inside a
 * test is removed when that test finishes (vitest's `onTestFinished`); everything still open is
 * removed when the process exits (other runners; vitest's workers end without an exit event, so
 * there it is only the last resort for things made outside a test).
 *
 * vitest is looked up at run time and only when it is running (it sets VITEST), so the kernel
 * needs no dependency on it. Its module is loaded asynchronously; by the time a test body runs it
 * has long arrived, while a helper called at a test file's top level may come too early for it.
 */

type Cleanup = () => void;

interface VitestHooks {
  onTestFinished(fn: () => unknown): void;
}

let vitest: VitestHooks | undefined;
// A variable, not a literal: bundlers and type-checkers must not try to resolve vitest.
const VITEST_MODULE = 'vitest';
if (process.env.VITEST) {
  import(/* @vite-ignore */ VITEST_MODULE).then(
    (m: VitestHooks) => void (vitest = m),
    () => undefined,
  );
}

const atExit = new Set<Cleanup>();
let exitHookInstalled = false;

/**
 * Run `cleanup` when the current test finishes, or else when the process exits. Returns a function
 * that un-registers it (call after cleaning up by hand). Cleanups must be synchronous and never throw.
 *
 * @example const forget = cleanUpAutomatically(() => rmSync(dir, { recursive: true, force: true }));
 */
export function cleanUpAutomatically(cleanup: Cleanup): () => void {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    atExit.delete(once);
    cleanup();
  };
  atExit.add(once);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const fn of [...atExit]) {
        try {
          fn();
        } catch {
          // The process is ending: one folder that cannot be removed must not stop the others.
        }
      }
    });
  }
  try {
    vitest?.onTestFinished(once);
  } catch {
    // Not inside a test (a file's top level, a describe block): the exit hook remains.
  }
  return () => {
    done = true;
    atExit.delete(once);
  };
}
