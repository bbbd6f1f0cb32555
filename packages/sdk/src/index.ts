/**
 * @airlock/sdk — Airlock from your own program: `createAirlock` opens a host (settings and
 * extension modules in code), runs calls and agents on it, and the adapters put its tools behind
 * an OpenAI function-calling loop (here) or the Vercel AI SDK (`@airlock/sdk/ai-sdk`). It
 * re-exports what a team needs from the kernel, the host and the agent packages, so one
 * dependency is enough.
 */
export { AirlockAgent, createAirlock, type Airlock, type AirlockAgentOptions, type CreateAirlockOptions } from './create-airlock.js';
export { type ModelChoice } from './agent-model.js';
export { type TranscriptOption } from './agent-transcript.js';

// TypeBox, the schema language of tool parameters and extension options: the same instance the
// kernel validates with, so a tool author needs no dependency of their own.
export { Type, type Static, type TSchema } from 'typebox';
export { splitExtensions, type ExtensionInput } from './extension-inputs.js';
export { openAITools, runOpenAIToolCalls, type OpenAIAssistantLike, type OpenAIMessageParam, type OpenAIToolCallLike, type OpenAIToolCallsResult } from './openai-tool-calls.js';

// The kernel: the tool and extension contracts, results, provider schemas.
export {
  defineCommand,
  defineExtension,
  defineTool,
  OUTCOMES,
  RESOURCE_KINDS,
  type AgentTool,
  type AgentToolResult,
  type AnyAgentTool,
  type AskAnswer,
  type AskChoice,
  type AskOptions,
  type AskRequest,
  type Content,
  type Extension,
  type ExtensionAPI,
  type ImageContent,
  type KernelEvent,
  type NoAnswer,
  type Outcome,
  type PreflightReport,
  type TextContent,
  type ToolCall,
  type ToolCallEvent,
  type ToolContext,
  type ToolResultEvent,
  type ToolResultMessage,
  type ToolUI,
  type Resource,
  type ResourceKind,
  type Vote,
  type VoteInput,
} from '@airlock/contract';
export { displayText } from '@airlock/toolkit/display';
export {
  providerToolName,
  providerToolNames,
  toProviderTools,
  PROVIDER_IDS,
  type ProviderId,
} from '@airlock/toolkit';
export { type BatchResult, type KernelBatchOptions, type ToolSelection } from '@airlock/kernel';

// The host: options and what an open host reports.
export { createAskUI, SettingsError, type AskBackend, type Host, type HostBlocked, type Diagnostic, type HostFlags, type InlineExtension, type OpenHostOptions, type SettingsLayer } from '@airlock/host';
export { openHost } from './open-host.js';

// The agent: the loop, providers, messages.
export {
  Agent,
  buildSystemPrompt,
  createAnthropicProvider,
  createOpenAIProvider,
  hostRunner,
  kernelRunner,
  resolveModel,
  runAgentLoop,
  runnerOf,
  scriptedProvider,
  textOf,
  toolCallsOf,
  userMessage,
  // Sessions: what `airlock sessions` lists and `airlock replay` judges, for your own program.
  extensionDifferences,
  findSession,
  kernelReplayRunner,
  listSessions,
  loadTranscript,
  openTranscript,
  replay,
  sessionExtensions,
  transcriptListener,
  type LoadedTranscript,
  type ReplayReport,
  type ReplayRow,
  type SessionHeader,
  type Transcript,
  type AgentEvent,
  type AgentListener,
  type AgentOptions,
  type AgentRunResult,
  type AssistantMessage,
  type Message,
  type ModelProvider,
  type RunStatus,
  type ToolRunner,
  type UserMessage,
} from '@airlock/agent';
