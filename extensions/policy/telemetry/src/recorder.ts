import type { Attributes, Context, Counter, Histogram, Span } from '@opentelemetry/api';
import type { Content, DecisionSource, KernelEvent, LoadedExtensionInfo } from '@airlock/contract';
import { canonicalJson, sha256Hex } from '@airlock/audit-format';
import type { TelemetrySinks } from './pipeline.js';
import { placeholderCounts } from '@airlock/secrets';

/** OTel API enum values (stable in the spec), so this module needs no runtime import of the API. */
const SPAN_KIND_INTERNAL = 0;
const STATUS_ERROR = 2;
/** Content attributes are cut here: a span is not a transcript. */
const CONTENT_LIMIT = 4096;

export interface RecorderOptions {
  sessionId: string;
  kernelVersion: string;
  version: string;
  /** Export arguments and results (after `redact`). Off by default. */
  exportContent: boolean;
  /** Makes content safe to send (the secret scanner); applied to everything content export sends. */
  redact: (value: unknown) => unknown;
  /** Called when a call has ended, inside its span's context (audit records are emitted here). */
  afterCall?: (toolCallId: string, context: Context) => void;
  /** The span a call's span goes under (the agent turn that asked for it); default: the active context. */
  parentOf?: (toolCallId: string) => Context | undefined;
  /** The host's loaded extensions (`api.loadedExtensions`), read at the first call: their versions go on every span. */
  extensions?: () => readonly LoadedExtensionInfo[];
  now?: () => number;
}

interface CallState {
  span: Span;
  context: Context;
  startedAt: number;
  decidedAt?: number;
  /** The call was allowed and went on to run. */
  executed?: boolean;
}

interface Instruments {
  calls: Counter;
  decisionLatency: Histogram;
  executionLatency: Histogram;
  denials: Counter;
  redactions: Counter;
}

/** Who decided, as flat attributes: a collector filters on `airlock.decision.rule`. */
function sourceAttributes(source: DecisionSource): Attributes {
  const out: Attributes = { 'airlock.decision.source': source.kind };
  if ('handler' in source) out['airlock.decision.handler'] = source.handler;
  if (source.kind === 'vote' && source.rule !== undefined) out['airlock.decision.rule'] = source.rule;
  if (source.kind === 'approval') {
    if (source.by !== undefined) out['airlock.approval.by'] = source.by;
    if (source.scope !== undefined) out['airlock.approval.scope'] = source.scope;
  }
  if (source.kind === 'kernel') out['airlock.decision.kernel_reason'] = source.reason;
  if (source.kind === 'handler-failure') out['airlock.decision.phase'] = source.phase;
  return out;
}

function contentText(content: readonly Content[]): string {
  return content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
}

function clip(text: string): string {
  return text.length <= CONTENT_LIMIT ? text : `${text.slice(0, CONTENT_LIMIT)}…[${text.length - CONTENT_LIMIT} more characters]`;
}

/**
 * Turns the kernel's events into OpenTelemetry: one `execute_tool <name>` span per call (GenAI
 * conventions), its phases as span events (transform, each vote, approve, execute, redact), and the call
 * metrics. Only names, ids, rules, outcomes and hashes are recorded unless content export is on.
 *
 * @example
 * const recorder = createRecorder(sinks, { sessionId, kernelVersion, version, exportContent: false, redact: (v) => v });
 * kernel.onEvent(recorder.onEvent);
 */
