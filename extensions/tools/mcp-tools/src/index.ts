import type { AgentTool, Extension, ExtensionAPI } from '@airlock/contract';
import { ServerConnection, type McpTool } from './connection.js';
import { DEFAULT_STARTUP_TIMEOUT_MS, McpToolsOptions, type ServerConfig } from './options.js';
import { noteLines } from './mapping.js';
import { serverTools } from './server-tools.js';
import { airlockToolName } from './tool-name.js';

export { airlockToolName } from './tool-name.js';
export { fromMcpResult } from './result.js';
export { mcpResources } from './resources.js';
export { McpToolsOptions, ServerConfig } from './options.js';
export { ServerConnection } from './connection.js';

/** Beyond the slowest server's startupTimeout: closing a server that missed it, registering tools. */
const SETUP_MARGIN_MS = 3_000;

/** The version sent to servers as the client's. */
const VERSION = '1.0.0';

/** Each host's servers, found again by `dispose` (one module may serve several hosts). */
const serversOf = new WeakMap<ExtensionAPI, ServerConnection[]>();

/**
 * Tools from MCP servers. At load every server is started (in parallel, each within its
 * `startupTimeout`) and its tools listed and registered as `<server>__<tool>`; a `lazy` server
 * (the default) is then stopped until its first call, an `eager` one keeps running. A server that
 * fails to start is logged as an error naming it and what to do; its tools are not registered
 * and the others load. When a running server says its tool list changed, the set is replaced
 * (api.toolSet) and the change logged. The servers close when the host closes.
 *
 * Why list at load even for a lazy server: the model can only call tools it was shown, and the
 * tool list goes to the model before the first call. A cached list from an earlier run could show
 * tools that no longer exist, or with another schema, and would be one more file to guard; so
 * "lazy" saves the process (memory, sockets, its own children) for a session that never calls it,
 * not its start-up time.
 */
export default {
  name: 'mcp-tools',
  options: McpToolsOptions,
  async setup(api, options) {
    const servers: ServerConnection[] = [];
    serversOf.set(api, servers);
    const entries = Object.entries(options.mcpServers ?? {});
    await Promise.all(entries.map(([name, config]) => addServer(api, servers, name, config)));
  },
  // Servers start side by side, each within its own startupTimeout (which settings may raise for
  // a slow one, e.g. npx fetching it): setup needs the longest of them, plus room to close one
  // that missed it. Without saying so, the host's 10 s limit would drop the whole extension.
  setupTimeoutMs: (options) =>
    Math.max(0, ...Object.values(options.mcpServers ?? {}).map((c) => c.startupTimeout ?? DEFAULT_STARTUP_TIMEOUT_MS)) + SETUP_MARGIN_MS,
  async dispose(api) {
    const servers = serversOf.get(api) ?? [];
    await Promise.all(servers.map((s) => s.close()));
  },
} satisfies Extension<typeof McpToolsOptions>;

