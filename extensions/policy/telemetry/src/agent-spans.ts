import type { Attributes, Context, Histogram, Span } from '@opentelemetry/api';
import type { AgentActivity, Usage } from '@airlock/contract';
import type { TelemetrySinks } from './pipeline.js';

/** OTel API enum values (stable in the spec), so this module needs no runtime import of the API. */
const SPAN_KIND_INTERNAL = 0;
const SPAN_KIND_CLIENT = 2;
const STATUS_ERROR = 2;

/** The agent's stop reasons in the GenAI conventions' finish-reason words. */
const FINISH_REASONS: Record<string, string> = { stop: 'stop', toolUse: 'tool_call', length: 'length', error: 'error', aborted: 'aborted' };
/** Run statuses that are failures of the run (a turn limit or a terminate rule is not). */
const FAILED_RUNS = new Set(['failed', 'aborted']);

export interface AgentSpansOptions {
  sessionId: string;
  now?: () => number;
}

interface Open {
  span: Span;
  context: Context;
  startedAt: number;
  /** For a model request: the model asked for (the answer may name a more exact one). */
  model?: string;
}

/**
 * Token counts as the GenAI conventions count them: `gen_ai.usage.input_tokens` includes cached
 * prompt tokens, which Airlock's usage (like Anthropic's API) keeps apart.
 */
function usageAttributes(usage: Usage | undefined): Attributes {
  if (usage === undefined) return {};
  const cacheRead = usage.cacheRead ?? 0;
  const cacheWrite = usage.cacheWrite ?? 0;
  const out: Attributes = { 'gen_ai.usage.input_tokens': usage.input + cacheRead + cacheWrite, 'gen_ai.usage.output_tokens': usage.output };
  if (cacheRead > 0) out['gen_ai.usage.cache_read.input_tokens'] = cacheRead;
  if (cacheWrite > 0) out['gen_ai.usage.cache_creation.input_tokens'] = cacheWrite;
  if (usage.cost !== undefined && usage.cost > 0) out['airlock.usage.cost_usd'] = usage.cost;
  return out;
}

/**
 * Turns an agent loop's activity into spans: `invoke_agent airlock` per run, `turn` per turn under
 * it, `chat <model>` per model request under its turn (GenAI conventions, with token usage), and
 * the token and duration metrics of the conventions. `parentOf(toolCallId)` gives the tool-call
 * recorder the turn a call belongs to, so `execute_tool` spans sit under the turn whose model
 * request asked for them. Only ids, models, stop reasons and counts are recorded.
 *
 * @example
 * const agent = createAgentSpans(sinks, { sessionId });
 * api.onAgentActivity?.(agent.onActivity);
 */
