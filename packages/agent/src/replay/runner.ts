import { dirname, sep } from 'node:path';
import type { AnyAgentTool, PreflightReport, ToolCall, ToolResultMessage } from '@airlock/contract';
import type { Kernel, SelectOptions, ToolSelection } from '@airlock/kernel';

/**
 * What replay needs from the current Airlock: judge a call without running it (the kernel's
 * preflight), run one (only ever a `replay: "safe"` tool the policy allows), and look a tool up
 * to read its `replay` mode. A host gives all three over its enabled tool set.
 */
export interface ReplayRunner {
  preflight(call: ToolCall): Promise<PreflightReport>;
  execute(call: ToolCall): Promise<ToolResultMessage>;
  /** The registered tool of that name (the name preflight reports, aliases already mapped). */
  tool(name: string): AnyAgentTool | undefined;
  /**
   * Rewrites what differs between two runs of the same call although nothing changed (the path
   * of a spill file), before results are compared. Default: none.
   */
  normalize?(text: string): string;
}

/**
 * A runner over a kernel and its enabled set (`host.kernel`, `host.selection`).
 *
 * @example
 * const report = await replay(loadTranscript(path), kernelReplayRunner(host.kernel, { tools: host.selection }));
 */
export function kernelReplayRunner(kernel: Kernel, options: { tools?: ToolSelection | SelectOptions; signal?: AbortSignal } = {}): ReplayRunner {
  const spillRoot = dirname(kernel.session.spillDir) + sep;
  const extra = { ...(options.tools === undefined ? {} : { tools: options.tools }), ...(options.signal === undefined ? {} : { signal: options.signal }) };
  return {
    preflight: (call) => kernel.preflight(call, extra),
    execute: (call) => kernel.executeToolCall(call, extra),
    tool: (name) => kernel.registry.get(name)?.tool,
    // A spill file's path names the session and the moment that wrote it
    // (`<root>/<session>/<time>-<tool>-<random>.txt`): another run of the same call gets another
    // path, so the path is left out of the comparison (the text around it still counts).
    normalize: (text) => text.split(spillRoot).map((part, i) => (i === 0 ? part : part.replace(/^\S+/, '<spill file>'))).join(spillRoot),
  };
}
