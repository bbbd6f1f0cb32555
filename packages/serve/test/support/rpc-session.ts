import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach } from 'vitest';
import { openHost, type Host, type OpenHostOptions } from '@airlock/host';
import { headlessMachine } from '../../../host/test/headless-machine.js';
import { createRpcServer, type RpcServer, type RpcServerOptions } from '../../src/index.js';

export interface Message {
  jsonrpc: '2.0';
  id?: string | number | null;
  method?: string;
  params?: any;
  result?: any;
  error?: { code: number; message: string; data?: unknown };
}

export interface SessionOptions {
  /** User settings (merged with a spill folder inside the temp folder). */
  settings?: Record<string, unknown>;
  /** Files to create, relative to the project folder. */
  files?: Record<string, string>;
  server?: Partial<Pick<RpcServerOptions, 'maxLineBytes' | 'dialogTimeoutMs' | 'maxRunningCalls' | 'maxWaitingCalls' | 'agent'>>;
  /** The output stream's buffer size (small to test backpressure). */
  outputHighWaterMark?: number;
  /** Start without reading the output (a slow client). */
  paused?: boolean;
  /** Extension modules in code (openHost's `modules`). */
  modules?: OpenHostOptions['modules'];
}

/**
 * An RPC server over in-memory streams in front of a real host (a home and a project of their own,
 * the default extensions), and a client that speaks JSON lines to it. Everything is closed and
 * removed after each test.
 *
 * @example
 * const s = await rpcSession({ files: { 'a.txt': 'hi' } });
 * (await s.request('tools/call', { name: 'read', arguments: { path: 'a.txt' } })).result.outcome; // 'ok'
 */
export function rpcSessions(prefix = 'airlock-rpc-') {
  const open: { host: Host; server: RpcServer; input: PassThrough; served: Promise<void> }[] = [];
  afterEach(async () => {
    for (const s of open.splice(0)) {
      s.input.end();
      s.server.shutdown({ abort: true });
      await s.served;
      await s.host.close();
    }
  });

  return async (o: SessionOptions = {}) => {
    const { base, project, home, env } = headlessMachine(prefix, { ...(o.settings === undefined ? {} : { settings: o.settings }), files: Object.fromEntries(Object.entries(o.files ?? {}).map(([path, text]) => [join('project', path), text])) });
    const input = new PassThrough();
    const output = new PassThrough({ highWaterMark: o.outputHighWaterMark ?? 16 * 1024 });
    const logs: string[] = [];
    const server = createRpcServer({ input, output, log: (line) => logs.push(line), ...o.server });
    const host = await openHost({ cwd: project, interactive: false, env, homeDir: home, ui: server.ui, ...(o.modules === undefined ? {} : { modules: o.modules }) });
    const served = server.serve(host);
    open.push({ host, server, input, served });

    const received: Message[] = [];
    const waiters = new Set<{ match: (m: Message) => boolean; resolve: (m: Message) => void }>();
    let rest = '';
    const onData = (chunk: Buffer): void => {
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop()!;
      for (const line of lines) {
        const message = JSON.parse(line) as Message;
        received.push(message);
        for (const w of [...waiters]) {
          if (w.match(message)) {
            waiters.delete(w);
            w.resolve(message);
          }
        }
      }
    };
    const startReading = (): void => void output.on('data', onData);
    if (!o.paused) startReading();

    let next = 0;
    const waitFor = (match: (m: Message) => boolean, timeoutMs = 10_000): Promise<Message> => {
      const seen = received.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const w = { match, resolve: (m: Message) => (clearTimeout(timer), resolve(m)) };
        const timer = setTimeout(() => (waiters.delete(w), reject(new Error(`no matching message within ${timeoutMs} ms; got ${JSON.stringify(received).slice(0, 2000)}`))), timeoutMs);
        waiters.add(w);
      });
    };
    const isAnswerTo = (id: string | number) => (m: Message) => m.id === id && m.method === undefined;
    return {
      base,
      project,
      host,
      server,
      input,
      output,
      logs,
      received,
      served,
      startReading,
      waitFor,
      /** Write raw text to the server (a line needs its own "\n"). */
      write: (text: string) => input.write(text),
      /** Send a request and wait for its answer. */
      request(method: string, params?: unknown, id: string | number = ++next): Promise<Message> {
        input.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) })}\n`);
        return waitFor(isAnswerTo(id));
      },
      /** Send a request without waiting. */
      send(method: string, params: unknown, id: string | number): void {
        input.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      },
      answerTo: (id: string | number) => waitFor(isAnswerTo(id)),
      respond(id: string | number | null, body: { result?: unknown; error?: unknown }): void {
        input.write(`${JSON.stringify({ jsonrpc: '2.0', id, ...body })}\n`);
      },
    };
  };
}

export function textOf(result: { content: { type: string; text?: string }[] }): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}
