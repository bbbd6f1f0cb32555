/**
 * MCP's stdio transport (one JSON-RPC message per line), written for a server that must keep
 * answering whatever arrives. The SDK's own StdioServerTransport reports a bad line only to
 * `onerror` and sends nothing back, and closes the connection when a line grows past its buffer;
 * this one answers each bad line with the protocol's error and reads on:
 * - not JSON → -32700 Parse error (id null);
 * - JSON but not a JSON-RPC 2.0 message → -32600 Invalid Request, with the request's id when it
 *   has a usable one; a malformed *response* (to one of our requests) gets no answer, since an
 *   error carrying its id would read as the answer to one of the client's own requests;
 * - a line longer than `maxLineBytes` → -32600 (id null), the line is skipped, reading goes on.
 * Backpressure: while the output cannot take more (a client that does not read), reading stops,
 * so requests wait in the pipe rather than answers piling up in memory.
 */
import type { Readable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Where messages come from: a readable byte stream (process.stdin). */
export type LineInput = Pick<Readable, 'on' | 'off' | 'pause' | 'resume'>;

/** Where messages go: `write` returns false when the reader is behind; 'drain' says it caught up. */
export interface LineOutput {
  write(text: string): boolean;
  once(event: 'drain', listener: () => void): unknown;
}

export interface LineTransportOptions {
  /** A longer line is refused with an error and skipped. Default 16 MiB. */
  maxLineBytes?: number;
}

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/**
 * @example
 * const transport = new LineTransport(process.stdin, process.stdout);
 * transport.onclose = () => void host.close();
 * await server.connect(transport);
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  readonly #input: LineInput;
  readonly #output: LineOutput;
  readonly #maxLineBytes: number;
  #chunks: Buffer[] = [];
  #size = 0;
  /** Skipping the rest of a line that grew too long. */
  #skipping = false;
  #closed = false;
  #started = false;
  /** Sends in order: each waits for the one before (and its drain). */
  #writes: Promise<void> = Promise.resolve();

  constructor(input: LineInput, output: LineOutput, options: LineTransportOptions = {}) {
    this.#input = input;
    this.#output = output;
    this.#maxLineBytes = options.maxLineBytes ?? 16 * 1024 * 1024;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('LineTransport already started (Server.connect starts it).');
    this.#started = true;
    this.#input.on('data', this.#onData);
    this.#input.on('end', this.#onEnd);
    this.#input.on('close', this.#onEnd);
    this.#input.on('error', this.#onError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('Not connected: the transport is closed'));
    const line = `${JSON.stringify(message)}\n`;
    const next = this.#writes.then(() => this.#write(line));
    this.#writes = next.catch(() => {});
    return next;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#input.off('data', this.#onData);
    this.#input.off('end', this.#onEnd);
    this.#input.off('close', this.#onEnd);
    this.#input.off('error', this.#onError);
    this.#input.pause();
    this.#chunks = [];
    this.onclose?.();
  }

  #write(line: string): Promise<void> {
    if (this.#output.write(line)) return Promise.resolve();
    // The reader is behind: stop taking requests until it catches up.
    this.#input.pause();
    return new Promise((resolve) =>
      this.#output.once('drain', () => {
        if (!this.#closed) this.#input.resume();
        resolve();
      }),
    );
  }

  readonly #onData = (chunk: Buffer | string): void => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    for (let end = data.indexOf(0x0a); end !== -1 && !this.#closed; end = data.indexOf(0x0a)) {
      const tail = data.subarray(0, end);
      data = data.subarray(end + 1);
      if (this.#skipping) {
        this.#skipping = false;
        continue;
      }
      if (this.#size + tail.length > this.#maxLineBytes) {
        this.#tooLong();
        continue;
      }
      const line = Buffer.concat([...this.#chunks, tail]).toString('utf8');
      this.#chunks = [];
      this.#size = 0;
      this.#line(line);
    }
    if (this.#closed || data.length === 0 || this.#skipping) return;
    if (this.#size + data.length > this.#maxLineBytes) {
      this.#tooLong();
      this.#skipping = true;
      return;
    }
    this.#chunks.push(data);
    this.#size += data.length;
  };

  readonly #onEnd = (): void => void this.close();

  readonly #onError = (error: Error): void => this.onerror?.(error);

  #tooLong(): void {
    this.#chunks = [];
    this.#size = 0;
    this.#reply(null, INVALID_REQUEST, `Invalid Request: a message longer than ${this.#maxLineBytes} bytes was skipped`);
  }

  #line(raw: string): void {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.trim() === '') return; // a blank line between messages is not a message
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.#reply(null, PARSE_ERROR, `Parse error: ${(error as Error).message}. Send one JSON-RPC 2.0 message per line.`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (parsed.success) {
      this.onmessage?.(parsed.data);
      return;
    }
    const object = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
    if (object !== undefined && !('method' in object) && ('result' in object || 'error' in object)) {
      this.onerror?.(new Error(`ignored a malformed response: ${text.slice(0, 200)}`));
      return;
    }
    const id = object !== undefined && (typeof object.id === 'string' || (typeof object.id === 'number' && Number.isFinite(object.id))) ? object.id : null;
    const what = Array.isArray(value) ? 'batches are not supported; send one message per line' : 'expected {"jsonrpc": "2.0", "method": …, "id"?: …, "params"?: {…}}';
    this.#reply(id, INVALID_REQUEST, `Invalid Request: ${what}`);
  }

  #reply(id: string | number | null, code: number, message: string): void {
    if (this.#closed) return;
    // The SDK's message type has no null id; JSON-RPC 2.0 requires null when the id is unknown.
    void this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage).catch((error: unknown) =>
      this.onerror?.(error instanceof Error ? error : new Error(String(error))),
    );
  }
}
