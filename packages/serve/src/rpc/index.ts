/** `airlock serve --stdio`: JSON-RPC 2.0 over JSON lines (see docs/rpc.md). */
export { createRpcServer, DEFAULT_DIALOG_TIMEOUT_MS, DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_RUNNING_CALLS, DEFAULT_MAX_WAITING_CALLS, type RpcServer, type RpcServerOptions, type ServedHost } from './server.js';
export { runAgentPrompt, type AgentPromptContext, type AgentPromptOptions } from './agent-prompt.js';
export { createDialogBridge, type DialogBridge, type DialogBridgeOptions } from './dialogs.js';
export { EventSubscriptions, MAX_SUBSCRIPTIONS } from './event-subscriptions.js';
export { RunningRequests } from './running-requests.js';
export { classify, RPC_ERRORS, RpcError, type Incoming, type RpcErrorObject, type RpcId, type RpcNotification, type RpcRequest, type RpcResponse } from './protocol.js';
export { METHODS, SERVER_MESSAGES, EVENT_TYPES, RUN_STATUSES, type MethodName, type MethodSpec, type ParamsOf, type ResultOf } from './schemas.js';
export { checkParams } from './params.js';
export { readLines, writeLines } from '../json-lines.js';
export { renderRpcSchemas, withRpcSchemas } from './doc-schemas.js';