async function addServer(api: ExtensionAPI, servers: ServerConnection[], name: string, config: ServerConfig): Promise<void> {
  warnUnexpanded(api, name, config);
  const conn = new ServerConnection(name, config, {
    cwd: api.cwd,
    ...(api.processSandbox === undefined ? {} : { sandbox: api.processSandbox }),
    log: api.log,
    version: VERSION,
  });
  servers.push(conn);
  let listed: McpTool[];
  try {
    listed = await withDeadline(conn.listTools(), config.startupTimeout ?? DEFAULT_STARTUP_TIMEOUT_MS);
  } catch (error) {
    await conn.close();
    api.log.error(
      `MCP server "${name}" did not start: ${error instanceof Error ? error.message : String(error)}. Its tools are not registered; ` +
        `the other servers still load. Check its ${'command' in config ? 'command, args and env' : 'url and headers'} in settings (mcpServers.${name}), ` +
        'or raise its startupTimeout.',
    );
    return;
  }
  const set = api.toolSet?.(name);
  let last = '';
  const register = (tools: readonly McpTool[]): void => {
    // A lazy server lists again at each start; the same list again is no change.
    const key = JSON.stringify(tools.map((t) => [t.name, t.title, t.description, t.inputSchema]));
    if (key === last) return;
    const first = last === '';
    last = key;
    const made = serverTools(conn, tools, config);
    for (const line of noteLines(name, made.notes)) api.log.warn(line);
    if (first) adviseMapping(api, name, tools, made.tools);
    for (const s of made.skipped) api.log.warn(`MCP server "${name}": tool "${s.tool}" is not registered: ${s.reason}`);
    if (set !== undefined) set.replace(made.tools);
    else for (const tool of made.tools) registerOne(api, name, tool);
  };
  register(listed);
  if (set !== undefined) conn.onToolsChanged = register;
  else conn.onToolsChanged = () => api.log.warn(`MCP server "${name}" changed its tool list, but this host cannot change tools after load; restart to see the new list`);
  if ((config.startup ?? 'lazy') === 'lazy') await conn.stop();
}

function registerOne(api: ExtensionAPI, server: string, tool: AgentTool): void {
  try {
    api.registerTool(tool);
  } catch (error) {
    api.log.warn(`MCP server "${server}": tool "${tool.name}" is not registered: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Claude Code expands `${VAR}` in these fields; Airlock does not, so a pasted `${TOKEN}` would be sent as those characters. */
function warnUnexpanded(api: ExtensionAPI, name: string, config: ServerConfig): void {
  const values = 'command' in config ? [config.command, ...(config.args ?? []), ...Object.values(config.env ?? {})] : [config.url, ...Object.values(config.headers ?? {})];
  if (values.some((v) => /\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}/.test(v)))
    api.log.warn(
      `MCP server "${name}": a value contains \${…}, which Airlock does not expand (a settings file would otherwise hand your environment's secrets to the server). ` +
        'Write the value itself in your user settings.',
    );
}


/** The server's whole start and listing within one limit, so a slow server cannot hold the host's setup. */
async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`it did not start and list its tools within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

const PATH_LIKE = /^(path|paths|file|files|dir|directory|folder|filename)$|(Path|File|Dir)s?$|_(path|file|dir)s?$/;

/** A tool that takes a path but has no mapping is judged by its name only: say how to change that, once per server. */
function adviseMapping(api: ExtensionAPI, server: string, listed: readonly McpTool[], made: readonly AgentTool[]): void {
  const byName = new Map(made.map((t) => [t.name, t]));
  const unjudged: { mcp: McpTool; paths: string[] }[] = [];
  for (const mcp of listed) {
    const tool = byName.get(airlockToolName(server, mcp.name));
    if (tool === undefined || tool.resources !== undefined) continue;
    const properties = (tool.parameters as { properties?: Record<string, unknown> }).properties ?? {};
    const paths = Object.keys(properties).filter((key) => PATH_LIKE.test(key));
    if (paths.length > 0) unjudged.push({ mcp, paths });
  }
  if (unjudged.length === 0) return;
  // The example takes the server at its word: a tool it marks read-only reads, any other writes.
  const example = Object.fromEntries(
    unjudged.slice(0, 2).map(({ mcp, paths }) => [mcp.name, Object.fromEntries(paths.map((k) => [k, mcp.annotations?.readOnlyHint === true ? 'fs.read' : 'fs.write']))]),
  );
  api.log.info(
    `MCP server "${server}": ${unjudged.map(({ mcp, paths }) => `${mcp.name} (${paths.join(', ')})`).join(', ')} take${unjudged.length === 1 ? 's' : ''} arguments that look like paths, but no mapping names them, so the policy judges ${unjudged.length === 1 ? 'it' : 'them'} by name only. ` +
      `To judge them by the files they name, map each tool in mcpServers.${server}.resources, e.g. ${JSON.stringify(example)} (see the @airlock/mcp-tools README).`,
  );
}
