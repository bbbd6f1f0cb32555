/**
 * The params of the requests this server answers, checked before the SDK sees them. The SDK's
 * generic handler answers a request whose params do not fit its schema with -32603 (internal
 * error), which tells a client the server broke; JSON-RPC's answer is -32602 (invalid params),
 * naming what is wrong.
 */
import { CallToolRequestSchema, InitializeRequestSchema, ListToolsRequestSchema, PingRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const CHECKED = new Map<string, { safeParse(value: unknown): { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } } }>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
]);

/**
 * Why a request's params are invalid, or undefined when they are fine (or the method is not one
 * checked here, or the message is not a request).
 *
 * @example
 * paramsProblem({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
 * // 'params.protocolVersion: Invalid input: expected string, received undefined; …'
 */
export function paramsProblem(message: JSONRPCMessage): string | undefined {
  if (!('method' in message) || !('id' in message)) return undefined;
  const schema = CHECKED.get(message.method);
  if (schema === undefined) return undefined;
  const parsed = schema.safeParse(message);
  if (parsed.success) return undefined;
  return (parsed.error?.issues ?? []).map((issue) => `${issue.path.map(String).join('.') || 'message'}: ${issue.message}`).join('; ');
}
