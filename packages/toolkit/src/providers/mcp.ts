import type { AnyAgentTool } from '@airlock/contract';
import { toJsonSchema } from '../json-value.js';
import type { JsonObject } from '../json-value.js';

/**
 * A Model Context Protocol `tools/list` result item: `{ name, title?, description, inputSchema }`.
 * `inputSchema` is a JSON Schema object of type "object" (2020-12 unless `$schema` says otherwise).
 */
export interface McpTool {
  name: string;
  /** Human-readable display name: the tool's `label`. */
  title?: string;
  description: string;
  inputSchema: JsonObject;
}

/** MCP tool names SHOULD use letters, digits, `_`, `-` and `.`, 1 to 128 characters. */
export const MCP_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export function mcpToolName(name: string): string {
  return name.replace(/[^A-Za-z0-9_.-]/g, '_');
}

/** One tool as an MCP server lists it; `name` is the provider-safe name. */
export function toMcpTool(tool: AnyAgentTool, name: string): McpTool {
  const description = tool.description;
  const inputSchema = toJsonSchema(tool.parameters);
  const title = typeof tool.label === 'string' && tool.label.length > 0 ? tool.label : undefined;
  return title === undefined ? { name, description, inputSchema } : { name, title, description, inputSchema };
}