export function createAgentSpans(sinks: TelemetrySinks, options: AgentSpansOptions) {
  const { tracer, meter, api } = sinks;
  const now = options.now ?? (() => performance.now());
  const runs = new Map<string, Open>();
  const turns = new Map<string, Open>();
  const requests = new Map<string, Open>();
  /** Tool-call id → the context of the turn whose model request asked for it; kept until that turn ends. */
  const callParents = new Map<string, Context>();
  const callsOfTurn = new Map<string, readonly string[]>();
  const tokens: Histogram = meter.createHistogram('gen_ai.client.token.usage', { description: 'Tokens used per model request, by type.', unit: '{token}' });
  const duration: Histogram = meter.createHistogram('gen_ai.client.operation.duration', { description: 'Duration of each model request.', unit: 's' });
  const conversation: Attributes = { 'gen_ai.conversation.id': options.sessionId, 'airlock.session.id': options.sessionId };

  function open(name: string, kind: number, attributes: Attributes, parent: Context | undefined): Open {
    const span = tracer.startSpan(name, { kind, attributes }, parent ?? api.context.active());
    return { span, context: api.trace.setSpan(parent ?? api.context.active(), span), startedAt: now() };
  }

  function endTurn(turnId: string): void {
    for (const id of callsOfTurn.get(turnId) ?? []) callParents.delete(id);
    callsOfTurn.delete(turnId);
    turns.get(turnId)?.span.end();
    turns.delete(turnId);
  }

  function onActivity(activity: AgentActivity): void {
    switch (activity.type) {
      case 'agent_start':
        runs.set(
          activity.runId,
          open(
            'invoke_agent airlock',
            SPAN_KIND_INTERNAL,
            {
              'gen_ai.operation.name': 'invoke_agent',
              'gen_ai.agent.name': 'airlock',
              'gen_ai.provider.name': activity.provider,
              'gen_ai.request.model': activity.model,
              'airlock.run.id': activity.runId,
              ...conversation,
            },
            undefined,
          ),
        );
        return;
      case 'turn_start':
        turns.set(
          activity.turnId,
          open('turn', SPAN_KIND_INTERNAL, { 'airlock.run.id': activity.runId, 'airlock.turn.id': activity.turnId, 'airlock.turn.number': activity.turn, ...conversation }, runs.get(activity.runId)?.context),
        );
        return;
      case 'model_request_start':
        requests.set(activity.turnId, {
          model: activity.model,
          ...open(
            `chat ${activity.model}`,
            SPAN_KIND_CLIENT,
            {
              // Required at start by the conventions (sampling may depend on them).
              'gen_ai.operation.name': 'chat',
              'gen_ai.provider.name': activity.provider,
              'gen_ai.request.model': activity.model,
              'airlock.turn.id': activity.turnId,
              ...conversation,
            },
            turns.get(activity.turnId)?.context ?? runs.get(activity.runId)?.context,
          ),
        });
        return;
      case 'model_request_end': {
        const request = requests.get(activity.turnId);
        requests.delete(activity.turnId);
        const seconds = request === undefined ? undefined : (now() - request.startedAt) / 1000;
        const failed = activity.stopReason === 'error' || activity.stopReason === 'aborted';
        const common: Attributes = {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': activity.provider,
          'gen_ai.request.model': request?.model ?? activity.model,
          'gen_ai.response.model': activity.model,
        };
        if (activity.usage !== undefined) {
          const counted = usageAttributes(activity.usage);
          tokens.record(counted['gen_ai.usage.input_tokens'] as number, { ...common, 'gen_ai.token.type': 'input' });
          tokens.record(activity.usage.output, { ...common, 'gen_ai.token.type': 'output' });
        }
        if (seconds !== undefined) duration.record(seconds, failed ? { ...common, 'error.type': activity.stopReason === 'error' ? 'provider_error' : 'aborted' } : common);
        if (request !== undefined) {
          request.span.setAttributes({
            'gen_ai.response.model': activity.model,
            'gen_ai.response.finish_reasons': [FINISH_REASONS[activity.stopReason] ?? activity.stopReason],
            'airlock.tool_calls': activity.toolCallIds.length,
            ...usageAttributes(activity.usage),
          });
          if (failed) {
            request.span.setAttribute('error.type', activity.stopReason === 'error' ? 'provider_error' : 'aborted');
            request.span.setStatus({ code: STATUS_ERROR });
          }
          request.span.end();
        }
        const parent = turns.get(activity.turnId)?.context;
        if (parent !== undefined && activity.toolCallIds.length > 0) {
          for (const id of activity.toolCallIds) callParents.set(id, parent);
          callsOfTurn.set(activity.turnId, activity.toolCallIds);
        }
        return;
      }
      case 'turn_end':
        turns.get(activity.turnId)?.span.setAttribute('airlock.turn.tool_calls', activity.toolCalls);
        endTurn(activity.turnId);
        return;
      case 'agent_end': {
        const run = runs.get(activity.runId);
        runs.delete(activity.runId);
        // Turns of this run left open (a loop that stopped between events) end with it.
        for (const turnId of [...turns.keys()]) if (turnId.startsWith(`${activity.runId}:`)) endTurn(turnId);
        if (run === undefined) return;
        run.span.setAttributes({ 'airlock.agent.status': activity.status, 'airlock.agent.turns': activity.turns, 'airlock.agent.requests': activity.requests, ...usageAttributes(activity.usage) });
        if (FAILED_RUNS.has(activity.status)) {
          run.span.setAttribute('error.type', activity.status);
          run.span.setStatus({ code: STATUS_ERROR });
        }
        run.span.end();
        return;
      }
      default:
        return;
    }
  }

  return {
    /** The agent-activity listener (`api.onAgentActivity`). Never throws. */
    onActivity,
    /** The turn a tool call belongs to, while that turn is open. */
    parentOf: (toolCallId: string): Context | undefined => callParents.get(toolCallId),
    /** End what is still open (a host closing mid-run), innermost first, so nothing is lost. */
    endOpen(): void {
      for (const map of [requests, turns, runs]) {
        for (const state of map.values()) {
          state.span.setAttribute('airlock.outcome', 'unfinished');
          state.span.end();
        }
        map.clear();
      }
      callParents.clear();
      callsOfTurn.clear();
    },
  };
}

export type AgentSpans = ReturnType<typeof createAgentSpans>;
