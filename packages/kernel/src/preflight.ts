import type { Effect } from '@airlock/contract';
import type { PreflightReport } from '@airlock/contract';
import type { Outcome, ToolCall } from '@airlock/contract';
import type { ToolSelection } from './registry.js';
import { toToolCall } from './run-batch.js';
import { preflight, type KernelRuntime } from './run-tool-call.js';
import { EventChannel } from './state/event-channel.js';
import { RunAbort } from './state/run-abort.js';
import type { CallState } from './state/call-state.js';

/** Where a dry run's events go: nowhere (nothing an audit log or a UI could mistake for a call). */
const NO_EVENTS = new EventChannel(undefined);

/**
 * Stages 1–4 of one call through the same code a real call runs (run-tool-call.ts `preflight`),
 * with the state marked as a dry run: approvers and observers skipped, no events, nothing executed.
 */
export async function dryRun(kernel: KernelRuntime, selection: ToolSelection, raw: unknown, signal: AbortSignal | undefined): Promise<PreflightReport> {
  const call: ToolCall = toToolCall(raw, 0);
  const abort = new RunAbort(signal, 1);
  try {
    const state = await preflight(kernel, call, { selection, events: NO_EVENTS, timeoutMs: 0, abort, dryRun: true });
    return report(state);
  } finally {
    abort.release();
  }
}

function report(state: CallState): PreflightReport {
  const decision = state.decision;
  const asking = decision === undefined && state.effect === 'ask';
  const effect: Effect = asking ? 'ask' : (decision?.effect ?? 'deny');
  return Object.freeze({
    toolCallId: state.call.id,
    toolName: state.tool?.tool.name ?? state.call.name,
    effect,
    outcome: asking ? 'ok' : (decision?.outcome ?? 'error'),
    source: decision?.source,
    reason: decision?.reason,
    combined: state.effect,
    votes: Object.freeze([...state.votes]),
    asks: Object.freeze(state.votes.filter((v) => v.effect === 'ask')),
    proposedArgs: state.proposedArgs,
    args: state.args,
    provenance: Object.freeze([...state.provenance]),
    resources: state.resources,
    decision,
  });
}

export type { PreflightReport };
