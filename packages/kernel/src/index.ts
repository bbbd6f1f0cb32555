/**
 * @airlock/kernel — the tool contract, the phased hook bus, and the call and batch pipeline.
 * Start reading at run-tool-call.ts.
 */

// The contract: what tools and extensions import (types only, plus identity helpers).
export type { AgentToolResult, Content, ImageContent, TextContent, Usage } from './contract/content.js';
export { AgentToolResultSchema } from './contract/content.js';
export type { AgentTool, AnyAgentTool, ToolUpdateCallback } from './contract/tool.js';
export { defineTool } from './contract/tool.js';
export type {
  AccessCheck,
  AccessQuery,
  AccessRequest,
  AccessService,
  AccessVerdict,
  DialogOptions,
  NoAnswer,
  FileIdentity,
  FileLedger,
  FileStamp,
  JudgedFile,
  Logger,
  SandboxedCommand,
  SandboxMode,
  SandboxProfile,
  SandboxProfileProvider,
  SandboxService,
  SandboxVerdict,
  SandboxWrapOptions,
  SandboxStatus,
  SpillInfo,
  SpillOptions,
  SpillWriter,
  TailAccumulator,
  ToolContext,
  ToolUI,
  TruncationLimits,
  TruncationResult,
  TruncationService,
} from './contract/context.js';
export type { Outcome, ToolCall, ToolResultMessage } from './contract/outcome.js';
export type { AgentActivity, AgentActivityListener } from './contract/agent-activity.js';
export type { CommandArgument, CommandDefinition, CommandExtension, CommandHostFacts, CommandInput, CommandKernelView, CommandParts, DeclaredCommand, Extension, ExtensionAPI, ExtensionCommand, ExtensionManifest, LoadedExtensionInfo, ProtectedLocation, ProtectedPaths, ProtectedRuleName, RuleStore, SpillMarkerName, TextRedactor, ToolSet, ToolSetChange } from './contract/extension.js';
export { defineCommand, defineExtension } from './contract/extension.js';
export { OUTCOMES } from './contract/outcome.js';
export type { ExecTouches, FileResource, Resource, ResourceKind } from './contract/resource.js';
export { RESOURCE_KINDS } from './contract/resource.js';
export type { ShellAnalysis, ShellCommand, ShellContext, ShellLink, ShellRedirect, ShellRevisionRead } from './contract/shell-analysis.js';
export type {
  ApprovalInput,
  Args,
  ArgsChange,
  Decision,
  DecisionSource,
  Effect,
  EventSink,
  FailureMode,
  HandlerFor,
  HandlerOptions,
  HookName,
  HookRegistrar,
  KernelEvent,
  PhaseOf,
  ResultPatch,
  ToolCallEvent,
  ToolCallHandlers,
  ToolCallPhase,
  ToolResultEvent,
  ToolResultHandlers,
  ToolResultPhase,
  Vote,
  VoteInput,
} from './contract/hooks.js';

// The bus.
export { PHASES, POLICY_PHASES, TOOL_CALL_PHASES, TOOL_RESULT_PHASES, type Phase, type PhaseRow } from './bus/phases.js';
export { combineVotes } from './bus/votes.js';
export { hostAllowed } from './sandbox-profiles.js';
export type { HandlerInfo } from './bus/hooks.js';

// Running calls.
export { createKernel, Kernel, KERNEL_VERSION, NO_UI, type CallOptions, type KernelBatchOptions, type KernelOptions, type PreflightOptions } from './kernel.js';
export type { PreflightReport } from './preflight.js';
export { redactionError } from './text-redactors.js';
export type { BatchOptions, BatchResult } from './run-batch.js';
export type { CallRefusal, Refusal } from './run-tool-call.js';
export { MAX_VALUE_DEPTH } from './values.js';

// Showing untrusted text to a person (also the pure subpath `@airlock/kernel/display`).
export { countOf, displayFields, displayText, displayValue, isHiddenCharacter, terminalSafe, type DisplayOptions, type TerminalSafeOptions } from './display/index.js';

// The registry and provider schemas.
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
export * from './providers/index.js';

// Output: truncation, spill, images.
export { DEFAULT_LIMITS, NOTICE_ROOM, countLines, formatSize, truncateHead, truncateTail, utf8ByteLength } from './output/truncate.js';
export { appendNotice, headNotice, lineTooLongNotice, moreLinesNotice, tailNotice, truncationNotice } from './output/notice.js';
export { createTailAccumulator } from './output/tail-accumulator.js';
export { createSpillStore, DEFAULT_SPILL_BUDGET_BYTES, DEFAULT_SPILL_RETENTION_MS, DEFAULT_SPILL_TOTAL_BYTES, SpillStore } from './output/spill-store.js';
export { DEFAULT_IMAGE_LIMITS, describeImage, imageNote, sniffBase64ImageMime, sniffConvertibleMime, sniffImageMime, type ConvertibleMime, type ImageInfo, type ImageLimits, type ImageMime } from './output/images.js';
export type { ImageResizer, ResizeRequest } from './call/6-normalize-result.js';
export { FileMutationQueue } from './file-mutation-queue.js';

// Diagnostics.
export { AirlockError, AirlockErrors, isAirlockError, type AirlockErrorCode } from './errors.js';
export { errorCode, errorCodes, registerErrorCodes, renderErrorCatalogue, type ErrorCodeEntry, type ErrorCodeSpec } from './error-catalogue.js';
export type { Diagnostic, Severity } from './contract/diagnostic.js';
export { closestNames } from './suggest.js';
