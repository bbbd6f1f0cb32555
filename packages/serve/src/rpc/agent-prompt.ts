/**
 * `agent/prompt`: the agent loop on the server's host. The model is resolved on the server (its
 * keys, its base URL), the tools are the host's enabled set and run through `host.batch`, and
 * the loop's events go to the client as `agent/event` notifications while the run goes on.
 */
import { buildSystemPrompt, ModelSpecError, hostRunner, ProviderSetupError, resolveModel, runAgentLoop, ScriptError, userMessage, type AgentEvent, type ModelProvider } from '@airlock/agent';
import { RPC_ERRORS, RpcError, type RpcId } from './protocol.js';
import type { ParamsOf, ResultOf } from './schemas.js';
import type { ServedHost } from './server.js';
import type { AnyAgentTool } from '@airlock/contract';

/** Where models come from for `agent/prompt`: what `airlock serve --model/--base-url` set. */
export interface AgentPromptOptions {
  /** `provider:name` for a request that names none (may be `scripted:FILE`). */
  defaultModel?: string;
  /** The provider API's address for every request (never taken from the client). */
  baseUrl?: string;
  /** Where keys come from. Default: process.env. */
  env?: Readonly<Record<string, string | undefined>>;
}

export interface AgentPromptContext {
  host: ServedHost;
  options: AgentPromptOptions;
  send: (message: object) => void;
  /** The client is behind on reading: per-delta updates are dropped then, never starts and ends. */
  backedUp: () => boolean;
}

/** Events a slow reader can do without: the final message and result carry all they said. */
const DROPPABLE: ReadonlySet<string> = new Set(['message_update', 'tool_execution_update']);

/**
 * Run one prompt to its end (or until `signal`, which `abort` fires) and answer with the result.
 * Throws an RpcError for what is wrong before the run: no model, a model the client may not
 * choose, a provider that cannot be set up, a host that refuses every call.
 *
 * @example
 * await runAgentPrompt({ prompt: 'List the files' }, 7, signal, { host, options: { defaultModel: 'openai:gpt-5-mini' }, send, backedUp });
 */
export async function runAgentPrompt(params: ParamsOf<'agent/prompt'>, requestId: RpcId, signal: AbortSignal, ctx: AgentPromptContext): Promise<ResultOf<'agent/prompt'>> {
  const { host, options } = ctx;
  if (host.blocked !== undefined) {
    throw new RpcError(RPC_ERRORS.blocked, `No agent runs: every tool call would be refused. ${host.blocked.message}`, { fix: host.blocked.fix });
  }
  const { provider, model } = await openModel(params.model, options, host.kernel.session.cwd);
  const runner = hostRunner(host);
  const systemPrompt =
    params.systemPrompt ??
    ((tools: readonly AnyAgentTool[]) => buildSystemPrompt({ tools, ...(provider.toolName === undefined ? {} : { toolName: (n) => provider.toolName!(n) }), cwd: host.kernel.session.cwd }));
  const onEvent = (event: AgentEvent): void => {
    if (DROPPABLE.has(event.type) && ctx.backedUp()) return;
    ctx.send({ jsonrpc: '2.0', method: 'agent/event', params: { requestId, event: onTheWire(event) } });
  };
  const result = await runAgentLoop([userMessage(params.prompt)], {
    provider,
    model,
    runner,
    systemPrompt,
    signal,
    onEvent,
    ...(params.maxTurns === undefined ? {} : { maxTurns: params.maxTurns }),
  });
  return {
    runId: result.runId,
    status: result.status,
    ...(result.reason === undefined ? {} : { reason: result.reason }),
    ...(result.finalMessage === undefined ? {} : { finalMessage: result.finalMessage }),
    messages: result.messages,
    turns: result.turns,
    usage: result.usage,
  };
}

/**
 * In process, each message_update carries the whole message so far (twice: on the event and on
 * its delta); sent as it is, a long answer would cost the square of its length on the wire. The
 * client gets the delta alone and the whole message with message_end.
 */
function onTheWire(event: AgentEvent): object {
  if (event.type !== 'message_update') return event;
  const { message: _message, delta, ...rest } = event;
  const { message: _partial, ...change } = delta;
  return { ...rest, delta: change };
}

async function openModel(requested: string | undefined, options: AgentPromptOptions, cwd: string): Promise<{ provider: ModelProvider; model: string }> {
  const spec = requested ?? options.defaultModel;
  if (spec === undefined) {
    throw new RpcError(RPC_ERRORS.invalidParams, 'agent/prompt needs a model: send "model": "provider:name" (openai:…, anthropic:…), or start the server with --model.');
  }
  // A script is a file on the server: naming one would let the client read a file (its lines come
  // back in errors) without the read tool's policy. Only whoever starts the server may choose it.
  if (requested !== undefined && requested !== options.defaultModel && /^\s*scripted\s*:/i.test(requested)) {
    throw new RpcError(RPC_ERRORS.invalidParams, 'A client may not choose a scripted model: it reads a file on the server. Start the server with --model scripted:FILE instead, and leave "model" out.');
  }
  try {
    return await resolveModel(spec, { cwd, env: options.env ?? process.env, ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }) });
  } catch (error) {
    if (error instanceof ModelSpecError || error instanceof ScriptError || error instanceof ProviderSetupError) {
      throw new RpcError(RPC_ERRORS.invalidParams, `Cannot use the model "${spec}": ${error.message}`);
    }
    throw error;
  }
}
