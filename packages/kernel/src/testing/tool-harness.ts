import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnyAgentTool } from '../contract/tool.js';
import type { KernelEvent } from '../contract/hooks.js';
import type { ToolResultMessage } from '../contract/outcome.js';
import { createKernel, type Kernel, type KernelOptions } from '../kernel.js';

export interface ToolHarnessOptions extends KernelOptions {}

export interface ToolHarness {
  readonly kernel: Kernel;
  /** Run one call through the full pipeline; also returns the events it emitted. */
  call(args: unknown, options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<ToolResultMessage & { events: KernelEvent[] }>;
  /** The result's text blocks joined by newlines. */
  text(message: ToolResultMessage): string;
}

/**
 * Run a tool the way a model would reach it: not-found, validation, hooks, normalization and all.
 *
 * @example
 * const h = createToolHarness(myTool);
 * const r = await h.call({ path: 'missing.txt' });
 * expect(r.outcome).toBe('error');
 */
export function createToolHarness(tool: AnyAgentTool, options: ToolHarnessOptions = {}): ToolHarness {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-harness-'));
  const kernel = createKernel({ cwd: dir, spill: { dir: join(dir, '.spill') }, ...options });
  kernel.registry.register(tool, { source: 'sdk', origin: 'test harness' });
  let n = 0;
  return {
    kernel,
    async call(args, o = {}) {
      const events: KernelEvent[] = [];
      const message = await kernel.executeToolCall(
        { id: `harness-${++n}`, name: tool.name, arguments: args },
        { ...o, onEvent: (e) => void events.push(e) },
      );
      return { ...message, events };
    },
    text: (message) => message.content.map((c) => (c.type === 'text' ? c.text : `[image ${c.mimeType}]`)).join('\n'),
  };
}
