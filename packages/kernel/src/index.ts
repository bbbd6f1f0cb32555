/**
 * @airlock/kernel — the tool-call engine: the registry, the phased hook bus, the eight stages of
 * a call, batch scheduling and preflight. Start reading at run-tool-call.ts.
 *
 * What extensions compile against is in @airlock/contract; the helpers they share at run time
 * are in @airlock/toolkit.
 */

// The bus.
export { PHASES, POLICY_PHASES, TOOL_CALL_PHASES, TOOL_RESULT_PHASES, type Phase, type PhaseRow } from './bus/phases.js';
export { combineVotes } from './bus/votes.js';
export type { HandlerInfo } from './bus/hooks.js';

// Running calls.
export { createKernel, Kernel, KERNEL_VERSION, NO_UI, type CallOptions, type KernelBatchOptions, type KernelOptions, type KernelSession, type KernelStatus, type PreflightOptions } from './kernel.js';
export type { BatchOptions, BatchResult } from './run-batch.js';
export type { CallRefusal, Refusal } from './run-tool-call.js';
export type { ImageResizer, ResizeRequest } from './call/6-normalize-result.js';

// The registry.
export {
  ToolRegistry,
  type ExclusionCode,
  type ExclusionReason,
  type RegisteredTool,
  type RegisterOptions,
  type SelectOptions,
  type ToolSelection,
  type ToolSource,
} from './registry.js';
