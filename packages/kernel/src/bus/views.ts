import type { ToolCallEvent, ToolResultEvent } from '@airlock/contract';
import type { CallState } from '../state/call-state.js';
import type { Phase } from './phases.js';
import { sharedAnalysis } from '../state/command-analysis.js';

const NONE: readonly never[] = Object.freeze([]);

/**
 * The frozen objects handlers receive. One view is shared by every handler of a phase and is
 * rebuilt only when the arguments or the result change, so ten observers cost one allocation.
 */
export function toolCallView(state: CallState, phase: Phase): ToolCallEvent {
  const version = state.provenance.length;
  const cached = state.view;
  if (cached !== undefined && cached.phase === phase && cached.version === version) return cached.value as ToolCallEvent;
  const late = phase === 'tool_call:approve' || phase === 'tool_call:observe';
  const value: ToolCallEvent = Object.freeze({
    toolCallId: state.call.id,
    toolName: state.tool?.tool.name ?? state.call.name,
    toolSource: state.tool?.source ?? 'unknown',
    toolEffects: state.tool?.tool.effects === 'unknown' ? 'unknown' : undefined,
    args: state.args ?? Object.freeze({}),
    proposedArgs: state.proposedArgs ?? Object.freeze({}),
    provenance: state.provenance.length === 0 ? NONE : Object.freeze(state.provenance.slice()),
    resources: state.resources,
    analyzeCommand: analyzerFor(state),
    // Votes stay hidden during authorize: each vote is cast on its own, so order cannot matter.
    votes: late ? Object.freeze(state.votes.slice()) : NONE,
    effect: late ? state.effect : undefined,
    decision: phase === 'tool_call:observe' ? state.decision : undefined,
    recheck: state.recheck?.after,
    signal: state.signal,
  });
  state.view = { phase, version, value };
  return value;
}

/** The call's shared analyzer, made once per call and only for a tool that has one. */
function analyzerFor(state: CallState): ToolCallEvent['analyzeCommand'] {
  const analyzer = state.tool?.tool.analyzeCommand;
  if (analyzer === undefined) return undefined;
  return (state.analyzeCommand ??= sharedAnalysis(state.tool!.tool.name, analyzer));
}

export function toolResultView(state: CallState, phase: Phase, partial = false): ToolResultEvent {
  const result = state.result!;
  // The cache is keyed by `hook:phase`, so call and result views never mix ("transform" is in both).
  const key = phase;
  const version = result.patches.length;
  const cached = state.view;
  if (!partial && cached !== undefined && cached.phase === key && cached.version === version) return cached.value as ToolResultEvent;
  const value: ToolResultEvent = Object.freeze({
    toolCallId: state.call.id,
    toolName: state.tool?.tool.name ?? state.call.name,
    args: state.args,
    rawArgs: state.call.arguments,
    outcome: result.outcome,
    content: result.content,
    details: result.details,
    usage: result.usage,
    isError: result.isError,
    terminate: result.terminate,
    decision: state.decision,
    provenance: state.provenance.length === 0 ? NONE : Object.freeze(state.provenance.slice()),
    durationMs: performance.now() - state.startedAt,
    partial,
    signal: state.signal,
  });
  if (!partial) state.view = { phase: key, version, value };
  return value;
}
