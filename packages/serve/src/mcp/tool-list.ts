/**
 * The tools an MCP client sees: the host's enabled set in the kernel's MCP shape, with the hints
 * MCP clients use to decide how careful to be, and the way back from an MCP name to Airlock's.
 */
import { providerToolNames, toProviderTools, type McpTool } from '@airlock/toolkit';
import { type AnyAgentTool } from '@airlock/contract';
import { type ToolSelection } from '@airlock/kernel';

/** MCP's tool annotations (hints only: a client must not trust them from a server it does not trust). */
export interface McpToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
}

/** One entry of `tools/list`. */
export interface ListedTool extends McpTool {
  annotations: McpToolAnnotations;
}

/**
 * The hints for one tool, from what the tool declares rather than from its name: a tool that
 * declares `replay: "safe"` promises that running it again changes nothing (read, grep, find,
 * ls), so it is read-only; any other tool may change the machine (write, edit, bash and every
 * third-party tool that does not say otherwise) and is marked destructive. MCP's own default is
 * "destructive" too; saying it explicitly keeps a client from guessing.
 *
 * @example
 * toolAnnotations(readTool); // { readOnlyHint: true }
 * toolAnnotations(bashTool); // { readOnlyHint: false, destructiveHint: true }
 */
export function toolAnnotations(tool: Pick<AnyAgentTool, 'replay'>): McpToolAnnotations {
  return tool.replay === 'safe' ? { readOnlyHint: true } : { readOnlyHint: false, destructiveHint: true };
}

/** What `tools/list` answers, and how each listed name maps back to the Airlock tool it stands for. */
export interface McpToolSet {
  tools: ListedTool[];
  /** MCP name → Airlock name. */
  names: ReadonlyMap<string, string>;
}

/**
 * The MCP view of a selection. Throws AIRLOCK_PROVIDER_TOOL_NAME when two tools would reach the
 * client under one name (say `a:b` and `a_b`).
 *
 * @example
 * const { tools, names } = mcpToolSet(host.selection);
 * const airlockName = names.get(request.params.name) ?? request.params.name;
 */
export function mcpToolSet(selection: ToolSelection): McpToolSet {
  const listed = toProviderTools(selection, 'mcp');
  const tools = listed.map((entry, i) => ({ ...entry, annotations: toolAnnotations(selection.enabled[i]!.tool) }));
  return { tools, names: providerToolNames(selection, 'mcp') };
}
