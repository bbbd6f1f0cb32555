import { PassThrough, Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { LineTransport } from '../src/index.js';

/** The stdio transport on real streams: what a client writing bad lines, or not reading, gets. */

function wired(options: { maxLineBytes?: number } = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new LineTransport(input, output, options);
  const messages: JSONRPCMessage[] = [];
  const errors: string[] = [];
  transport.onmessage = (m) => void messages.push(m);
  transport.onerror = (e) => void errors.push(e.message);
  let written = '';
  output.on('data', (d: Buffer) => (written += d.toString()));
  const replies = () => written.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { id: unknown; error?: { code: number; message: string } });
  return { input, transport, messages, errors, replies };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('LineTransport', () => {
  it('skips a line longer than the limit with an Invalid Request error, and reads the next one', async () => {
    const t = wired({ maxLineBytes: 64 });
    await t.transport.start();
    // Sent in pieces, as a pipe delivers it: the long line spans several chunks.
    t.input.write(`{"jsonrpc":"2.0","id":1,"method":"${'x'.repeat(50)}`);
    t.input.write(`${'y'.repeat(50)}"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n`);
    await tick();
    expect(t.replies()).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('longer than 64 bytes') } }]);
    expect(t.messages).toEqual([{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
  });

  it('does not answer a malformed response (its id is one of ours), but reports it', async () => {
    const t = wired();
    await t.transport.start();
    t.input.write('{"jsonrpc":"2.0","id":5,"result":"not an object"}\n');
    await tick();
    expect(t.replies()).toEqual([]);
    expect(t.errors[0]).toContain('ignored a malformed response');
  });

  it('a line split across chunks, a CRLF ending and a multi-byte character arrive whole', async () => {
    const t = wired();
    await t.transport.start();
    const line = Buffer.from('{"jsonrpc":"2.0","id":"ü","method":"ping"}\r\n');
    const cut = line.indexOf(Buffer.from('ü')) + 1; // inside the two bytes of ü
    t.input.write(line.subarray(0, cut));
    t.input.write(line.subarray(cut));
    await tick();
    expect(t.messages).toEqual([{ jsonrpc: '2.0', id: 'ü', method: 'ping' }]);
  });

  it('stops reading while the output is full, and reads on once the client catches up', async () => {
    const input = new PassThrough();
    let release: (() => void) | undefined;
    // A client that does not read: each write waits until the test lets it through.
    const output = new Writable({ highWaterMark: 16, write: (_chunk, _enc, done) => void (release = done) });
    const transport = new LineTransport(input, output);
    const seen: JSONRPCMessage[] = [];
    transport.onmessage = (m) => void seen.push(m);
    await transport.start();
    const sent = transport.send({ jsonrpc: '2.0', id: 1, result: { big: 'x'.repeat(100) } });
    await tick();
    expect(input.isPaused()).toBe(true);
    input.write('{"jsonrpc":"2.0","id":9,"method":"ping"}\n');
    await tick();
    expect(seen).toEqual([]); // waiting in the pipe, not in our memory
    release!();
    await sent;
    await tick();
    expect(input.isPaused()).toBe(false);
    expect(seen).toEqual([{ jsonrpc: '2.0', id: 9, method: 'ping' }]);
  });

  it('end of input closes the transport once', async () => {
    const t = wired();
    let closed = 0;
    t.transport.onclose = () => void closed++;
    await t.transport.start();
    t.input.end();
    await tick();
    await t.transport.close();
    expect(closed).toBe(1);
    await expect(t.transport.send({ jsonrpc: '2.0', id: 1, result: {} })).rejects.toThrow('Not connected');
  });
});
