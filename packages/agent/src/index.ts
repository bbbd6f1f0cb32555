export type { AssistantBlock, AssistantMessage, AssistantText, AssistantThinking, AssistantToolCall, Message, ModelUsage, StopReason, UserMessage } from './messages.js';
export { textOf, toolCallsOf, userMessage } from './messages.js';
export type { ModelProvider, ModelRequest, ModelStreamEvent } from './provider.js';
export * from './session/index.js';
export * from './replay/index.js';
