import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { pidsRunning } from '../../extensions/tools/bash/test/support/processes.js';
import { BIN, sandbox } from './harness.js';
import { scaledMs } from '@airlock/kernel/testing';

/**
 * `airlock mcp` fed raw lines, as a broken or hostile client would send them: each bad line gets
 * the protocol's error and the server keeps answering; end of input ends it with exit code 0.
 */

interface Reply {
  id: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

function start(s: ReturnType<typeof sandbox>) {
  const child = spawn(process.execPath, [BIN, '--cwd', s.project, 'mcp'], {
    env: { ...process.env, HOME: s.home, XDG_CONFIG_HOME: `${s.home}/.config` },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const replies: Reply[] = [];
  const waiting: (() => void)[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    replies.push(JSON.parse(line) as Reply); // every line the server writes must be JSON
    for (const wake of waiting.splice(0)) wake();
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    send: (line: string) => void child.stdin.write(`${line}\n`),
    end: () => child.stdin.end(),
    kill: () => child.kill('SIGKILL'),
    signal: (name: NodeJS.Signals) => child.kill(name),
    exited,
    stderr: () => stderr,
    /** Waits until `count` replies have come. */
    async replies(count: number, ms = 15_000): Promise<Reply[]> {
      const end = Date.now() + ms;
      while (replies.length < count && Date.now() < end) await new Promise<void>((wake) => (waiting.push(wake), setTimeout(wake, 100)));
      return replies;
    },
  };
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

describe('airlock mcp: bad input', () => {
  it('answers a malformed line, a non-JSON-RPC object, a batch and an unknown method with the protocol error, and keeps answering', async () => {
    const s = sandbox();
    s.write('project/a.txt', 'still here\n');
    const server = start(s);
    try {
      server.send('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":"none"}}');
      server.send(initialize);
      server.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
      server.send('this is not json');
      server.send('{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{"cursor":5}}');
      server.send('{"jsonrpc":"2.0","id":2,"method":');
      server.send('{"id":3,"hello":"world"}');
      server.send('[{"jsonrpc":"2.0","id":4,"method":"tools/list"}]');
      server.send('{"jsonrpc":"2.0","id":5,"method":"no/such/method"}');
      server.send('{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"arguments":{}}}');
      server.send('{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"read","arguments":"a.txt"}}');
      server.send('{"jsonrpc":"2.0","method":"notifications/unknown"}');
      server.send('');
      server.send('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read","arguments":{"path":"a.txt"}}}\r');
      const replies = await server.replies(11);
      const byId = (id: unknown) => replies.filter((r) => r.id === id);
      expect(byId(1)[0]?.result?.serverInfo).toMatchObject({ name: 'airlock' });
      const anonymous = byId(null).map((r) => r.error!.code);
      // Two lines that are not JSON, and a batch (MCP has none) whose id cannot be told.
      expect(anonymous.sort()).toEqual([-32700, -32700, -32600].sort());
      expect(byId(null).find((r) => r.error!.code === -32600)?.error?.message).toContain('batches are not supported');
      expect(byId(3)[0]?.error?.code).toBe(-32600);
      expect(byId(5)[0]?.error?.code).toBe(-32601);
      expect(byId(6)[0]?.error?.code).toBe(-32602); // tools/call without a name: the params are wrong
      expect(byId(6)[0]?.error?.message).toContain('params.name');
      expect(byId(7)[0]?.result?.content).toEqual([{ type: 'text', text: 'still here\n' }]);
      expect(byId(8)[0]?.error?.code).toBe(-32602); // arguments must be an object
      // Bad params of initialize and tools/list: -32602 naming the field, not the SDK's -32603.
      expect(byId(0)[0]?.error).toMatchObject({ code: -32602, message: expect.stringContaining('params.protocolVersion') });
      expect(byId(10)[0]?.error).toMatchObject({ code: -32602, message: expect.stringContaining('params.cursor') });
      expect(replies).toHaveLength(11);
      server.end();
      expect(await server.exited).toBe(0);
    } finally {
      server.kill();
    }
  });

  it('ends with exit code 0 when the client closes its input, even with a call still running', async () => {
    const s = sandbox();
    const server = start(s);
    try {
      server.send(initialize);
      server.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
      await server.replies(1);
      const argv = ['sleep', `29.${process.pid}`];
      server.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'bash', arguments: { command: argv.join(' ') } } }));
      for (const end = Date.now() + 10_000; pidsRunning(argv).length === 0 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 25));
      expect(pidsRunning(argv)).toHaveLength(1);
      const started = Date.now();
      server.end();
      expect(await server.exited).toBe(0);
      expect(Date.now() - started).toBeLessThan(scaledMs(10_000));
      // The call was aborted with the session: its process is gone too.
      expect(pidsRunning(argv)).toEqual([]);
    } finally {
      server.kill();
    }
  }, scaledMs(30_000));

  it('SIGTERM ends it with exit code 0', async () => {
    const s = sandbox();
    const server = start(s);
    try {
      server.send(initialize);
      await server.replies(1);
      server.signal('SIGTERM');
      expect(await server.exited).toBe(0);
    } finally {
      server.kill();
    }
  });
});
