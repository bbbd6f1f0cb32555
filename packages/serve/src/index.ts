// The servers that put an open host behind another program: `mcp/` (an MCP server) and `rpc/`
// (JSON-RPC 2.0 over JSON lines). Each is a library first; the CLI's `airlock mcp` and
// `airlock serve --stdio` only open the host and connect stdio.
export {};
export * from './rpc/index.js';
