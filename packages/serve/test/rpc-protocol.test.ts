import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readLines } from '../src/index.js';
import { rpcSessions } from './support/rpc-session.js';

const session = rpcSessions('airlock-rpc-protocol-');

describe('airlock serve: bad input gets the protocol error, and the server keeps answering', () => {
  it('a line that is not JSON: -32700 with id null', async () => {
    const s = await session();
    s.write('{"jsonrpc":"2.0","id":1,"method":"tools/list"\n');
    const error = await s.waitFor((m) => m.error !== undefined);
    expect(error).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect(error.error!.message).toMatch(/not JSON.*one JSON-RPC 2\.0 object per line/);
    expect((await s.request('tools/list', {}, 2)).result.enabled).toContain('read');
  });

  it('JSON that is not a request (an array, a wrong version, a bad id): -32600', async () => {
    const s = await session();
    s.write('[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]\n');
    s.write('{"jsonrpc":"1.0","id":"v","method":"tools/list"}\n');
    s.write('{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}\n');
    await s.waitFor(() => s.received.length >= 3);
    expect(s.received.map((m) => [m.id, m.error?.code])).toEqual([
      [null, -32600],
      ['v', -32600],
      [null, -32600],
    ]);
    expect(s.received[0]!.error!.message).toMatch(/tools\/batch/);
    expect((await s.request('tools/list', {}, 9)).result).toBeDefined();
  });

  it('an unknown method: -32601 naming the methods there are', async () => {
    const s = await session();
    const answer = await s.request('tools/run', {}, 'x');
    expect(answer.error!.code).toBe(-32601);
    expect(answer.error!.message).toMatch(/"tools\/run".*tools\/call/);
  });

  it('params that do not match the schema: -32602 naming each problem and showing what to send', async () => {
    const s = await session();
    const answer = await s.request('tools/call', { nam: 'read' });
    expect(answer.error!.code).toBe(-32602);
    expect(answer.error!.message).toMatch(/unknown field "nam"/);
    expect(answer.error!.message).toMatch(/name is required/);
    expect(answer.error!.message).toContain('Send params like {"name":"read","arguments":{"path":"README.md"}}');
    const provider = await s.request('tools/list', { provider: 'cohere' });
    expect(provider.error!.message).toMatch(/provider: must be one of "openai", "anthropic", "gemini", "mcp"/);
    const batch = await s.request('tools/batch', { calls: [], maxConcurrency: 0 });
    expect(batch.error!.code).toBe(-32602);
    expect(batch.error!.message).toMatch(/maxConcurrency/);
    // Nothing ran: a bad request is refused whole.
    expect(s.received.filter((m) => m.result !== undefined)).toEqual([]);
  });

  it('a line over the size limit is refused with the limit named, and the next line is answered', async () => {
    const s = await session({ server: { maxLineBytes: 4096 } });
    const big = JSON.stringify({ jsonrpc: '2.0', id: 'big', method: 'tools/call', params: { name: 'write', arguments: { path: 'big.txt', content: 'x'.repeat(1_000_000) } } });
    s.write(`${big}\n`);
    const refused = await s.waitFor((m) => m.error !== undefined);
    expect(refused).toMatchObject({ id: null, error: { code: -32600 } });
    expect(refused.error!.message).toContain(`a line of ${Buffer.byteLength(big)} bytes is over the limit of 4096 bytes`);
    expect((await s.request('tools/call', { name: 'ls', arguments: {} }, 'after')).result.outcome).toBe('ok');
    // The write never ran.
    expect((await s.request('tools/call', { name: 'read', arguments: { path: 'big.txt' } })).result.outcome).toBe('error');
  });

  it('a response to an id the server never asked about is ignored with a log line', async () => {
    const s = await session();
    s.respond('no-such-dialog', { result: { confirmed: true } });
    expect((await s.request('tools/list', {}, 1)).result).toBeDefined();
    expect(s.logs.join('\n')).toMatch(/ignored a response to id "no-such-dialog": no dialog is waiting for it/);
    // A malformed response (here a client's error about one of our lines) is never answered: two
    // peers answering each other's bad responses would never stop.
    s.write('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"could not parse"}}\n');
    s.write('{"id":"x","result":1}\n');
    expect((await s.request('tools/list', {}, 2)).result).toBeDefined();
    expect(s.received.filter((m) => m.error !== undefined)).toEqual([]);
    expect(s.logs.join('\n')).toMatch(/ignored a response to id null/);
  });

  it('a request reusing the id of one still running: -32001, and the first still answers', async () => {
    const s = await session({ settings: { permissions: { allow: ['bash(sleep *)'] } } });
    s.send('tools/call', { name: 'bash', arguments: { command: 'sleep 0.5' } }, 7);
    s.send('tools/list', {}, 7);
    const dup = await s.waitFor((m) => m.id === 7 && m.error !== undefined);
    expect(dup.error!.code).toBe(-32001);
    expect((await s.waitFor((m) => m.id === 7 && m.result !== undefined)).result.outcome).toBe('ok');
  });
});

