/**
 * @airlock/contract — what an extension author compiles against: the tool contract, the tool
 * context, the hook events and votes, the extension API. Types, plus the few values a contract
 * needs at run time (identity helpers, the outcome and resource-kind lists, the result schema).
 * Nothing here holds state, so a second copy in a process is harmless.
 */

// The result schemas are values too: a host checks what a tool returned against them.
export type { AgentToolResult } from './content.js';
export { AgentToolResultSchema, Content, ImageContent, TextContent, Usage } from './content.js';
export type { AgentTool, AnyAgentTool, ToolUpdateCallback } from './tool.js';
export { defineTool } from './tool.js';
export type {
  AccessCheck,
  AccessProvider,
  AccessQuery,
  AccessRequest,
  AccessService,
  AccessVerdict,
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
  TruncationLimits,
  TruncationResult,
  TruncationService,
} from './context.js';
// Asking a person: one request, answered by a choice id (schemas: the check of answers from outside).
export { AskAnswer, AskChoice, AskRequest, NoAnswer, type AskOptions, type ToolUI } from './ask.js';
export type { Outcome, ToolCall, ToolResultMessage } from './outcome.js';
export { OUTCOMES } from './outcome.js';
export type { AgentActivity, AgentActivityListener } from './agent-activity.js';
export type { CommandArgument, CommandDefinition, CommandExtension, CommandHostFacts, CommandInput, CommandKernelView, CommandParts, DeclaredCommand, Extension, ExtensionAPI, ExtensionCommand, ExtensionManifest, ExtensionUse, Frozen, LoadedExtensionInfo, ProtectedLocation, ProtectedPaths, ProtectedRuleName, RuleStore, SpillMarkerName, TextRedactor, ToolSet, ToolSetChange } from './extension.js';
export { defineCommand, defineExtension } from './extension.js';
export type { ExecTouches, FileResource, Resource, ResourceKind } from './resource.js';
export { RESOURCE_KINDS } from './resource.js';
export type { ShellAnalysis, ShellCommand, ShellContext, ShellLink, ShellRedirect, ShellRevisionRead } from './shell-analysis.js';
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
} from './hooks.js';
export type { Diagnostic, Severity } from './diagnostic.js';
export type { PreflightReport } from './preflight.js';
