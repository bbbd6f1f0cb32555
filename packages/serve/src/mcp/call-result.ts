/**
 * A kernel result message as an MCP `tools/call` result. Every outcome the kernel can give (ok,
 * error, not_found, invalid, denied, aborted, timeout) is a tool result the model reads, never a
 * protocol error: the model can act on "denied: …" (choose another way), not on a JSON-RPC error.
 */
import type { ToolResultMessage } from '@airlock/contract';

export type McpContentBlock = { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string };

/** The result shape of `tools/call` this server sends. */
export interface McpCallResult {
  [key: string]: unknown;
  content: McpContentBlock[];
  isError: boolean;
  /** `airlock/outcome`: the kernel's outcome, for clients and logs (models do not see `_meta`). */
  _meta: { 'airlock/outcome': ToolResultMessage['outcome'] };
}

/**
 * Text and images as MCP content blocks (images stay base64, as both sides carry them); the
 * result is an error whenever the call did not end `ok`, or the tool itself said so.
 *
 * @example
 * toMcpResult(await host.execute(call)); // { content: [{ type: 'text', text: '…' }], isError: false, _meta: { 'airlock/outcome': 'ok' } }
 */
export function toMcpResult(message: ToolResultMessage): McpCallResult {
  const content = message.content.map((block): McpContentBlock =>
    block.type === 'image' ? { type: 'image', data: block.data, mimeType: block.mimeType } : { type: 'text', text: block.text },
  );
  return { content, isError: message.isError || message.outcome !== 'ok', _meta: { 'airlock/outcome': message.outcome } };
}
