import type { Static, TSchema } from 'typebox';
import type { AgentToolResult } from './content.js';
import type { ToolContext } from './context.js';
import type { Resource } from './resource.js';
import type { ShellAnalysis } from './shell-analysis.js';

export type ToolUpdateCallback<D = unknown> = (partial: AgentToolResult<D>) => void;

/**
 * A tool: a TypeBox schema (the static type and the runtime JSON Schema at once) plus `execute`.
 *
 * @example
 * const echo = defineTool({
 *   name: 'echo', label: 'Echo', description: 'Repeat the text back.',
 *   parameters: Type.Object({ text: Type.String() }),
 *   async execute(_id, { text }) { return { content: [{ type: 'text', text }] }; },
 * });
 */
export interface AgentTool<P extends TSchema = TSchema, D = unknown> {
  /** Unique in the registry; lowercase letters, digits and `_ : - /`. */
  name: string;
  /** Human name for UIs. */
  label: string;
  /** Goes to the model: say what the tool does, its limits, and when to use it. */
  description: string;
  /**
   * Rules for using the tool well, one sentence each. An agent's system prompt lists them under
   * the tool's line while the tool is enabled (and never when it is not).
   *
   * @example promptGuidelines: ['Use write only for new files or complete rewrites; use edit for changes.']
   */
  promptGuidelines?: string[];
  parameters: P;
  /**
   * A compatibility shim run on the raw arguments before validation (old argument shapes, JSON
   * sent as a string). Return the arguments to validate. If it throws, the outcome is `invalid`.
   */
  prepareArguments?: (args: unknown) => unknown;
  /**
   * Do the work. Throw on failure: the kernel turns the throw into an `isError` result. Honour
   * `signal` early. `onUpdate` streams partial results; updates after the promise settles are dropped.
   * `ctx` is always given (the kernel, `createToolHarness`, or `createTestContext()` in a test), so
   * a tool needs no "was I given a context?" check. A tool may declare fewer parameters.
   */
  execute(
    toolCallId: string,
    params: Static<P>,
    signal: AbortSignal | undefined,
    onUpdate: ToolUpdateCallback<D> | undefined,
    ctx: ToolContext,
  ): Promise<AgentToolResult<D>>;
  /** May a recorded call be executed again when a session is replayed? Default "never". */
  replay?: 'never' | 'safe';
  /** "sequential" makes every batch that contains a call to this tool run one call at a time. */
  executionMode?: 'parallel' | 'sequential';
  /** What a call touches, for policy. Computed on the final, validated arguments. */
  resources?: (params: Static<P>, ctx: ToolContext) => Resource[];
  /**
   * How this tool's command lines parse, for a tool that declares `exec` resources (bash uses
   * `@airlock/shell-analysis`'s analyzeShell). Handlers reach it through `event.analyzeCommand`,
   * which calls it at most once per command per call and shares the answer; it should resolve to
   * `ok: false` rather than guess. Without it, `event.analyzeCommand` is undefined.
   *
   * @example analyzeCommand: async (command) => (await import('@airlock/shell-analysis')).analyzeShell(command)
   */
  analyzeCommand?: (command: string) => Promise<ShellAnalysis>;
  /**
   * `'unknown'`: nobody has said what this tool's calls do beyond its name (and its resources, if
   * it declares any), and it does not say it only reads: a tool of an MCP server that no mapping in
   * the settings describes, say. Policies judge such calls as having unknown effects (path-policy
   * asks unless a `Tool(...)` rule names the tool: `default:unknown-effects`), and a batch treats
   * them as a barrier that may change files. Leave it out when resources() or the name says enough.
   */
  effects?: 'unknown';
  /**
   * Where this tool's resources come from, in one sentence for a person reading `policy explain`:
   * a mapping in settings, or why there is none.
   *
   * @example judgedBy: 'mcpServers.fs.resources["write_file"]: {"path":"fs.write"}'
   */
  judgedBy?: string;
  /** Replace a tool of the same name that is already registered, instead of failing. */
  override?: boolean;
}

/** Identity helper that infers `params` from the schema. */
export function defineTool<P extends TSchema, D = unknown>(tool: AgentTool<P, D>): AgentTool<P, D> {
  return tool;
}

/** Any tool, whatever its schema: the registry's element type. */
// `any`: the registry must accept every tool's params type.
export type AnyAgentTool = AgentTool<any, any>;
