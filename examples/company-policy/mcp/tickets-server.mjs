#!/usr/bin/env node
// A stand-in for the company's ticket tracker, as an MCP server over stdio: two tools that read
// (list_tickets, get_ticket) and one that changes the tracker (close_ticket). The pack's settings
// allow the readers and ask before close_ticket (docs in ../README.md).
//
// The tickets live in this process's memory, seeded from SEED below, so the example needs no
// tracker account; a real server would call the tracker's API instead. Every close that reaches
// the server is also printed on stderr, so an operator (and the pack's test) can see that a
// refused call never arrived.
import { pathToFileURL } from 'node:url';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const SEED = [
  { id: 'SEC-101', title: 'Rotate the staging database password', status: 'open', assignee: 'ana' },
  { id: 'SEC-102', title: 'Pin the CI runner image by digest', status: 'open', assignee: 'bo' },
  { id: 'SEC-103', title: 'Remove the old VPN profile', status: 'closed', assignee: 'ana' },
];

/**
 * The server with its three tools, over a fresh copy of the seed tickets.
 *
 * @example const server = buildTicketsServer(); await server.connect(new StdioServerTransport());
 */
export function buildTicketsServer() {
  const tickets = new Map(SEED.map((t) => [t.id, { ...t }]));
  const server = new McpServer({ name: 'tickets', version: '1.0.0' });
  const line = (t) => `${t.id}  [${t.status}]  ${t.title}  (@${t.assignee})`;
  const unknown = (id) => ({ isError: true, content: [{ type: 'text', text: `No ticket ${id}. list_tickets shows the ids.` }] });

  server.registerTool(
    'list_tickets',
    {
      description: 'List tickets, optionally only those with one status.',
      inputSchema: { status: z.enum(['open', 'closed']).optional() },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ status }) => {
      const rows = [...tickets.values()].filter((t) => status === undefined || t.status === status);
      return { content: [{ type: 'text', text: rows.length === 0 ? 'No tickets.' : rows.map(line).join('\n') }] };
    },
  );
  server.registerTool(
    'get_ticket',
    { description: 'Show one ticket by id (e.g. SEC-101).', inputSchema: { id: z.string().min(1) }, annotations: { readOnlyHint: true, openWorldHint: false } },
    async ({ id }) => {
      const t = tickets.get(id);
      return t === undefined ? unknown(id) : { content: [{ type: 'text', text: line(t) }], structuredContent: { ...t } };
    },
  );
  server.registerTool(
    'close_ticket',
    {
      description: 'Close a ticket, with a comment saying why.',
      inputSchema: { id: z.string().min(1), comment: z.string().min(1) },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ id, comment }) => {
      const t = tickets.get(id);
      if (t === undefined) return unknown(id);
      t.status = 'closed';
      process.stderr.write(`tickets: closed ${id}: ${comment}\n`);
      return { content: [{ type: 'text', text: `Closed ${line(t)}` }] };
    },
  );
  return server;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await buildTicketsServer().connect(new StdioServerTransport());
}
