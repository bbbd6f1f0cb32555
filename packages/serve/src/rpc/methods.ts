/**
 * What each method does, once its params have passed the schema (params.ts): the calls go to the
 * host (`execute`, `batch`, `kernel.preflight`, and agent/prompt's loop through `batch`), so every one runs the full pipeline.
 */
import { toProviderTools } from '@airlock/toolkit';
import { type ToolCall } from '@airlock/contract';
import { runAgentPrompt, type AgentPromptOptions } from './agent-prompt.js';
import type { DialogBridge } from './dialogs.js';
import type { EventSubscriptions } from './event-subscriptions.js';
import { checkParams } from './params.js';
import { RPC_ERRORS, RpcError, type RpcRequest } from './protocol.js';
import type { RunningRequests } from './running-requests.js';
import { METHODS, type MethodName, type ParamsOf, type ResultOf } from './schemas.js';
import type { ServedHost } from './server.js';

export interface MethodContext {
  host: ServedHost;
  dialogs: DialogBridge;
  requests: RunningRequests;
  events: EventSubscriptions;
  /** For agent/prompt: where models come from, and how its events reach the client. */
  agent: { options: AgentPromptOptions; send: (message: object) => void; backedUp: () => boolean };
  /** What initialize reports besides the host's state. */
  info: { version: string; maxLineBytes: number; dialogTimeoutMs: number };
}

type Handlers = { [M in MethodName]: (params: ParamsOf<M>, request: RpcRequest, signal: AbortSignal) => Promise<ResultOf<M>> | ResultOf<M> };

/**
 * The dispatcher: checks the method and its params, then runs its handler. Throws an RpcError for
 * an unknown method (-32601) or bad params (-32602).
 *
 * @example
 * const dispatch = createDispatcher({ host, dialogs, requests, events, info });
 * await dispatch({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, signal); // { registry, enabled, … }
 */
export function createDispatcher(ctx: MethodContext): (request: RpcRequest, signal: AbortSignal) => Promise<unknown> {
  const handlers = createHandlers(ctx);
  return async (request, signal) => {
    if (!Object.hasOwn(METHODS, request.method)) {
      throw new RpcError(RPC_ERRORS.methodNotFound, `Method not found: ${JSON.stringify(request.method)}. This server answers ${Object.keys(METHODS).join(', ')}.`);
    }
    const method = request.method as MethodName;
    const params = checkParams(method, request.params);
    return (handlers[method] as (p: unknown, r: RpcRequest, s: AbortSignal) => unknown)(params, request, signal);
  };
}

function createHandlers({ host, dialogs, requests, events, info, agent }: MethodContext): Handlers {
  return {
    initialize: (p) => {
      dialogs.enable(p.dialogs === true);
      return {
        protocol: 'airlock-rpc/2',
        server: { name: 'airlock', version: info.version },
        dialogs: dialogs.enabled,
        methods: Object.keys(METHODS),
        maxLineBytes: info.maxLineBytes,
        dialogTimeoutMs: info.dialogTimeoutMs,
        maxRunningCalls: requests.maxRunning,
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

    'tools/call': (p, request, signal) => host.execute(callOf(p, String(request.id)), { signal, ...(p.timeoutMs === undefined ? {} : { timeoutMs: p.timeoutMs }) }),

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

    // The same tool set a real call of this server sees (the kernel's default would be every tool).
    'tools/preflight': (p, request, signal) => host.kernel.preflight(callOf(p, String(request.id)), { signal, tools: host.selection }) as unknown as ResultOf<'tools/preflight'>,

    'agent/prompt': (p, request, signal) => runAgentPrompt(p, request.id, signal, { host, ...agent }),

    abort: (p, request) => {
      const reason = new Error('aborted by the client');
      if (p.id === undefined) return { aborted: requests.abortAll(reason, request.id) };
      return { aborted: requests.abort(p.id, reason) ? 1 : 0 };
    },

    'events/subscribe': (p) => ({ subscription: events.subscribe(p.types) }),
    'events/unsubscribe': (p) => ({ unsubscribed: events.unsubscribe(p.subscription) }),
  };
}

function callOf(p: { name: string; arguments?: unknown; id?: string }, fallbackId: string): ToolCall {
  return { id: p.id ?? fallbackId, name: p.name, arguments: p.arguments === undefined ? {} : p.arguments };
}
