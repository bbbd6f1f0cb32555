import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BIN, extensionPackage, sandbox } from './harness.js';
import { connect, textOf } from './mcp-harness.js';

/**
 * Which answers a dialog offers (docs/mcp.md "Approval", docs/rpc.md): the approval prompt offers
 * all six ids for an ask a remembered answer can lift (a default, such as reading outside the
 * project); only once, deny and deny-with-reason for an ask that comes every time (an explicit
 * ask rule, or an extension's authorize handler, which no saved rule outvotes), saying who asks.
 * An extension's own `ui.ask` carries exactly the choices it lists. Seen as a client sees them:
 * an MCP elicitation form and a JSON-RPC `ui/ask` request.
 */
const ALL = ['once', 'session', 'project', 'user', 'deny', 'deny-with-reason'];
const EVERY_TIME = ['once', 'deny', 'deny-with-reason'];

/** A reviewer extension: its handler asks about every `stamp` call; its `pick` tool asks its own question. */
function machine() {
  const s = sandbox();
  s.write('outside/data.txt', 'outside\n');
  const reviewer = extensionPackage(s, 'exts/reviewer', {
    name: 'reviewer',
    tools: ['stamp', 'pick'],
    hooks: ['tool_call:authorize'],
    source: `import Type from 'typebox';
export default { name: 'reviewer', setup(api) {
  api.on('tool_call', (e) => (e.toolName === 'stamp' ? { effect: 'ask', reason: 'stamps are reviewed' } : undefined), { name: 'reviewer/check', phase: 'authorize' });
  api.registerTool({ name: 'stamp', label: 'Stamp', description: 'Stamp.', parameters: Type.Object({}), execute: async () => ({ content: [{ type: 'text', text: 'stamped' }] }) });
  api.registerTool({ name: 'pick', label: 'Pick', description: 'Pick a colour.', parameters: Type.Object({}),
    execute: async (_id, _p, _s, _u, ctx) => {
      const answer = await ctx.ui.ask({ kind: 'choice', title: 'Which colour?', choices: [{ id: 'red', label: 'Red' }, { id: 'blue', label: 'Blue' }] });
      return { content: [{ type: 'text', text: 'picked ' + JSON.stringify(answer) }] };
    } });
} };
`,
  });
  s.write('home/.config/airlock/settings.json', { extensions: ['@airlock/tool-read', '@airlock/approval', { path: reviewer }] });
  return { s, outside: join(s.base, 'outside', 'data.txt') };
}

interface Asked {
  ids: string[];
  text: string;
}

describe('the choices a dialog offers, as clients see them', () => {
  it('MCP elicitation', async () => {
    const { s, outside } = machine();
    const asked: Asked[] = [];
    const { client } = await connect(s, {
      elicit: (request) => {
        const schema = (request.params as unknown as { requestedSchema: { properties: { choice: { enum: string[] } } } }).requestedSchema;
        asked.push({ ids: schema.properties.choice.enum, text: request.params.message });
        return { action: 'accept', content: { choice: schema.properties.choice.enum.includes('once') ? 'once' : 'blue' } };
      },
    });
    expect(textOf(await client.callTool({ name: 'read', arguments: { path: outside } }))).toContain('outside');
    expect(textOf(await client.callTool({ name: 'stamp', arguments: {} }))).toContain('stamped');
    expect(textOf(await client.callTool({ name: 'pick', arguments: {} }))).toContain('picked {"id":"blue"}');
    expect(asked.map((a) => a.ids)).toEqual([ALL, EVERY_TIME, ['red', 'blue']]);
    expect(asked[1]!.text).toContain('the extension handler reviewer/check asks about this every time');
    expect(asked[1]!.text).toContain('stamps are reviewed');
  });

  it('JSON-RPC ui/ask', async () => {
    const { s, outside } = machine();
    const env = { ...process.env, HOME: s.home, XDG_CONFIG_HOME: `${s.home}/.config`, NO_COLOR: '1' };
    const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [BIN, 'serve', '--stdio'], { cwd: s.project, env, stdio: ['pipe', 'pipe', 'pipe'] });
    onTestFinished(() => void child.kill('SIGKILL'));
    // Say that this client answers dialogs, as docs/rpc.md describes, then answer each ui/ask.
    const asked: Asked[] = [];
    const results = new Map<number, string>();
    let rest = '';
    let done: () => void = () => {};
    const finished = new Promise<void>((resolve) => (done = resolve));
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop()!;
      for (const line of lines) {
        const m = JSON.parse(line) as { id?: string | number; method?: string; params?: { title: string; choices: { id: string }[] }; result?: { content?: { text?: string }[] } };
        if (m.method === 'ui/ask') {
          const ids = m.params!.choices.map((c) => c.id);
          asked.push({ ids, text: m.params!.title });
          child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { id: ids.includes('once') ? 'once' : 'blue' } })}\n`);
        } else if (typeof m.id === 'number' && m.id > 0 && m.result?.content !== undefined) {
          results.set(m.id, m.result.content.map((c) => c.text ?? '').join(''));
          if (results.size === 3) done();
        }
      }
    });
    const send = (id: number, method: string, params: unknown) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    send(0, 'initialize', { dialogs: true });
    send(1, 'tools/call', { name: 'read', arguments: { path: outside } });
    send(2, 'tools/call', { name: 'stamp', arguments: {} });
    send(3, 'tools/call', { name: 'pick', arguments: {} });
    await finished;
    expect([...results.keys()].sort()).toEqual([1, 2, 3]);
    expect(results.get(1)).toContain('outside');
    expect(results.get(2)).toContain('stamped');
    expect(results.get(3)).toContain('picked {"id":"blue"}');
    expect(asked.map((a) => a.ids)).toEqual([ALL, EVERY_TIME, ['red', 'blue']]);
    expect(asked[1]!.text).toContain('the extension handler reviewer/check asks about this every time');
  });
});
