import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnyAgentTool } from '@airlock/contract';
import type { KernelEvent } from '@airlock/contract';
import type { ToolResultMessage } from '@airlock/contract';
import { createKernel, type Kernel, type KernelOptions } from '../kernel.js';
import { removeTree } from './temp-dir.js';
import { cleanUpAutomatically } from './test-runner-hooks.js';

export interface ToolHarnessOptions extends KernelOptions {}

export interface ToolHarness extends AsyncDisposable {
  readonly kernel: Kernel;
  /** The harness's own temp folder: the default cwd and the spill folder's parent. Removed by dispose(). */
  readonly dir: string;
  /** Run one call through the full pipeline; also returns the events it emitted. */
  call(args: unknown, options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<ToolResultMessage & { events: KernelEvent[] }>;
  /** The result's text blocks joined by newlines. */
  text(message: ToolResultMessage): string;
  /** Remove the harness's temp folder (spilled outputs included). Safe to call twice. */
  dispose(): Promise<void>;
}

/**
 * Run a tool the way a model would reach it: not-found, validation, hooks, normalization and all.
 *
 * The harness works in a temp folder of its own, removed by `dispose()` (or `await using`). Made
 * inside a vitest test (or `beforeEach`), it is removed when that test finishes. Made anywhere
 * else (`beforeAll`, a file's top level), call `dispose()` in `afterAll`: vitest ends its workers
 * without an exit event, so the process-exit fallback (for other test runners) does not run there.
 *
 * @example
 * await using h = createToolHarness(myTool);
 * const r = await h.call({ path: 'missing.txt' });
 * expect(r.outcome).toBe('error');
 */
export function createToolHarness(tool: AnyAgentTool, options: ToolHarnessOptions = {}): ToolHarness {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-harness-'));
  const forget = cleanUpAutomatically(() => removeTree(dir));
  const kernel = createKernel({ cwd: dir, spill: { dir: join(dir, '.spill') }, ...options });
  kernel.registry.register(tool, { source: 'sdk', origin: 'test harness' });
  let n = 0;
  const dispose = async () => {
    forget();
    removeTree(dir);
  };
  return {
    kernel,
    dir,
    async call(args, o = {}) {
      const events: KernelEvent[] = [];
      const message = await kernel.executeToolCall(
        { id: `harness-${++n}`, name: tool.name, arguments: args },
        { ...o, onEvent: (e) => void events.push(e) },
      );
      return { ...message, events };
    },
    text: (message) => message.content.map((c) => (c.type === 'text' ? c.text : `[image ${c.mimeType}]`)).join('\n'),
    dispose,
    [Symbol.asyncDispose]: dispose,
  };
}