export function createRecorder(sinks: TelemetrySinks, options: RecorderOptions) {
  const { tracer, meter, api } = sinks;
  const now = options.now ?? (() => performance.now());
  const calls = new Map<string, CallState>();
  const instruments: Instruments = {
    calls: meter.createCounter('airlock.tool.calls', { description: 'Tool calls by tool and outcome.', unit: '{call}' }),
    decisionLatency: meter.createHistogram('airlock.decision.duration', { description: 'From the call arriving to its final decision (validation, transform, authorize, approve).', unit: 's' }),
    executionLatency: meter.createHistogram('airlock.execution.duration', { description: 'From the decision to the final result (execute and result hooks).', unit: 's' }),
    denials: meter.createCounter('airlock.tool.denials', { description: 'Denied calls by deciding rule (or, without one, by what decided).', unit: '{call}' }),
    redactions: meter.createCounter('airlock.redactions', { description: 'Secrets replaced in tool results, by detector.', unit: '{secret}' }),
  };
  const common: Attributes = { 'airlock.session.id': options.sessionId };
  // Read once, at the first call: by then every extension has loaded, and the set never changes.
  let versions: { list: string[]; byName: Map<string, string> } | undefined;
  const extensionVersions = (): NonNullable<typeof versions> => {
    if (versions !== undefined) return versions;
    let loaded: readonly LoadedExtensionInfo[] = [];
    try {
      loaded = options.extensions?.() ?? [];
    } catch {
      // An older host: spans go without the versions.
    }
    versions = { list: loaded.map((e) => `${e.name}@${e.version}`), byName: new Map(loaded.map((e) => [e.name, e.version])) };
    return versions;
  };

  function begin(toolCallId: string, toolName: string, args: unknown): CallState {
    const parent = options.parentOf?.(toolCallId) ?? api.context.active();
    const { list } = extensionVersions();
    const span = tracer.startSpan(`execute_tool ${toolName}`, {
      kind: SPAN_KIND_INTERNAL,
      attributes: {
        // Required at start by the conventions (sampling may depend on it).
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': toolName,
        'gen_ai.tool.call.id': toolCallId,
        'gen_ai.tool.type': 'function',
        ...common,
        'airlock.kernel.version': options.kernelVersion,
        'airlock.telemetry.version': options.version,
        ...(list.length === 0 ? {} : { 'airlock.extensions': list }),
      },
    }, parent);
    if (options.exportContent) span.setAttribute('gen_ai.tool.call.arguments', clip(JSON.stringify(options.redact(args)) ?? 'null'));
    const state: CallState = { span, context: api.trace.setSpan(parent, span), startedAt: now() };
    calls.set(toolCallId, state);
    return state;
  }

  function decide(event: Extract<KernelEvent, { type: 'tool_decision' }>): void {
    const state = calls.get(event.toolCallId) ?? begin(event.toolCallId, event.toolName, undefined);
    const { decision } = event;
    const at = now();
    // A call judged again before it runs (a batch's recheck) gets a second decision: latency counts the first.
    if (state.decidedAt === undefined) {
      state.decidedAt = at;
      instruments.decisionLatency.record((at - state.startedAt) / 1000, { 'gen_ai.tool.name': event.toolName, 'airlock.decision': decision.effect });
    }
    for (const change of event.provenance) {
      // The change by hash: the arguments themselves may hold secrets.
      state.span.addEvent('airlock.transform', {
        'airlock.handler': change.handler,
        'airlock.args.before.sha256': sha256Hex(canonicalJson(change.before)),
        'airlock.args.after.sha256': sha256Hex(canonicalJson(change.after)),
      });
    }
    for (const vote of decision.votes) {
      const attributes: Attributes = { 'airlock.handler': vote.handler, 'airlock.vote.effect': vote.effect };
      if (vote.rule !== undefined) attributes['airlock.rule'] = vote.rule;
      state.span.addEvent('airlock.authorize.vote', attributes);
    }
    if (decision.source.kind === 'approval' || decision.source.kind === 'no-approver') {
      state.span.addEvent('airlock.approve', { ...sourceAttributes(decision.source), 'airlock.decision': decision.effect });
    }
    state.span.setAttributes({ 'airlock.decision': decision.effect, ...sourceAttributes(decision.source) });
    // The deciding handler's extension version: which release of a policy made the call.
    if ('handler' in decision.source) {
      const version = extensionVersions().byName.get(decision.source.handler.split('/')[0]!);
      if (version !== undefined) state.span.setAttribute('airlock.decision.handler.version', version);
    }
    if (options.exportContent && decision.reason !== undefined) state.span.setAttribute('airlock.decision.reason', clip(String(options.redact(decision.reason))));
    // The files the policy judged (each a resolved `path`, with the model's `written` spelling),
    // beside gen_ai.tool.call.arguments, which has only the spelling. A re-check judges again: the last one stands.
    if (options.exportContent && event.resources.length > 0) state.span.setAttribute('airlock.tool.resources', clip(JSON.stringify(options.redact(event.resources)) ?? '[]'));
    if (decision.effect === 'deny') {
      const source = decision.source;
      const rule = source.kind === 'vote' ? (source.rule ?? source.handler) : source.kind === 'handler-failure' ? source.handler : source.kind;
      instruments.denials.add(1, { 'gen_ai.tool.name': event.toolName, 'airlock.rule': rule, 'airlock.outcome': decision.outcome });
    } else if (state.executed !== true) {
      // An event, not a child span: a span per phase would double what each call costs to record
      // and to export; the execution's duration is from this event to the span's end.
      state.executed = true;
      state.span.addEvent('airlock.execute');
    }
  }

  function end(event: Extract<KernelEvent, { type: 'tool_execution_end' }>): void {
    const state = calls.get(event.toolCallId) ?? begin(event.toolCallId, event.toolName, undefined);
    calls.delete(event.toolCallId);
    const { result } = event;
    const at = now();
    const text = contentText(result.content);
    for (const [detector, count] of placeholderCounts(text)) {
      state.span.addEvent('airlock.redact', { 'airlock.detector': detector, 'airlock.redactions': count });
      instruments.redactions.add(count, { 'airlock.detector': detector, 'gen_ai.tool.name': event.toolName });
    }
    if (options.exportContent) state.span.setAttribute('gen_ai.tool.call.result', clip(String(options.redact(text))));
    state.span.setAttributes({ 'airlock.outcome': result.outcome, 'airlock.is_error': result.isError });
    if (result.outcome !== 'ok') {
      state.span.setAttribute('error.type', result.outcome === 'error' ? 'tool_error' : result.outcome);
      state.span.setStatus({ code: STATUS_ERROR });
    }
    if (state.executed === true) {
      instruments.executionLatency.record((at - (state.decidedAt ?? state.startedAt)) / 1000, { 'gen_ai.tool.name': event.toolName, 'airlock.outcome': result.outcome });
    }
    instruments.calls.add(1, { 'gen_ai.tool.name': event.toolName, 'airlock.outcome': result.outcome });
    options.afterCall?.(event.toolCallId, state.context);
    state.span.end();
  }

  return {
    /** The kernel event listener (`kernel.onEvent` / `api.onEvent`). Never throws into the kernel. */
    onEvent(event: KernelEvent): void {
      switch (event.type) {
        case 'tool_execution_start':
          if (!calls.has(event.toolCallId)) begin(event.toolCallId, event.toolName, event.args);
          return;
        case 'tool_decision':
          decide(event);
          return;
        case 'hook_failure': {
          // Not the error text: it may quote the content the handler failed on.
          calls.get(event.toolCallId)?.span.addEvent('airlock.hook_failure', {
            'airlock.hook': event.hook,
            'airlock.phase': event.phase,
            'airlock.handler': event.handler,
            'airlock.failure': event.failure,
            'airlock.timed_out': event.timedOut,
          });
          return;
        }
        case 'tool_execution_end':
          end(event);
          return;
        default:
          return;
      }
    },
    /** End what is still open (a host closing mid-call), so nothing is lost at shutdown. */
    endOpen(): void {
      for (const state of calls.values()) {
        state.span.setAttribute('airlock.outcome', 'unfinished');
        state.span.end();
      }
      calls.clear();
    },
  };
}

export type Recorder = ReturnType<typeof createRecorder>;
