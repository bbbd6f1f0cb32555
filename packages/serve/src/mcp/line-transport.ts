/**
 * MCP's stdio transport (one JSON-RPC message per line), written for a server that must keep
 * answering whatever arrives. The SDK's own StdioServerTransport reports a bad line only to
 * `onerror` and sends nothing back, and closes the connection when a line grows past its buffer;
 * this one answers each bad line with the protocol's error and reads on:
 * - not JSON → -32700 Parse error (id null);
 * - JSON but not a JSON-RPC 2.0 message → -32600 Invalid Request, with the request's id when it
 *   has a usable one; a malformed *response* (to one of our requests) gets no answer, since an
 *   error carrying its id would read as the answer to one of the client's own requests;
 * - a line longer than `maxLineBytes` → -32600 (id null) when it ends; its bytes are dropped as
 *   they come, and reading goes on.
 * Backpressure: while the output cannot take more (a client that does not read), reading stops,
 * so requests wait in the pipe rather than answers piling up in memory. The lines are framed by
 * json-lines.ts, as for the JSON-RPC server.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { readLines, type LineSource } from '../json-lines.js';

/** Where messages come from: a readable byte stream (process.stdin). */
export type LineInput = LineSource;

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
  #reader: ReturnType<typeof readLines> | undefined;
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
    this.#reader = readLines(this.#input, this.#maxLineBytes, {
      line: (text) => this.#line(text),
      oversize: () => this.#reply(null, INVALID_REQUEST, `Invalid Request: a message longer than ${this.#maxLineBytes} bytes was skipped`),
      end: (error) => {
        if (error !== undefined) this.onerror?.(error);
        void this.close();
      },
    });
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
    this.#reader?.stop();
    this.onclose?.();
  }

  #write(line: string): Promise<void> {
    if (this.#output.write(line)) return Promise.resolve();
    // The reader is behind: stop taking requests until it catches up.
    this.#reader?.pause();
    return new Promise((resolve) =>
      this.#output.once('drain', () => {
        if (!this.#closed) this.#reader?.resume();
        resolve();
      }),
    );
  }

  /** One line (readLines drops blank ones and a trailing \r). */
  #line(text: string): void {
    if (this.#closed) return;
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
