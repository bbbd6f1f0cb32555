/**
 * `createMcpServer(host)`: an open host behind the Model Context Protocol. Every `tools/call` runs
 * through the host's kernel (validation, policy, approval, redaction, audit, the sandbox), exactly
 * as `host.execute` would; the server only translates.
 *
 * Built on the SDK's low-level `Server`, not `McpServer`: Airlock's tools carry JSON Schemas
 * (McpServer wants zod), and McpServer's own argument check would answer before the kernel's, so
 * auditors would not see invalid calls.
 */
import type { Host } from '@airlock/host';
import type { KernelEvent, ToolCall } from '@airlock/contract';
import type { ToolSelection } from '@airlock/kernel';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { toMcpResult, type McpCallResult } from './call-result.js';
import type { ElicitationUI } from './elicitation-ui.js';
import { progressReporter, type ProgressOptions } from './progress.js';
import { paramsProblem } from './request-params.js';
import { mcpToolSet, type ListedTool } from './tool-list.js';

export interface McpServerOptions {
  /**
   * The UI the host was opened with, when it is an elicitation UI: the server attaches it, so
   * approval prompts become elicitation requests to clients that support them.
   */
  ui?: ElicitationUI;
  /** `serverInfo` sent at initialize. Default `{ name: 'airlock', version: '1.0.0' }`. */
  name?: string;
  version?: string;
  progress?: ProgressOptions;
  /** Protocol problems (a malformed message, a failed send): one line each. Default: stderr. */
  log?: (line: string) => void;
}

export interface AirlockMcpServer {
  /** The SDK server (for capabilities, `onclose`, extra handlers). */
  readonly server: Server;
  /** What `tools/list` answers now. */
  readonly tools: readonly ListedTool[];
  connect(transport: Transport): Promise<void>;
  /**
   * Offer only these tools (undefined: the host's whole enabled set) and tell the client with
   * `notifications/tools/list_changed` when the list changed. Only tools the host enabled can be
   * chosen: settings, flags and bare-tool deny rules still apply. Throws naming any other name.
   * The host's own changes (`host.onToolsChanged`) are offered the same way, within this choice.
   */
  setTools(names?: readonly string[]): void;
  close(): Promise<void>;
}

interface Offered {
  selection: ToolSelection;
  tools: ListedTool[];
  names: ReadonlyMap<string, string>;
}

/**
 * @example
 * const ui = createElicitationUI();
 * const host = await openHost({ cwd, interactive: false, ui });
 * const mcp = createMcpServer(host, { ui });
 * await mcp.connect(new LineTransport(process.stdin, process.stdout));
 */
export function createMcpServer(host: Host, options: McpServerOptions = {}): AirlockMcpServer {
  const log = options.log ?? ((line: string) => void process.stderr.write(`airlock: ${line}\n`));
  const server = new Server(
    { name: options.name ?? 'airlock', version: options.version ?? '1.0.0' },
    { capabilities: { tools: { listChanged: true } }, instructions: instructions(host) },
  );
  server.onerror = (error) => log(`mcp: ${error.message}`);
  options.ui?.attach(server);

  let offered = offer(host.selection);
  /** What setTools last chose (undefined: the host's whole enabled set). */
  let chosen: readonly string[] | undefined;
  let sequence = 0;
  const reoffer = (next: Offered): void => {
    const changed = JSON.stringify(next.tools) !== JSON.stringify(offered.tools);
    offered = next;
    if (changed && server.transport !== undefined) void server.sendToolListChanged().catch((error: Error) => log(`mcp: could not send tools/list_changed: ${error.message}`));
  };
  // The host's enabled set changed (an extension's tool set: an MCP server behind mcp-tools added
  // or dropped tools): offer the new set, still narrowed to what setTools chose.
  const stopWatching = host.onToolsChanged((selection) => {
    const names = chosen?.filter((name) => selection.has(name));
    reoffer(offer(names === undefined ? selection : host.kernel.registry.select({ tools: [...names] })));
  });

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: offered.tools }));

  server.setRequestHandler(CallToolRequestSchema, async ({ params }, extra): Promise<McpCallResult> => {
    const { selection, names } = offered;
    // An unknown name goes to the kernel as given: its not_found result lists the close names.
    const call: ToolCall = { id: `mcp_${String(extra.requestId)}_${++sequence}`, name: names.get(params.name) ?? params.name, arguments: params.arguments ?? {} };
    const token = params._meta?.progressToken;
    const progress = token === undefined ? undefined : progressReporter(token, (n) => extra.sendNotification(n), options.progress);
    const onEvent =
      progress === undefined
        ? undefined
        : (event: KernelEvent) => {
            if (event.type === 'tool_execution_update' && event.toolCallId === call.id) progress.update(event.partial.content);
          };
    try {
      // The client's notifications/cancelled aborts extra.signal: it reaches the tool's AbortSignal.
      const { messages } = await host.batch([call], { tools: selection, signal: extra.signal, ...(onEvent === undefined ? {} : { onEvent }) });
      return toMcpResult(messages[0]!);
    } finally {
      progress?.finish();
    }
  });

  return {
    server,
    get tools() {
      return offered.tools;
    },
    async connect(transport) {
      await server.connect(transport);
      // Between the transport and the SDK's dispatch: bad params get -32602, not the SDK's -32603.
      const dispatch = transport.onmessage;
      transport.onmessage = (message, extra) => {
        const problem = paramsProblem(message);
        if (problem === undefined) return dispatch?.(message, extra);
        const id = (message as { id: string | number }).id;
        void transport
          .send({ jsonrpc: '2.0', id, error: { code: ErrorCode.InvalidParams, message: `Invalid params for ${(message as { method: string }).method}: ${problem}` } })
          .catch((error: Error) => log(`mcp: could not answer a request with invalid params: ${error.message}`));
      };
    },
    setTools(names) {
      const next = offer(names === undefined ? host.selection : narrowed(host, names));
      chosen = names === undefined ? undefined : [...names];
      reoffer(next);
    },
    close: async () => {
      stopWatching();
      await server.close();
    },
  };
}

function offer(selection: ToolSelection): Offered {
  return { selection, ...mcpToolSet(selection) };
}

/** A subset of the host's enabled set; a name outside it is refused, never added. */
function narrowed(host: Host, names: readonly string[]): ToolSelection {
  const outside = names.filter((name) => !host.selection.has(name));
  if (outside.length > 0) {
    const enabled = host.selection.enabled.map((entry) => entry.tool.name).join(', ') || 'none';
    throw new Error(
      `setTools: ${outside.map((n) => JSON.stringify(n)).join(', ')} ${outside.length === 1 ? 'is' : 'are'} not in the host's enabled set (${enabled}). ` +
        'Enable a tool through the settings or the --tools flags; the MCP server can only offer fewer.',
    );
  }
  return host.kernel.registry.select({ tools: names });
}

/** What the client (and so the model) is told at initialize; a blocked host says it up front. */
function instructions(host: Host): string {
  const base =
    "Airlock's guarded tools: every call is checked against the project's policy, may need a person's approval, " +
    'and is audited; a refused call comes back as an error result that says why and what to do.';
  return host.blocked === undefined ? base : `${base}\nEvery call is refused right now: ${host.blocked.message}\nFix: ${host.blocked.fix}`;
}
