import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openHost, type Host } from '@airlock/host';
import { makeTempDir } from '@airlock/kernel/testing';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ToolResultMessage } from '@airlock/contract';

/** The test MCP server (McpServer from the SDK), spawned over stdio or served over HTTP. */
export const SERVER_FILE = fileURLToPath(new URL('./fixtures/mcp-server.mjs', import.meta.url));

/** A project folder, a home folder and a folder the server leaves marks in (all in one temp folder, removed after the test). */
export function machine() {
  const base = makeTempDir('mcp-tools-');
  const home = join(base, 'home');
  const project = join(base, 'project');
  const marks = join(project, 'marks');
  mkdirSync(join(home, '.config', 'airlock'), { recursive: true });
  mkdirSync(marks, { recursive: true });
  writeFileSync(join(project, 'notes.txt'), 'plain notes\n');
  writeFileSync(join(project, '.env'), 'API_KEY=hunter2-very-secret\n');
  const marked = (name: string) => existsSync(join(marks, name));
  const starts = () => readdirSync(marks).filter((f) => f.startsWith('started-')).length;
  const stops = () => readdirSync(marks).filter((f) => f.startsWith('stopped-')).length;
  const mark = (name: string) => readFileSync(join(marks, name), 'utf8');
  return { base, home, project, marks, marked, starts, stops, mark };
}
export type Machine = ReturnType<typeof machine>;

/** The stdio entry for the test server, as a user would paste it. */
export function stdioServer(m: Machine, extra: Record<string, unknown> = {}) {
  return { command: process.execPath, args: [SERVER_FILE], env: { MARKER_DIR: m.marks }, ...extra };
}

const hosts: Host[] = [];

/** Open a host on the project with these settings in code (a trusted layer) and the user's home; closed by closeHosts. */
export async function open(m: Machine, settings: Record<string, unknown>, more: { trust?: boolean; lines?: string[]; sandboxProgram?: string } = {}): Promise<Host> {
  const host = await openHost({
    cwd: m.project,
    interactive: false,
    // XDG_STATE_HOME too: the audit log (a default extension) writes there, and never in the real home.
    env: { HOME: m.home, XDG_CONFIG_HOME: join(m.home, '.config'), XDG_STATE_HOME: join(m.base, 'state'), PATH: process.env.PATH },
    homeDir: m.home,
    ...(more.trust === undefined ? {} : { trust: more.trust }),
    ...(more.sandboxProgram === undefined ? {} : { sandboxProgram: more.sandboxProgram }),
    log: (line) => void more.lines?.push(line),
    settings: settings as never,
  });
  hosts.push(host);
  return host;
}

export async function closeHosts(): Promise<void> {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
}

/** Settings that load mcp-tools with these servers. */
export function withServers(servers: Record<string, unknown>, more: Record<string, unknown> = {}) {
  return { extensions: [{ name: '@airlock/mcp-tools', options: { mcpServers: servers } }], ...more };
}

export function text(message: ToolResultMessage): string {
  return message.content.map((c) => (c.type === 'text' ? c.text : `[image ${c.mimeType}]`)).join('\n');
}

let callId = 0;
export function call(host: Host, name: string, args: Record<string, unknown> = {}, options: { signal?: AbortSignal; timeoutMs?: number } = {}) {
  return host.execute({ id: `c${++callId}`, name, arguments: args }, options);
}

/**
 * The test server over Streamable HTTP on 127.0.0.1 (a fresh McpServer per request, stateless),
 * built by the same module the stdio tests spawn.
 */
export async function httpServer(marks: string): Promise<{ url: string; close: () => Promise<void> }> {
  const { buildServer } = (await import(SERVER_FILE)) as { buildServer: (o: { markerDir: string }) => { connect(t: unknown): Promise<void>; close(): Promise<void> } };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const mcp = buildServer({ markerDir: marks });
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        res.on('close', () => void transport.close().then(() => mcp.close()));
        await mcp.connect(transport);
        const body = chunks.length > 0 ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown) : undefined;
        await transport.handleRequest(req, res, body);
      })().catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
