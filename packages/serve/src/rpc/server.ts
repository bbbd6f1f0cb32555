/**
 * `airlock serve --stdio` as a library: JSON-RPC 2.0 over JSON lines, every call through an open
 * host. One line in is one message; answers go out as they finish, matched by id, so a client may
 * keep many requests running. See docs/rpc.md for the methods.
 */
import type { Readable, Writable } from 'node:stream';
import type { Host } from '@airlock/host';
import { terminalSafe, toProviderTools, type KernelEvent, type ToolCall, type ToolUI } from '@airlock/kernel';
import { createDialogBridge } from './dialogs.js';
import { readLines, writeLines } from './json-lines.js';
import { checkParams } from './params.js';
import { classify, errorOf, resultOf, RPC_ERRORS, RpcError, type RpcId, type RpcRequest } from './protocol.js';
import { METHODS, type MethodName, type ParamsOf, type ResultOf } from './schemas.js';

/** A line longer than this is refused (8 MiB: a write of a large file fits, a runaway client does not). */
export const DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024;
/** The longest a dialog waits for the client's answer before it counts as "no". */
export const DEFAULT_DIALOG_TIMEOUT_MS = 120_000;
/** Requests that run tools (call, batch, preflight) at once; more wait in line, in arrival order. */
export const DEFAULT_MAX_RUNNING_CALLS = 64;
/** Requests waiting in that line; past this the server reads no more input until the line shortens. */
export const DEFAULT_MAX_WAITING_CALLS = 1024;

/** Subscriptions one client may hold at once. */
export const MAX_SUBSCRIPTIONS = 16;

/** The methods that take a slot: they run tools (or policy handlers) and may take long. */
const SLOT_METHODS: ReadonlySet<string> = new Set(['tools/call', 'tools/batch', 'tools/preflight']);

/** What the server needs of a host (an `openHost` result has all of it). */
export type ServedHost = Pick<Host, 'kernel' | 'selection' | 'blocked' | 'execute' | 'batch'>;

export interface RpcServerOptions {
  /** Requests (and answers to the server's dialogs) arrive here, one JSON object per line. */
  input: Readable;
  /** Responses and the server's own requests and notifications go here; nothing else may write to it. */
  output: Writable;
  /** One line for people; default: stderr (stdout is the protocol). */
  log?: (line: string) => void;
  /** Default DEFAULT_MAX_LINE_BYTES. */
  maxLineBytes?: number;
  /** Default DEFAULT_DIALOG_TIMEOUT_MS; a dialog's own shorter limit wins. */
  dialogTimeoutMs?: number;
  /** Default DEFAULT_MAX_RUNNING_CALLS. */
  maxRunningCalls?: number;
  /** Default DEFAULT_MAX_WAITING_CALLS. */
  maxWaitingCalls?: number;
  /** Reported by initialize. */
  version?: string;
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
  const log = options.log ?? ((line: string) => void process.stderr.write(`airlock: ${terminalSafe(line)}\n`));
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const dialogTimeoutMs = options.dialogTimeoutMs ?? DEFAULT_DIALOG_TIMEOUT_MS;
  const maxRunningCalls = options.maxRunningCalls ?? DEFAULT_MAX_RUNNING_CALLS;
  const maxWaitingCalls = options.maxWaitingCalls ?? DEFAULT_MAX_WAITING_CALLS;
  /** Slot requests running, and those waiting for a slot (each starts itself). */
  let slotsInUse = 0;
  const waiting: (() => void)[] = [];
  const running = new Map<string, AbortController>();
  const subscriptions = new Map<string, ReadonlySet<string> | undefined>();
  let subscriptionCount = 0;
  let stopEvents: (() => void) | undefined;
  let reader: ReturnType<typeof readLines> | undefined;
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

