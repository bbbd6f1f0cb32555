import type { AnyAgentTool, BatchResult, EventSink, Kernel, ToolCall, ToolSelection } from '@airlock/kernel';

/** What the loop passes with each batch. */
export interface RunnerBatchOptions {
  signal?: AbortSignal;
  /** The kernel's events for this batch; the loop adds its run and turn ids before passing them on. */
  onEvent?: EventSink;
}

/**
 * Whatever runs the tool calls of one assistant message: the kernel, a host, or your own code.
 * `tools` is the enabled set; the provider serializes exactly these and the system prompt lists
 * exactly these, and `batch` must run calls against the same set (a call to anything else is
 * `not_found`).
 *
 * @example
 * const runner = kernelRunner(kernel, kernel.selectTools({ excludeTools: ['bash'] }));
 * const host = await openHost({ cwd, interactive: false });
 * const fromHost = runnerOf(host.selection, (calls, o) => host.batch(calls, o));
 */
export interface ToolRunner {
  readonly tools: readonly AnyAgentTool[];
  batch(calls: readonly ToolCall[], options: RunnerBatchOptions): Promise<BatchResult>;
}

/**
 * A runner over a selection and a batch function (the one-line adapter for a host:
 * `runnerOf(host.selection, (calls, o) => host.batch(calls, o))`).
 */
export function runnerOf(selection: ToolSelection, batch: ToolRunner['batch']): ToolRunner {
  return { tools: selection.enabled.map((entry) => entry.tool), batch };
}

/**
 * A runner over a kernel: every batch runs through `kernel.executeBatch` with this selection
 * (default: every registered tool, as the kernel selects them now), so ordering, policy and
 * approval apply as for any batch.
 *
 * @example
 * const result = await runAgentLoop([userMessage('List the files')], { provider, model, runner: kernelRunner(kernel) });
 */
export function kernelRunner(kernel: Pick<Kernel, 'executeBatch' | 'selectTools'>, selection: ToolSelection = kernel.selectTools()): ToolRunner {
  return runnerOf(selection, (calls, options) => kernel.executeBatch(calls, { ...options, tools: selection }));
}