describe('airlock serve: a slow reader and the end of input', () => {
  it('stops reading requests while the client does not read the answers, and answers them all once it does', async () => {
    const s = await session({ paused: true, outputHighWaterMark: 1024 });
    const count = 200;
    // One request per turn of the event loop, as a pipe delivers them.
    for (let i = 0; i < count; i++) {
      s.write(`${JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/list', params: {} })}\n`);
      await new Promise((r) => setImmediate(r));
    }
    await new Promise((r) => setTimeout(r, 200));
    // The server paused: most requests are still unread in its input, and its output holds a few answers, not 200.
    const answered = s.output.writableLength + s.output.readableLength;
    expect(s.input.readableLength + s.input.writableLength).toBeGreaterThan(0);
    const unread = s.input.readableLength + s.input.writableLength;
    const oneRequest = Buffer.byteLength(`${JSON.stringify({ jsonrpc: '2.0', id: 100, method: 'tools/list', params: {} })}\n`);
    expect(unread / oneRequest).toBeGreaterThan(count * 0.9);
    const answerSize = answered / Math.max(1, count - Math.round(unread / oneRequest));
    expect(answered).toBeLessThan(answerSize * 10);
    s.startReading();
    await s.waitFor(() => s.received.filter((m) => m.result !== undefined).length === count, 20_000);
    expect(new Set(s.received.map((m) => m.id))).toEqual(new Set(Array.from({ length: count }, (_, i) => i)));
  });

  it('runs at most maxRunningCalls calls at once; the others wait in line, where abort reaches them too', async () => {
    const s = await session({ settings: { permissions: { allow: ['bash(sleep *)'] } }, server: { maxRunningCalls: 2 } });
    await s.request('events/subscribe', { types: ['tool_execution_start'] }, 'sub');
    for (let i = 0; i < 5; i++) s.send('tools/call', { name: 'bash', arguments: { command: 'sleep 0.4' } }, `w${i}`);
    await new Promise((r) => setTimeout(r, 250));
    const started = () => s.received.filter((m) => m.method === 'events/event').map((m) => m.params.event.toolCallId);
    expect(started()).toEqual(['w0', 'w1']);
    // w4 waits; abort it there: when its turn comes it answers "aborted" without running.
    expect((await s.request('abort', { id: 'w4' })).result).toEqual({ aborted: 1 });
    const answers = await Promise.all([0, 1, 2, 3, 4].map((i) => s.answerTo(`w${i}`)));
    expect(answers.map((a) => a.result.outcome)).toEqual(['ok', 'ok', 'ok', 'ok', 'aborted']);
    // Other methods never wait for a slot.
    expect((await s.request('initialize', {})).result.maxRunningCalls).toBe(2);
  });

  it('stops reading input while the line of waiting calls is full', async () => {
    const s = await session({ settings: { permissions: { allow: ['bash(sleep *)'] } }, server: { maxRunningCalls: 1, maxWaitingCalls: 2 } });
    for (let i = 0; i < 20; i++) {
      s.send('tools/call', { name: 'bash', arguments: { command: 'sleep 0.2' } }, `q${i}`);
      await new Promise((r) => setImmediate(r));
    }
    await new Promise((r) => setTimeout(r, 50));
    // One running, two waiting, the rest still unread in the input stream.
    const oneRequest = Buffer.byteLength(`${JSON.stringify({ jsonrpc: '2.0', id: 'q10', method: 'tools/call', params: { name: 'bash', arguments: { command: 'sleep 0.2' } } })}\n`);
    expect(Math.round((s.input.readableLength + s.input.writableLength) / oneRequest)).toBeGreaterThanOrEqual(16);
    s.server.shutdown({ abort: true });
    await s.served;
  });

  it('at the end of input, running calls finish and answer before serve() resolves', async () => {
    const s = await session({ settings: { permissions: { allow: ['bash(sleep *)'] } } });
    s.send('tools/call', { name: 'bash', arguments: { command: 'sleep 0.3; echo done' } }, 'last');
    s.input.end();
    await s.served;
    const answer = s.received.find((m) => m.id === 'last');
    expect(answer?.result.outcome).toBe('ok');
    expect(JSON.stringify(answer?.result.content)).toContain('done');
  });
});

describe('readLines', () => {
  it('drops a huge line chunk by chunk instead of holding it', async () => {
    const input = new PassThrough();
    const lines: string[] = [];
    const oversize: number[] = [];
    readLines(input, 1024, { line: (t) => lines.push(t), oversize: (n) => oversize.push(n), end: () => {} });
    const chunk = Buffer.alloc(64 * 1024, 0x61); // one buffer, written again and again: no new memory per write
    const before = process.memoryUsage().arrayBuffers;
    let peak = before;
    for (let i = 0; i < 4096; i++) {
      input.write(chunk); // 256 MiB in all
      if (i % 256 === 0) {
        await new Promise((r) => setImmediate(r));
        peak = Math.max(peak, process.memoryUsage().arrayBuffers);
      }
    }
    input.write('\n{"ok":true}\n');
    await new Promise((r) => setImmediate(r));
    expect(oversize).toEqual([4096 * 64 * 1024]);
    expect(lines).toEqual(['{"ok":true}']);
    expect(peak - before).toBeLessThan(32 * 1024 * 1024);
  });

  it('joins a line split across chunks, also inside a multi-byte character', async () => {
    const input = new PassThrough();
    const lines: string[] = [];
    readLines(input, 1024, { line: (t) => lines.push(t), oversize: () => {}, end: () => {} });
    const bytes = Buffer.from('{"text":"café ✓"}\r\n', 'utf8');
    for (let i = 0; i < bytes.length; i++) input.write(bytes.subarray(i, i + 1));
    await new Promise((r) => setImmediate(r));
    expect(lines).toEqual(['{"text":"café ✓"}']);
  });
});
