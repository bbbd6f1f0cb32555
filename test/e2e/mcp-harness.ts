import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { onTestFinished } from 'vitest';
import { BIN, sandbox } from './harness.js';

type Sandbox = ReturnType<typeof sandbox>;

export interface Connected {
  client: Client;
  /** What the server wrote on stderr so far. */
  stderr(): string;
  /** The `airlock mcp` process, for a test that signals it. */
  pid(): number | null;
}

/**
 * The SDK's own Client over StdioClientTransport, spawning the real binary as an MCP client
 * would (`airlock --cwd DIR mcp`), in the sandbox's home. Closed when the test finishes.
 * `elicit` makes the client declare the elicitation capability and answers each request.
 */
export async function connect(
  s: Sandbox,
  options: { args?: string[]; env?: Record<string, string>; elicit?: (request: ElicitRequest) => ElicitResult | Promise<ElicitResult> } = {},
): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, '--cwd', s.project, ...(options.args ?? []), 'mcp'],
    env: { HOME: s.home, XDG_CONFIG_HOME: `${s.home}/.config`, PATH: process.env.PATH ?? '/usr/bin:/bin', NO_COLOR: '1', ...options.env },
    cwd: s.base,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'airlock-e2e', version: '1.0.0' }, { capabilities: options.elicit === undefined ? {} : { elicitation: {} } });
  if (options.elicit !== undefined) client.setRequestHandler(ElicitRequestSchema, (request) => options.elicit!(request));
  onTestFinished(() => client.close());
  await client.connect(transport);
  return { client, stderr: () => stderr, pid: () => transport.pid };
}

/** The text of a tools/call result. */
export function textOf(result: object): string {
  return (((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[]).map((b) => (b.type === 'text' ? b.text : '')).join('');
}
