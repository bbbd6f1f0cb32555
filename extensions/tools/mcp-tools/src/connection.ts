import { resolve } from 'node:path';
import type { Logger, SandboxService } from '@airlock/contract';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, type CallToolResult, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_STARTUP_TIMEOUT_MS, isStdio, type ServerConfig } from './options.js';

export type { McpTool };

/** What a connection needs from the extension's setup. */
export interface ConnectionDeps {
  /** The working folder: a stdio server starts there unless its `cwd` says otherwise. */
  cwd: string;
  /** The host's sandbox for long-lived processes (api.processSandbox); undefined when it offers none. */
  sandbox?: SandboxService;
  log: Logger;
  /** Sent to the server as the client's version. */
  version: string;
}

/** How much of a server's stderr is kept for error messages. */
const STDERR_TAIL = 2_000;

/**
 * One MCP server: started on demand (again after it stopped or crashed), its tools listed page
 * by page, calls made with a time limit and the caller's abort signal (both reach the server as
 * `notifications/cancelled`), and closed for good when the host closes.
 *
 * @example
 * const conn = new ServerConnection('fs', { command: 'node', args: ['server.mjs'] }, deps);
 * const tools = await conn.listTools();
 * const result = await conn.call('read_file', { path: 'a.txt' }, { signal });
 * await conn.close();
 */
export class ServerConnection {
  /** Called with the server's new tool list when it says the list changed, and after each restart. */
  onToolsChanged: ((tools: McpTool[]) => void) | undefined;
  #client: Client | undefined;
  #starting: Promise<Client> | undefined;
  #closed = false;
  #starts = 0;
  #stderr = '';
  /** Clients Airlock closed itself: a listing they had under way fails, and that is no news. */
  readonly #stopped = new WeakSet<Client>();

  constructor(
    readonly name: string,
    readonly config: ServerConfig,
    readonly deps: ConnectionDeps,
  ) {}

  get running(): boolean {
    return this.#client !== undefined;
  }

