import type { AgentTool } from '@airlock/contract';
import { linearSchema, SchemaRegexError } from '@airlock/toolkit/util';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { McpTool, ServerConnection } from './connection.js';
import { judgementFor, newNotes, unmatchedKeys, usesServerWideForm, type MappingNotes, type ToolJudgement } from './mapping.js';
import type { ServerConfig } from './options.js';
import { mcpResources } from './resources.js';
import { fromMcpResult, type McpResultDetails } from './result.js';
import { airlockToolName } from './tool-name.js';

/** The tools of one server as Airlock tools, the ones that could not be made (with why), and what to say about the mappings. */
export interface ServerTools {
  tools: AgentTool[];
  skipped: { tool: string; reason: string }[];
  notes: MappingNotes;
}

/**
 * Airlock tools for a server's tool list. Each is `<server>__<tool>`; its `parameters` is the
 * server's JSON Schema as it is (TypeBox 1.x compiles plain JSON Schema, so the kernel validates
 * arguments against it and a bad call is an `invalid` outcome before anything is sent); a schema
 * that does not compile, whose patterns cannot be matched in linear time (a lookahead, a
 * backreference: the kernel matches a server's patterns with RE2), or a name two tools share
 * once made safe, is skipped and reported.
 *
 * Each tool is judged as its mapping says (see mapping.ts's judgementFor): the arguments it maps
 * become resources, and a tool nobody describes that is not marked read-only has unknown effects.
 *
 * @example
 * const { tools } = serverTools(conn, await conn.listTools(), { resources: { read_file: { path: 'fs.read' } } });
 */
export function serverTools(conn: ServerConnection, listed: readonly McpTool[], config: Pick<ServerConfig, 'resources' | 'trustAnnotations'>): ServerTools {
  const notes = newNotes();
  notes.legacy = usesServerWideForm(config.resources);
  notes.unmatched = unmatchedKeys(conn.name, config.resources, listed);
  const out: ServerTools = { tools: [], skipped: [], notes };
  const taken = new Map<string, string>();
  for (const mcp of listed) {
    const name = airlockToolName(conn.name, mcp.name);
    const other = taken.get(name);
    if (other !== undefined) {
      out.skipped.push({ tool: mcp.name, reason: `its Airlock name "${name}" is already taken by the server's tool "${other}"` });
      continue;
    }
    const schema = parametersOf(mcp.inputSchema);
    if (typeof schema === 'string') {
      out.skipped.push({ tool: mcp.name, reason: schema });
      continue;
    }
    taken.set(name, mcp.name);
    out.tools.push(toolFor(conn, mcp, name, schema, judgementFor(conn.name, mcp, config.resources, config.trustAnnotations ?? true, notes)));
  }
  return out;
}

function toolFor(conn: ServerConnection, mcp: McpTool, name: string, parameters: TSchema, judged: ToolJudgement): AgentTool<TSchema, McpResultDetails> {
  const summary = mcp.description?.trim() || `The tool "${mcp.name}".`;
  return {
    name,
    label: mcp.title ?? mcp.annotations?.title ?? `${conn.name}: ${mcp.name}`,
    description: `${summary}\n(From the MCP server "${conn.name}".)`,
    parameters,
    // Without a mapping nothing is declared: the tool is judged by its name, and the batch treats
    // it as one that may change files (a server can do anything), never as one that touches nothing.
    ...(Object.keys(judged.kinds).length === 0
      ? {}
      : { resources: (params: Record<string, unknown>, ctx: { cwd: string }) => mcpResources(judged.kinds, params, ctx) }),
    ...(judged.unknownEffects ? { effects: 'unknown' as const } : {}),
    judgedBy: judged.judgedBy,
    async execute(_id, params, signal) {
      return fromMcpResult(await conn.call(mcp.name, params as Record<string, unknown>, { ...(signal === undefined ? {} : { signal }) }));
    },
  } as AgentTool<TSchema, McpResultDetails>;
}

/** The tool's input schema as tool parameters, or why it cannot be one. */
function parametersOf(input: unknown): TSchema | string {
  if (typeof input !== 'object' || input === null || (input as { type?: unknown }).type !== 'object')
    return `its input schema is not a JSON Schema object (type "object")`;
  // `$schema` names a dialect; the kernel's validator needs none, and providers reject it.
  const { $schema: _dialect, ...schema } = input as Record<string, unknown>;
  try {
    // The kernel's own preparation: prepared once here, reused by every call's check.
    Compile(linearSchema(schema as TSchema));
  } catch (error) {
    if (error instanceof SchemaRegexError) {
      return `its input schema has a pattern Airlock cannot check safely, at ${error.message}. The server's author can rewrite the pattern; until then the tool is not offered`;
    }
    return `its input schema cannot be compiled: ${error instanceof Error ? error.message : String(error)}`;
  }
  return schema as TSchema;
}
