export type { AssistantBlock, AssistantMessage, AssistantText, AssistantThinking, AssistantToolCall, Message, ModelUsage, StopReason, UserMessage } from './messages.js';
export { textOf, toolCallsOf, userMessage } from './messages.js';
export type { ModelProvider, ModelRequest, ModelStreamEvent } from './provider.js';
export * from './loop/index.js';
export { buildSystemPrompt, firstSentence, toolPromptLines, type SystemPromptOptions } from './system-prompt.js';
export { checkScript, createScriptedProvider, loadScript, parseScript, ScriptError, scriptedProvider, scriptedProviderFromFile, type ScriptBlock, type ScriptEntry, type ScriptedProviderOptions } from './providers/scripted.js';
export { ModelSpecError, parseModelSpec, PROVIDER_FACTORIES, resolveModel, type ProviderFactory, type ProviderSetup } from './providers/index.js';