  /** The connected client, starting the server when it is not running. */
  client(): Promise<Client> {
    if (this.#closed) return Promise.reject(new Error(`MCP server "${this.name}" is closed (the host is closing)`));
    if (this.#client !== undefined) return Promise.resolve(this.#client);
    this.#starting ??= this.#start().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  /** Every tool the server lists (all pages), within the start-up time limit. */
  async listTools(): Promise<McpTool[]> {
    return this.#listWith(await this.client());
  }

  /**
   * Call a tool. Rejects with the caller's abort reason when `signal` aborts, and with an Error
   * saying what happened when the time limit passes or the server goes away mid-call.
   */
  async call(tool: string, args: Record<string, unknown>, { signal }: { signal?: AbortSignal }): Promise<CallToolResult> {
    let client: Client;
    try {
      client = await this.client();
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw new Error(`MCP server "${this.name}" could not be started for this call: ${error instanceof Error ? error.message : String(error)}`);
    }
    const timeout = this.config.timeout ?? DEFAULT_CALL_TIMEOUT_MS;
    try {
      return (await client.callTool({ name: tool, arguments: args }, undefined, { timeout, ...(signal === undefined ? {} : { signal }) })) as CallToolResult;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
        throw new Error(`MCP server "${this.name}" did not answer within ${timeout} ms; the call was cancelled on the server. Try again, or raise "timeout" for this server in settings.`);
      if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed)
        throw new Error(`MCP server "${this.name}" closed the connection during the call (it may have crashed)${this.#stderrNote()}. It starts again at the next call.`);
      throw error;
    }
  }

  /** Stop the server (a lazy server after listing); the next call starts it again. */
  async stop(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    if (client !== undefined) this.#stopped.add(client);
    await client?.close().catch(() => undefined);
  }

  /** Stop for good: later calls are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#starting?.catch(() => undefined);
    await this.stop();
  }

  async #start(): Promise<Client> {
    const startupTimeout = this.config.startupTimeout ?? DEFAULT_STARTUP_TIMEOUT_MS;
    const client = new Client(
      { name: 'airlock', version: this.deps.version },
      { capabilities: {}, listChanged: { tools: { autoRefresh: false, onChanged: () => void this.#refresh(client) } } },
    );
    const { transport, release } = await this.#transport();
    client.onclose = () => {
      if (this.#client === client) this.#client = undefined;
      release();
    };
    try {
      await client.connect(transport, { timeout: startupTimeout });
    } catch (error) {
      await client.close().catch(() => undefined);
      await transport.close().catch(() => undefined);
      release();
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
        throw new Error(`it did not answer "initialize" within ${startupTimeout} ms${this.#stderrNote()}`);
      throw new Error(`${error instanceof Error ? error.message : String(error)}${this.#stderrNote()}`);
    }
    if (this.#closed) {
      await client.close().catch(() => undefined);
      throw new Error(`MCP server "${this.name}" is closed (the host is closing)`);
    }
    this.#client = client;
    this.#starts++;
    // A server started again may list other tools than it did at load.
    if (this.#starts > 1) void this.#refresh(client);
    return client;
  }

  async #transport(): Promise<{ transport: Transport; release: () => void }> {
    const config = this.config;
    if (!isStdio(config)) {
      const transport = new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: { ...(config.headers ?? {}) } } });
      return { transport, release: () => undefined };
    }
    const cwd = resolve(this.deps.cwd, config.cwd ?? '.');
    // Never Airlock's own environment: the SDK's short list (HOME, PATH, …) plus what settings name.
    const env = { ...getDefaultEnvironment(), ...(config.env ?? {}) };
    const argv = [config.command, ...(config.args ?? [])];
    let line = { file: config.command, args: config.args ?? [], env };
    let release = (): void => undefined;
    const sandbox = this.deps.sandbox;
    if (sandbox?.status.active) {
      const wrapped = await sandbox.wrap(argv, { cwd, env });
      line = { file: wrapped.file, args: [...wrapped.args], env: wrapped.env };
      release = () => void wrapped.release();
    } else if (sandbox?.status.mode === 'required') {
      throw new Error(`sandbox.mode is "required" and the OS sandbox cannot start (${sandbox.status.problem ?? 'unavailable'}), so the server may not run. ${sandbox.status.fix ?? ''}`.trim());
    }
    const transport = new StdioClientTransport({ command: line.file, args: line.args, env: line.env, cwd, stderr: 'pipe' });
    transport.stderr?.on('data', (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    return { transport, release };
  }

  async #listWith(client: Client): Promise<McpTool[]> {
    const tools: McpTool[] = [];
    const timeout = this.config.startupTimeout ?? DEFAULT_STARTUP_TIMEOUT_MS;
    let cursor: string | undefined;
    // A server that pages forever is cut off: 100 pages is far beyond any real tool list.
    for (let page = 0; page < 100; page++) {
      const result = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) break;
    }
    return tools;
  }

  async #refresh(client: Client): Promise<void> {
    try {
      const tools = await this.#listWith(client);
      if (this.#client === client) this.onToolsChanged?.(tools);
    } catch (error) {
      // A server announces list changes as it starts (server-everything does); when Airlock has
      // stopped that connection meanwhile (a lazy server after listing) or the host is closing,
      // the listing fails with "Not connected", and the next start lists again anyway.
      if (this.#stopped.has(client) || this.#closed) return;
      this.deps.log.warn(`MCP server "${this.name}": listing its tools again failed (${error instanceof Error ? error.message : String(error)}); its tools stay as they were`);
    }
  }

  #stderrNote(): string {
    const tail = this.#stderr.trim();
    return tail === '' ? '' : `; its last words on stderr: ${tail.split('\n').slice(-5).join(' | ')}`;
  }
}
