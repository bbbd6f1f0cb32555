import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openHost } from '@airlock/host';
import { makeTempDir } from '@airlock/kernel/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createElicitationUI, createMcpServer } from '../src/index.js';

/** A real host whose settings ask before every read, behind the MCP server, with the SDK's client answering forms in memory. */

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

async function askingHost(answer: () => ElicitResult | Promise<ElicitResult>, approval: Record<string, unknown> = {}) {
  const base = makeTempDir('airlock-mcp-reasons-');
  const home = join(base, 'home');
  const project = join(base, 'project');
  mkdirSync(join(home, '.config', 'airlock'), { recursive: true });
  mkdirSync(project);
  writeFileSync(join(project, 'a.txt'), 'SECRET PLAN\n');
  writeFileSync(join(home, '.config', 'airlock', 'settings.json'), JSON.stringify({ permissions: { ask: ['read'] }, extensions: [{ name: '@airlock/approval', options: approval }] }));
  const ui = createElicitationUI({ log: () => {} });
  const host = await openHost({ cwd: project, interactive: false, ui, env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), PATH: process.env.PATH ?? '' }, homeDir: home });
  open.push(host);
  const mcp = createMcpServer(host, { ui, log: () => {} });
  const client = new Client({ name: 'test', version: '0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, answer);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await mcp.connect(a);
  await client.connect(b);
  open.push(client);
  const call = async () => {
    const result = await client.callTool({ name: 'read', arguments: { path: 'a.txt' } });
    const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
    return { isError: result.isError, text };
  };
  return { call };
}

describe('airlock serve over MCP: an approval that ends without a yes says how it ended', () => {
  it('a declined form: "declined", not a time-out', async () => {
    const { call } = await askingHost(() => ({ action: 'decline' }));
    const r = await call();
    expect(r.isError).toBe(true);
    expect(r.text).toContain('the person declined the dialog');
    expect(r.text).not.toMatch(/no answer within|did not say why/);
    expect(r.text).not.toContain('SECRET PLAN');
  });

  it('a cancelled form: "cancelled"', async () => {
    const { call } = await askingHost(() => ({ action: 'cancel' }));
    const r = await call();
    expect(r.text).toContain('the dialog was cancelled');
    expect(r.text).not.toMatch(/no answer within|declined/);
  });

  it('an accepted answer that is not one of the choice ids: treated as no, and said so, naming the ids', async () => {
    const { call } = await askingHost(() => ({ action: 'accept', content: { choice: 'Allow once' } }));
    const r = await call();
    expect(r.isError).toBe(true);
    expect(r.text).toContain('the answer was not one of the choices, so it counts as no (got "Allow once"; the choices are "once", "deny", "deny-with-reason")');
    expect(r.text).not.toMatch(/no answer within|declined|nobody could answer/);
    expect(r.text).not.toContain('SECRET PLAN');
  });

  it('nobody answers: a time-out, with its length (the only case that says so)', async () => {
    const { call } = await askingHost(() => new Promise<ElicitResult>(() => {}), { timeoutMs: 1000 });
    const r = await call();
    expect(r.text).toContain('no answer within 1 s');
  });

  it('the id "once" lets the call run', async () => {
    const { call } = await askingHost(() => ({ action: 'accept', content: { choice: 'once' } }));
    const r = await call();
    expect(r.isError).toBe(false);
    expect(r.text).toContain('SECRET PLAN');
  });
});