  const keyOf = (id: RpcId): string => `${typeof id}:${String(id)}`;
  /**
   * Read input only while the client reads our output and the line of waiting calls is short:
   * memory stays bounded by what runs and waits, whatever the client sends.
   */
  const flow = (): void => {
    if (reader === undefined || draining) return;
    if (out.full || waiting.length >= maxWaitingCalls) reader.pause();
    else reader.resume();
  };
  const maybeFinish = (): void => {
    if (!draining || running.size > 0 || finished === undefined) return;
    stopEvents?.();
    stopEvents = undefined;
    subscriptions.clear();
    out.detach();
    const done = finished;
    finished = undefined;
    done();
  };

  function shutdown(o: { abort?: boolean } = {}): void {
    draining = true;
    reader?.stop();
    dialogs.close();
    if (o.abort) for (const controller of running.values()) controller.abort(new Error('the server is shutting down'));
    maybeFinish();
  }

  async function serve(host: ServedHost): Promise<void> {
    if (reader !== undefined) throw new Error('serve() was already called; one server serves one host');
    const done = new Promise<void>((resolve) => (finished = resolve));
    // Shut down before serving began (a signal while the host was opening): serve nothing.
    if (draining) {
      finished = undefined;
      return;
    }

    const onEvent = (event: KernelEvent): void => {
      // Progress is what a slow reader can do without: dropped while the output is backed up.
      if (event.type === 'tool_execution_update' && out.full) return;
      for (const [subscription, types] of subscriptions) {
        if (types === undefined || types.has(event.type)) send({ jsonrpc: '2.0', method: 'events/event', params: { subscription, event } });
      }
    };

    const handlers: { [M in MethodName]: (params: ParamsOf<M>, request: RpcRequest, signal: AbortSignal) => Promise<ResultOf<M>> | ResultOf<M> } = {
      initialize: (p) => {
        dialogs.enable(p.dialogs === true);
        return {
          protocol: 'airlock-rpc/1',
          server: { name: 'airlock', version: options.version ?? '1.0.0' },
          dialogs: dialogs.enabled,
          methods: Object.keys(METHODS),
          maxLineBytes,
          dialogTimeoutMs,
          maxRunningCalls,
          ...(host.blocked === undefined ? {} : { blocked: { message: host.blocked.message, fix: host.blocked.fix } }),
        };
      },
      'tools/list': (p) => {
        const provider = p.provider ?? 'mcp';
        const registry = host.kernel.registry.list().map((entry) => {
          const enabled = host.selection.has(entry.tool.name);
          return {
            name: entry.tool.name,
            label: entry.tool.label,
            description: entry.tool.description,
            source: entry.source,
            ...(entry.origin === undefined ? {} : { origin: entry.origin }),
            enabled,
            ...(enabled ? {} : { excluded: host.selection.excluded.get(entry.tool.name)?.map((r) => r.text) ?? [] }),
          };
        });
        let providerTools: unknown[];
        try {
          providerTools = toProviderTools(host.selection, provider);
        } catch (error) {
          throw new RpcError(RPC_ERRORS.internalError, `The enabled tools cannot be given to ${provider}: ${(error as Error).message}`);
        }
        return { registry, enabled: [...host.selection.enabledNames], provider, providerTools };
      },
      'tools/call': (p, request, signal) =>
        host.execute(callOf(p, String(request.id)), { signal, ...(p.timeoutMs === undefined ? {} : { timeoutMs: p.timeoutMs }) }),
      'tools/batch': (p, request, signal) =>
        host.batch(
          p.calls.map((c, i) => callOf(c, `${String(request.id)}-${i + 1}`)),
          {
            signal,
            ...(p.executionMode === undefined ? {} : { executionMode: p.executionMode }),
            ...(p.maxConcurrency === undefined ? {} : { maxConcurrency: p.maxConcurrency }),
            ...(p.timeoutMs === undefined ? {} : { timeoutMs: p.timeoutMs }),
          },
        ),
      'tools/preflight': (p, request, signal) => host.kernel.preflight(callOf(p, String(request.id)), { signal, tools: host.selection }) as unknown as ResultOf<'tools/preflight'>,
      abort: (p, request) => {
        if (p.id === undefined) {
          let count = 0;
          const own = keyOf(request.id);
          for (const [key, controller] of running) {
            if (key === own || controller.signal.aborted) continue;
            controller.abort(new Error('aborted by the client'));
            count++;
          }
          return { aborted: count };
        }
        const controller = running.get(keyOf(p.id));
        if (controller === undefined || controller.signal.aborted) return { aborted: 0 };
        controller.abort(new Error('aborted by the client'));
        return { aborted: 1 };
      },
      'events/subscribe': (p) => {
        // Every event goes out once per subscription: a bounded number keeps that cost bounded.
        if (subscriptions.size >= MAX_SUBSCRIPTIONS) {
          throw new RpcError(RPC_ERRORS.invalidRequest, `At most ${MAX_SUBSCRIPTIONS} subscriptions at once; end one with events/unsubscribe first (one subscription without "types" gets every event).`);
        }
        const subscription = `s${++subscriptionCount}`;
        subscriptions.set(subscription, p.types === undefined ? undefined : new Set(p.types));
        stopEvents ??= host.kernel.onEvent(onEvent);
        return { subscription };
      },
      'events/unsubscribe': (p) => {
        const had = subscriptions.delete(p.subscription);
        if (subscriptions.size === 0) {
          stopEvents?.();
          stopEvents = undefined;
        }
        return { unsubscribed: had };
      },
    };

    const dispatch = async (request: RpcRequest, signal: AbortSignal): Promise<unknown> => {
      if (!Object.hasOwn(METHODS, request.method)) {
        throw new RpcError(RPC_ERRORS.methodNotFound, `Method not found: ${JSON.stringify(request.method)}. This server answers ${Object.keys(METHODS).join(', ')}.`);
      }
      const method = request.method as MethodName;
      const params = checkParams(method, request.params);
      return (handlers[method] as (p: unknown, r: RpcRequest, s: AbortSignal) => unknown)(params, request, signal);
    };

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

    const onRequest = (request: RpcRequest): void => {
      const key = keyOf(request.id);
      if (draining) return void fail(request.id, new RpcError(RPC_ERRORS.shuttingDown, 'The server is shutting down and takes no new requests.'));
      if (running.has(key)) {
        return void fail(request.id, new RpcError(RPC_ERRORS.duplicateId, `A request with id ${JSON.stringify(request.id)} is still running; give each running request its own id.`));
      }
      const controller = new AbortController();
      // Registered at once, waiting or not, so `abort` finds it: a call aborted while it waits
      // still runs through the kernel when its turn comes, and answers "aborted" straight away.
      running.set(key, controller);
      const slot = SLOT_METHODS.has(request.method);
      const run = async (): Promise<void> => {
        try {
          answer(request.id, await dispatch(request, controller.signal));
        } catch (error) {
          fail(request.id, error);
        } finally {
          running.delete(key);
          if (slot) {
            slotsInUse--;
            waiting.shift()?.();
            flow();
          }
          maybeFinish();
        }
      };
      if (!slot) return void run();
      const start = (): void => {
        slotsInUse++;
        void run();
      };
      if (slotsInUse < maxRunningCalls) start();
      else {
        waiting.push(start);
        flow();
      }
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
            if (!dialogs.answer(incoming.message)) log(`ignored a response to id ${JSON.stringify(incoming.message.id).slice(0, 100)}: no dialog is waiting for it`);
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
      return running.size;
    },
  };
}

function callOf(p: { name: string; arguments?: unknown; id?: string }, fallbackId: string): ToolCall {
  return { id: p.id ?? fallbackId, name: p.name, arguments: p.arguments === undefined ? {} : p.arguments };
}
