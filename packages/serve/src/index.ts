// The servers that put an open host behind another program: `mcp/` (an MCP server) and `rpc/`
// (JSON-RPC 2.0 over JSON lines). Each is a library first; the CLI's `airlock mcp` and
// `airlock serve --stdio` only open the host and connect stdio.
export { createMcpServer, type AirlockMcpServer, type McpServerOptions } from './mcp/server.js';
export { createElicitationUI, type ElicitationUI, type ElicitationUIOptions } from './mcp/elicitation-ui.js';
export { LineTransport, type LineInput, type LineOutput, type LineTransportOptions } from './mcp/line-transport.js';
export { mcpToolSet, toolAnnotations, type ListedTool, type McpToolAnnotations, type McpToolSet } from './mcp/tool-list.js';
export { toMcpResult, type McpCallResult, type McpContentBlock } from './mcp/call-result.js';
export { progressReporter, type ProgressNotification, type ProgressOptions, type ProgressReporter } from './mcp/progress.js';
export * from './rpc/index.js';
