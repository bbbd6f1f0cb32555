/**
 * `airlock serve --stdio` as a library: JSON-RPC 2.0 over JSON lines, every call through an open
 * host. One line in is one message; answers go out as they finish, matched by id, so a client may
 * keep many requests running. See docs/rpc.md for the methods.
 */
import type { Readable, Writable } from 'node:stream';
import type { Host } from '@airlock/host';
import { terminalSafe } from '@airlock/toolkit/display';
import { type ToolUI } from '@airlock/contract';
import type { AgentPromptOptions } from './agent-prompt.js';
import { createDialogBridge } from './dialogs.js';
import { EventSubscriptions } from './event-subscriptions.js';
import { readLines, writeLines } from '../json-lines.js';
import { createDispatcher } from './methods.js';
import { classify, errorOf, resultOf, RPC_ERRORS, RpcError, type RpcId, type RpcRequest } from './protocol.js';
import { RunningRequests } from './running-requests.js';

/** A line longer than this is refused (8 MiB: a write of a large file fits, a runaway client does not). */
export const DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024;
/** How long a dialog that sets no time limit of its own waits for the client's answer before it counts as "no". */
export const DEFAULT_DIALOG_TIMEOUT_MS = 120_000;
/** Requests that run tools (call, batch, preflight, agent/prompt) at once; more wait in line, in arrival order. */
export const DEFAULT_MAX_RUNNING_CALLS = 64;
/** Requests waiting in that line; past this the server reads no more input until the line shortens. */
export const DEFAULT_MAX_WAITING_CALLS = 1024;

/** The methods that take a slot: they run tools (or policy handlers) and may take long. */
const SLOT_METHODS: ReadonlySet<string> = new Set(['tools/call', 'tools/batch', 'tools/preflight', 'agent/prompt']);

/** What the server needs of a host (an `openHost` result has all of it). */
export type ServedHost = Pick<Host, 'kernel' | 'services' | 'selection' | 'blocked' | 'execute' | 'batch'> & Partial<Pick<Host, 'onToolsChanged'>>;

export interface RpcServerOptions {
  /** Requests (and answers to the server's dialogs) arrive here, one JSON object per line. */
  input: Readable;
  /** Responses and the server's own requests and notifications go here; nothing else may write to it. */
  output: Writable;
  /** One line for people; default: stderr (stdout is the protocol). */
  log?: (line: string) => void;
  /** Default DEFAULT_MAX_LINE_BYTES. */
  maxLineBytes?: number;
  /** The limit of a dialog that sets none; default DEFAULT_DIALOG_TIMEOUT_MS. */
  dialogTimeoutMs?: number;
  /** Default DEFAULT_MAX_RUNNING_CALLS. */
  maxRunningCalls?: number;
  /** Default DEFAULT_MAX_WAITING_CALLS. */
  maxWaitingCalls?: number;
  /** Reported by initialize. */
  version?: string;
  /** Where agent/prompt gets its model (`airlock serve --model/--base-url`). */
  agent?: AgentPromptOptions;
}

export interface RpcServer {
  /** Open the host with this UI, so approval prompts reach the client (once it says it answers them). */
  readonly ui: ToolUI;
  /** Answer requests until input ends (or `shutdown`) and every running request has answered. */
  serve(host: ServedHost): Promise<void>;
  /** Take no new requests; running ones finish, or are stopped (outcome "aborted") with `abort`. */
  shutdown(options?: { abort?: boolean }): void;
  /** Requests running now. */
  readonly running: number;
}

/**
 * @example
 * const server = createRpcServer({ input: process.stdin, output: process.stdout });
 * const host = await openHost({ cwd, interactive: false, ui: server.ui });
 * try { await server.serve(host); } finally { await host.close(); }
 */
