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

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

type Cleanup = () => void;

interface VitestHooks {
  onTestFinished(fn: () => unknown): void;
}

let vitest: VitestHooks | undefined;
// A variable, not a literal: bundlers and type-checkers must not try to resolve vitest.
const VITEST_MODULE = 'vitest';
if (process.env.VITEST) {
  loadVitest().then(
    (m) => void (vitest = m),
    () => undefined,
  );
}

/**
 * The running vitest. From the kernel's own folder first (a workspace, a project that installed
 * both side by side); else from the folder the tests run in: in a scaffolded extension the kernel
 * is the copy the installed CLI carries, from where vitest cannot be found, while the project's
 * own vitest (the one running) sits in the project's node_modules.
 */
async function loadVitest(): Promise<VitestHooks | undefined> {
  try {
    return (await import(/* @vite-ignore */ VITEST_MODULE)) as VitestHooks;
  } catch {
    const entry = vitestEntryFrom(process.cwd());
    return entry === undefined ? undefined : ((await import(/* @vite-ignore */ pathToFileURL(entry).href)) as VitestHooks);
  }
}

/** vitest's ESM entry as a project folder would import it, from its package.json's exports; undefined when not installed there. */
function vitestEntryFrom(dir: string): string | undefined {
  let manifestPath: string;
  try {
    manifestPath = createRequire(join(dir, 'package.json')).resolve(`${VITEST_MODULE}/package.json`);
  } catch {
    return undefined;
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { exports?: unknown; module?: string; main?: string };
  const root = (manifest.exports as Record<string, unknown> | undefined)?.['.'] ?? manifest.exports;
  const target = esmTarget(root) ?? manifest.module ?? manifest.main;
  return target === undefined ? undefined : join(dirname(manifestPath), target);
}

/** The file an `import` of an exports entry picks: a string, or `import` / `default` conditions, nested. */
function esmTarget(entry: unknown): string | undefined {
  if (typeof entry === 'string') return entry;
  if (typeof entry !== 'object' || entry === null) return undefined;
  const conditions = entry as Record<string, unknown>;
  return esmTarget(conditions.import) ?? esmTarget(conditions.default);
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
