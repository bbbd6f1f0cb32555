import type { ToolCallEvent, ToolResultEvent } from '../contract/hooks.js';
import type { CallState } from '../call/state.js';

const NONE: readonly never[] = Object.freeze([]);

/**
 * The frozen objects handlers receive. One view is shared by every handler of a phase and is
 * rebuilt only when the arguments or the result change, so ten observers cost one allocation.
 */
export function toolCallView(state: CallState, phase: string): ToolCallEvent {
  const key = `${phase}:${state.provenance.length}`;
  if (state.view?.key === key) return state.view.value as ToolCallEvent;
  const late = phase === 'approve' || phase === 'observe';
  const value: ToolCallEvent = Object.freeze({
    toolCallId: state.call.id,
    toolName: state.call.name,
    toolSource: state.tool?.source ?? 'unknown',
    args: state.args ?? Object.freeze({}),
    proposedArgs: state.proposedArgs ?? Object.freeze({}),
    provenance: state.provenance.length === 0 ? NONE : Object.freeze(state.provenance.slice()),
    resources: state.resources,
    // Votes stay hidden during authorize: each vote is cast on its own, so order cannot matter.
    votes: late ? Object.freeze(state.votes.slice()) : NONE,
    effect: late ? state.effect : undefined,
    decision: phase === 'observe' ? state.decision : undefined,
    signal: state.signal,
  });
  state.view = { key, value };
  return value;
}

export function toolResultView(state: CallState, phase: string, partial = false): ToolResultEvent {
  const result = state.result!;
  const key = `result:${phase}:${result.patches.length}`;
  if (!partial && state.view?.key === key) return state.view.value as ToolResultEvent;
  const value: ToolResultEvent = Object.freeze({
    toolCallId: state.call.id,
    toolName: state.call.name,
    args: state.args,
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
  if (!partial) state.view = { key, value };
  return value;
}