export function createRpcServer(options: RpcServerOptions): RpcServer {
  const log = options.log ?? ((line: string) => void process.stderr.write(`airlock: ${terminalSafe(line, { lineBreaks: false, tabs: false })}\n`));
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const dialogTimeoutMs = options.dialogTimeoutMs ?? DEFAULT_DIALOG_TIMEOUT_MS;
  let reader: ReturnType<typeof readLines> | undefined;
  let events: EventSubscriptions | undefined;
  let stopWatchingTools: (() => void) | undefined;
  let draining = false;
  let finished: (() => void) | undefined;

  const out = writeLines(options.output, {
    // Backpressure: a client that does not read our answers gets no new requests read either.
    pressure: () => flow(),
    failed: (error) => {
      log(`the client stopped reading (${error.message}); stopping every running request`);
      shutdown({ abort: true });
    },
  });
  const send = (message: object): boolean => {
    try {
      return out.write(message);
    } catch (error) {
      log(`could not serialise a message: ${(error as Error).message}`);
      return false;
    }
  };
  const dialogs = createDialogBridge({ send, log, timeoutMs: dialogTimeoutMs });
  const requests = new RunningRequests(options.maxRunningCalls ?? DEFAULT_MAX_RUNNING_CALLS, options.maxWaitingCalls ?? DEFAULT_MAX_WAITING_CALLS, () => {
    flow();
    maybeFinish();
  });

  /**
   * Read input only while the client reads our output and the line of waiting calls is short:
   * memory stays bounded by what runs and waits, whatever the client sends.
   */
  function flow(): void {
    if (reader === undefined || draining) return;
    if (out.full || requests.waitingFull) reader.pause();
    else reader.resume();
  }

  function maybeFinish(): void {
    if (!draining || requests.size > 0 || finished === undefined) return;
    events?.clear();
    stopWatchingTools?.();
    out.detach();
    const done = finished;
    finished = undefined;
    done();
  }

  function shutdown(o: { abort?: boolean } = {}): void {
    draining = true;
    reader?.stop();
    dialogs.close();
    if (o.abort) requests.abortAll(new Error('the server is shutting down'));
    maybeFinish();
  }

  const answer = (id: RpcId, result: unknown): void => {
    if (send(resultOf(id, result))) return;
    // The result could not be serialised (a tool's details with a cycle): the client still hears.
    send(errorOf(id, { code: RPC_ERRORS.internalError, message: 'The result could not be serialised as JSON.' }));
  };
  const fail = (id: RpcId | null, error: unknown): void => {
    if (error instanceof RpcError) {
      send(errorOf(id, { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) }));
    } else {
      log(`internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      send(errorOf(id, { code: RPC_ERRORS.internalError, message: `Internal error: ${error instanceof Error ? error.message : String(error)}` }));
    }
  };

  async function serve(host: ServedHost): Promise<void> {
    if (reader !== undefined || events !== undefined) throw new Error('serve() was already called; one server serves one host');
    const done = new Promise<void>((resolve) => (finished = resolve));
    // Shut down before serving began (a signal while the host was opening): serve nothing.
    if (draining) {
      finished = undefined;
      return;
    }
    events = new EventSubscriptions(host.kernel, send, () => out.full);
    stopWatchingTools = host.onToolsChanged?.((selection) => {
      send({ jsonrpc: '2.0', method: 'tools/changed', params: { enabled: selection.enabled.map((entry) => entry.tool.name) } });
    });
    const dispatch = createDispatcher({
      host,
      dialogs,
      requests,
      events,
      agent: { options: options.agent ?? {}, send, backedUp: () => out.full },
      info: { version: options.version ?? '1.0.0', maxLineBytes, dialogTimeoutMs },
    });

    const onRequest = (request: RpcRequest): void => {
      if (draining) return void fail(request.id, new RpcError(RPC_ERRORS.shuttingDown, 'The server is shutting down and takes no new requests.'));
      if (requests.has(request.id)) {
        return void fail(request.id, new RpcError(RPC_ERRORS.duplicateId, `A request with id ${JSON.stringify(request.id)} is still running; give each running request its own id.`));
      }
      requests.start(request.id, SLOT_METHODS.has(request.method), async (signal) => {
        try {
          answer(request.id, await dispatch(request, signal));
        } catch (error) {
          fail(request.id, error);
        }
      });
    };

    reader = readLines(options.input, maxLineBytes, {
      line: (text) => {
        const incoming = classify(text);
        switch (incoming.kind) {
          case 'request':
            return onRequest(incoming.message);
          case 'notification':
            // Only abort and events/unsubscribe mean something without an answer; run them quietly.
            if (incoming.message.method === 'abort' || incoming.message.method === 'events/unsubscribe') {
              void dispatch({ ...incoming.message, id: '' }, new AbortController().signal).catch((error: unknown) => log(`ignored notification ${incoming.message.method}: ${(error as Error).message}`));
            } else log(`ignored a notification (a request without an id): ${incoming.message.method.slice(0, 100)}`);
            return;
          case 'response':
            if (!dialogs.answer(incoming.message)) log(`ignored a response to id ${JSON.stringify(incoming.message.id ?? null).slice(0, 100)}: no dialog is waiting for it`);
            return;
          case 'invalid':
            return fail(incoming.id, new RpcError(incoming.error.code, incoming.error.message));
        }
      },
      oversize: (bytes) =>
        fail(null, new RpcError(RPC_ERRORS.invalidRequest, `Invalid request: a line of ${bytes} bytes is over the limit of ${maxLineBytes} bytes and was dropped unread. Send smaller requests (a large file's content belongs in several writes, or a path).`)),
      end: (error) => {
        if (error) log(`input failed: ${error.message}`);
        shutdown();
      },
    });
    flow();
    await done;
  }

  return {
    ui: dialogs.ui,
    serve,
    shutdown,
    get running() {
      return requests.size;
    },
  };
}
