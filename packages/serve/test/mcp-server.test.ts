import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openHost, type Host, type OpenHostOptions } from '@airlock/host';
import { makeTempDir } from '@airlock/kernel/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { defineExtension, type AgentTool, type ToolSet } from '@airlock/contract';
import { createElicitationUI, createMcpServer, toolAnnotations } from '../src/index.js';

/** The MCP server as a library: a real host on a temp folder, the SDK's client in memory. */

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

/** A host whose `dyn` extension keeps a tool set the test replaces later (as mcp-tools does on a server's list_changed). */
async function setUpWithToolSet(): Promise<{ host: Host; set: ToolSet }> {
  let set: ToolSet | undefined;
  const dyn = defineExtension({
    name: 'dyn',
    setup(api) {
      set = api.toolSet!('server');
      set.replace([answering('dyn__one')]);
    },
  });
  const { host } = await setUp({ modules: [{ extension: dyn, optional: true }] });
  return { host, set: set! };
}

function answering(name: string): AgentTool {
  return { name, label: name, description: `Answers with its name (${name}).`, parameters: Type.Object({}), execute: async () => ({ content: [{ type: 'text', text: name }] }) };
}

async function setUp(more: Pick<OpenHostOptions, 'modules'> = {}): Promise<{ host: Host; project: string }> {
  const base = makeTempDir('airlock-mcp-');
  const home = join(base, 'home');
  const project = join(base, 'project');
  mkdirSync(join(home, '.config'), { recursive: true });
  mkdirSync(project);
  writeFileSync(join(project, 'a.txt'), 'alpha\n');
  const ui = createElicitationUI();
  const host = await openHost({ cwd: project, interactive: false, ui, env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), PATH: process.env.PATH ?? '' }, homeDir: home, ...more });
  open.push(host);
  return { host, project };
}

async function connected(host: Host) {
  const mcp = createMcpServer(host, { log: () => {} });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'test', version: '0' });
  const changes: number[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes.push(Date.now()));
  await mcp.connect(serverSide);
  await client.connect(clientSide);
  open.push(client);
  return { mcp, client, changes };
}

const until = async (done: () => boolean, ms = 2000): Promise<void> => {
  for (const end = Date.now() + ms; !done() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 10));
};

describe('createMcpServer: the tool set', () => {
  it('setTools narrows the list, tells the client (tools/list_changed), and calls follow the new set', async () => {
    const { host } = await setUp();
    const { mcp, client, changes } = await connected(host);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('bash');

    mcp.setTools(['read', 'ls']);
    await until(() => changes.length === 1);
    expect(changes).toHaveLength(1);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['read', 'ls']);
    const bash = await client.callTool({ name: 'bash', arguments: { command: 'echo hi' } });
    expect(bash.isError).toBe(true);
    expect(bash._meta).toEqual({ 'airlock/outcome': 'not_found' });
    const read = await client.callTool({ name: 'read', arguments: { path: 'a.txt' } });
    expect(read.content).toEqual([{ type: 'text', text: 'alpha\n' }]);

    // The same set again is no change: no notification.
    mcp.setTools(['read', 'ls']);
    // Back to the host's whole set.
    mcp.setTools();
    await until(() => changes.length === 2);
    await new Promise((r) => setTimeout(r, 50));
    expect(changes).toHaveLength(2);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('bash');
  });

  it('the host’s own change (an extension’s tool set) reaches the client: one tools/list_changed, the new list, calls to the new tool run', async () => {
    const { host, set } = await setUpWithToolSet();
    const { client, changes } = await connected(host);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('dyn__one');

    set.replace([answering('dyn__two'), answering('dyn__three')]);
    await until(() => changes.length === 1);
    await new Promise((r) => setTimeout(r, 50));
    expect(changes).toHaveLength(1);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['dyn__two', 'dyn__three', 'read']));
    expect(names).not.toContain('dyn__one');
    expect((await client.callTool({ name: 'dyn__two', arguments: {} })).content).toEqual([{ type: 'text', text: 'dyn__two' }]);
    expect((await client.callTool({ name: 'dyn__one', arguments: {} }))._meta).toEqual({ 'airlock/outcome': 'not_found' });
  });

  it('after setTools, a host change stays within the choice: a chosen tool that goes away leaves the list, new tools do not join it', async () => {
    const { host, set } = await setUpWithToolSet();
    const { mcp, client, changes } = await connected(host);
    mcp.setTools(['read', 'dyn__one']);
    await until(() => changes.length === 1);

    set.replace([answering('dyn__one'), answering('dyn__new')]);
    await new Promise((r) => setTimeout(r, 50));
    // dyn__one was replaced by a new definition (same schema and text): the list the client sees is the same, so no notification.
    expect(changes).toHaveLength(1);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['read', 'dyn__one']);

    set.replace([answering('dyn__new')]);
    await until(() => changes.length === 2);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['read']);
  });

  it('setTools cannot offer a tool the host did not enable', async () => {
    const { host } = await setUp();
    const { mcp, client, changes } = await connected(host);
    expect(() => mcp.setTools(['read', 'secret_tool'])).toThrow(/"secret_tool" is not in the host's enabled set .*--tools/);
    await new Promise((r) => setTimeout(r, 50));
    expect(changes).toHaveLength(0);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('bash');
  });
});

describe('toolAnnotations', () => {
  it('decides from what a tool declares: replay "safe" is read-only, anything else may destroy', () => {
    expect(toolAnnotations({ replay: 'safe' })).toEqual({ readOnlyHint: true });
    expect(toolAnnotations({ replay: 'never' })).toEqual({ readOnlyHint: false, destructiveHint: true });
    // A third-party tool that says nothing is not presented as harmless.
    expect(toolAnnotations({})).toEqual({ readOnlyHint: false, destructiveHint: true });
  });
});
