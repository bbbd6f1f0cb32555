import type { AnyAgentTool } from '@airlock/contract';
import { toJsonSchema } from '../json-value.js';
import type { JsonObject } from '../json-value.js';

/** Anthropic Messages API `tools[]` entry (a client tool): `{ name, description, input_schema }`. */
export interface AnthropicTool {
  name: string;
  description: string;
  /** JSON Schema of the input; Anthropic requires `type: "object"` at the root. */
  input_schema: JsonObject;
}

/** Anthropic tool names: letters, digits, `_` and `-`, at most 64. */
export const ANTHROPIC_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export function anthropicToolName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, '_');
}

/** One tool in the Messages API shape; `name` is the provider-safe name. */
export function toAnthropicTool(tool: AnyAgentTool, name: string): AnthropicTool {
  return { name, description: tool.description, input_schema: toJsonSchema(tool.parameters) };
}
