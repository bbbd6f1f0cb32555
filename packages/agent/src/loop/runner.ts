import type { AgentActivity, AnyAgentTool, EventSink, ToolCall, ToolResultMessage } from '@airlock/contract';
import type { BatchResult, CallRefusal, Kernel, ToolSelection } from '@airlock/kernel';

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
 * const runner = kernelRunner(kernel, kernel.registry.select({ excludeTools: ['bash'] }));
 * const fromHost = hostRunner(await openHost({ cwd, interactive: false }));
 */
export interface ToolRunner {
  /** Read at each model request: a runner over a host follows its enabled set as it changes. */
  readonly tools: readonly AnyAgentTool[];
  batch(calls: readonly ToolCall[], options: RunnerBatchOptions): Promise<BatchResult>;
  /**
   * Answer calls that must not run (those of a message the model did not finish, a call whose
   * arguments could not be read) through the kernel's `refuseBatch`, so the tool_result hook
   * sees them: the audit log, the redactor and telemetry record them like any other. A runner
   * without it leaves the loop to answer them itself, and those results pass no hook.
   */
  refuse?(calls: readonly ToolCall[], refusal: CallRefusal, options: RunnerBatchOptions): Promise<ToolResultMessage[]>;
  /**
   * Where the loop reports its runs, turns and model requests (ids, models, token usage, never
   * content): over a kernel or host, its extensions' `api.onAgentActivity` listeners (telemetry).
   */
  activity?(activity: AgentActivity): void;
}

/**
 * A runner over a selection, a batch function and, optionally, where to report the run's activity.
 */
export function runnerOf(selection: ToolSelection, batch: ToolRunner['batch'], activity?: ToolRunner['activity']): ToolRunner {
  const tools = selection.enabled.map((entry) => entry.tool);
  return activity === undefined ? { tools, batch } : { tools, batch, activity };
}

/** What `hostRunner` needs of an open host (`@airlock/host`'s Host fits). */
export interface RunnerHost {
  readonly selection: ToolSelection;
  batch: ToolRunner['batch'];
  readonly kernel: Pick<Kernel, 'refuseBatch'>;
  /** Where the run's activity goes: the host's listeners (extensions' `api.onAgentActivity`). */
  readonly services: { readonly activity: { emit(activity: AgentActivity): void } };
}

/**
 * The runner over an open host: the host's enabled set (settings, flags, bare deny rules) is what
 * the model is offered, every batch goes through `host.batch` (policy, approval, redaction,
 * audit), and the run's activity reaches the host's extensions.
 *
 * @example
 * const host = await openHost({ cwd, interactive: false });
 * const result = await runAgentLoop([userMessage('List the files')], { provider, model, runner: hostRunner(host) });
 */
export function hostRunner(host: RunnerHost): ToolRunner {
  // Read from the host each time: its enabled set follows extensions' tool sets after it opened.
  let seen: { selection: ToolSelection; tools: readonly AnyAgentTool[] } | undefined;
  return {
    get tools() {
      const selection = host.selection;
      if (seen?.selection !== selection) seen = { selection, tools: selection.enabled.map((entry) => entry.tool) };
      return seen.tools;
    },
    batch: (calls, options) => host.batch(calls, options),
    refuse: (calls, refusal, options) => host.kernel.refuseBatch(calls, refusal, eventsOf(options)),
    activity: (activity) => host.services.activity.emit(activity),
  };
}

/**
 * A runner over a kernel: every batch runs through `kernel.executeBatch` with this selection
 * (default: every registered tool, as the kernel selects them now), so ordering, policy and
 * approval apply as for any batch. `activity` hears the run's turns and model requests (a host's
 * `services.activity.emit`, so telemetry sees them); without it they go nowhere.
 *
 * @example
 * const result = await runAgentLoop([userMessage('List the files')], { provider, model, runner: kernelRunner(kernel) });
 */
export function kernelRunner(
  kernel: Pick<Kernel, 'executeBatch' | 'registry' | 'refuseBatch'>,
  selection: ToolSelection = kernel.registry.select(),
  activity?: (activity: AgentActivity) => void,
): ToolRunner {
  return {
    ...runnerOf(selection, (calls, options) => kernel.executeBatch(calls, { ...options, tools: selection }), activity),
    refuse: (calls, refusal, options) => kernel.refuseBatch(calls, refusal, eventsOf(options)),
  };
}

function eventsOf(options: RunnerBatchOptions): { onEvent?: EventSink } {
  return options.onEvent === undefined ? {} : { onEvent: options.onEvent };
}
