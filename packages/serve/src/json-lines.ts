/**
 * JSON lines over a pair of byte streams, for both servers (JSON-RPC's `serve --stdio` and MCP's
 * stdio transport): a reader that hands over one line at a time and refuses a line over the limit
 * without holding it whole, and a writer that reports when the reader on the other side falls
 * behind (so the server can stop reading new requests: backpressure).
 */
import type { Readable, Writable } from 'node:stream';

const NEWLINE = 0x0a;

/** Where lines come from: a readable byte stream (process.stdin). */
export type LineSource = Pick<Readable, 'on' | 'off' | 'pause' | 'resume'>;

export interface LineReaderHandlers {
  /** One complete line, without its newline (and without a trailing \r). */
  line(text: string): void;
  /** A line longer than the limit ended (or input ended inside it); its bytes were dropped as they came. */
  oversize(bytes: number): void;
  /** The input ended (or failed); called once. */
  end(error?: Error): void;
}

/**
 * Read `input` as lines of at most `maxLineBytes` bytes (UTF-8, newline excluded). A longer line
 * is counted and dropped chunk by chunk, never buffered, and reported once it ends. Returns the
 * controls: `pause()` / `resume()` stop and restart reading (the stream's own flow control, so the
 * OS pipe fills and the writer on the other side blocks), `stop()` detaches for good.
 *
 * @example
 * const reader = readLines(process.stdin, 8 << 20, { line: handle, oversize: refuse, end: finish });
 * reader.pause(); // stdout is full: read no more requests until it drains
 */
export function readLines(input: LineSource, maxLineBytes: number, handlers: LineReaderHandlers) {
  let parts: Buffer[] = [];
  let size = 0;
  /** Bytes of the line being dropped, or -1 when the current line is within the limit. */
  let dropping = -1;
  let ended = false;

  const take = (chunk: Buffer, from: number, to: number): void => {
    const length = to - from;
    if (dropping >= 0) {
      dropping += length;
      return;
    }
    if (size + length > maxLineBytes) {
      dropping = size + length;
      parts = [];
      size = 0;
      return;
    }
    if (length > 0) {
      parts.push(chunk.subarray(from, to));
      size += length;
    }
  };
  const finishLine = (): void => {
    if (dropping >= 0) {
      const bytes = dropping;
      dropping = -1;
      handlers.oversize(bytes);
      return;
    }
    let text = parts.length === 1 ? parts[0]!.toString('utf8') : Buffer.concat(parts, size).toString('utf8');
    parts = [];
    size = 0;
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text.trim() !== '') handlers.line(text);
  };
  const onData = (data: Buffer | string): void => {
    const chunk = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let start = 0;
    for (let at = chunk.indexOf(NEWLINE); at >= 0; at = chunk.indexOf(NEWLINE, start)) {
      take(chunk, start, at);
      finishLine();
      start = at + 1;
      // A handler may have paused us; the rest of this chunk is already in memory and small
      // (one read), so it is handled now rather than kept aside.
    }
    take(chunk, start, chunk.length);
  };
  const onEnd = (error?: Error): void => {
    if (ended) return;
    ended = true;
    if (dropping >= 0 || size > 0) finishLine(); // a last line without a newline still counts
    detach();
    handlers.end(error);
  };
  const onError = (error: Error): void => onEnd(error);
  const onClose = (): void => onEnd();
  const detach = (): void => {
    input.off('data', onData);
    input.off('end', onClose);
    input.off('close', onClose);
    input.off('error', onError);
    // A stream error after we stopped listening must not crash the server.
    input.on('error', () => {});
  };

  input.on('data', onData);
  input.on('end', onClose);
  input.on('close', onClose);
  input.on('error', onError);

  return {
    pause: (): void => void input.pause(),
    resume: (): void => {
      if (!ended) input.resume();
    },
    /** Stop reading for good (shutting down): what is still in the pipe is never read. */
    stop: (): void => {
      if (ended) return;
      ended = true;
      detach();
      input.pause();
    },
    get ended(): boolean {
      return ended;
    },
  };
}

export interface LineWriterOptions {
  /** The reader fell behind (`true`: the stream's buffer is over its high-water mark) or caught up (`false`). */
  pressure?(full: boolean): void;
  /** The output failed (EPIPE: the client went away); nothing more is written. */
  failed?(error: Error): void;
}

/**
 * Write one JSON value per line to `output`. `write` returns false once the output is closed or
 * failed. While the stream's buffer is over its high-water mark, `full` is true and `pressure`
 * has been told; it is told again when the stream drains.
 *
 * @example
 * const out = writeLines(process.stdout, { pressure: (full) => (full ? reader.pause() : reader.resume()) });
 * out.write({ jsonrpc: '2.0', id: 1, result: {} });
 */
export function writeLines(output: Writable, options: LineWriterOptions = {}) {
  let full = false;
  let broken: Error | undefined;
  const onDrain = (): void => {
    if (!full) return;
    full = false;
    options.pressure?.(false);
  };
  const onError = (error: Error): void => {
    if (broken) return;
    broken = error;
    options.failed?.(error);
  };
  output.on('drain', onDrain);
  output.on('error', onError);

  return {
    /** Serialise and write; throws only when `value` cannot be serialised (a cycle, a BigInt). */
    write(value: unknown): boolean {
      const text = `${JSON.stringify(value)}\n`;
      if (broken || output.writableEnded || output.destroyed) return false;
      const ok = output.write(text);
      if (!ok && !full) {
        full = true;
        options.pressure?.(true);
      }
      return true;
    },
    /** The reader is behind: the stream holds more than its high-water mark. */
    get full(): boolean {
      return full;
    },
    /** Bytes written but not yet taken by the reader. */
    get buffered(): number {
      return output.writableLength;
    },
    detach(): void {
      output.off('drain', onDrain);
      output.off('error', onError);
      output.on('error', () => {});
    },
  };
}
