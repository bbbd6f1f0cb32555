import type { Content, Usage } from '@airlock/contract';
import type { JudgedFile, ToolContext } from '@airlock/contract';
import type { ApprovalInput, Args, ArgsChange, Decision, DecisionSource, Effect, Vote } from '@airlock/contract';
import type { Outcome, ToolCall } from '@airlock/contract';
import type { Resource } from '@airlock/contract';
import type { ShellAnalysis } from '@airlock/contract';
import type { RegisteredTool } from '../registry.js';
import type { EventChannel } from './event-channel.js';
import type { RunAbort } from './run-abort.js';

/** The result as it moves through normalization and the tool_result hook. */
export interface ResultDraft {
  outcome: Outcome;
  content: Content[];
  details: unknown;
  usage: Usage | undefined;
  isError: boolean;
  terminate: boolean;
  /** Which handlers patched the result, and which fields. */
  patches: { handler: string; phase: string; fields: string[] }[];
}

/**
 * One call on its way through the stages. Created when the call enters the pipeline, it is the
 * waterfall value of both hooks; every stage reads and writes it, nothing else holds call state.
 */
export interface CallState {
  readonly call: ToolCall;
  /** The run's signal (undefined when the caller gave none: then nothing can abort the run). */
  readonly signal: AbortSignal | undefined;
  /** The run's abort: `aborted` to check it cheaply, `watch(fn)` to hear of it (see RunAbort). */
  readonly abort: RunAbort;
  readonly events: EventChannel;
  readonly startedAt: number;
  /**
   * Judged only (Kernel.preflight): stages 1–4 up to the combined vote. Approvers do not run (they
   * may ask a person or remember an answer), observers do not run (they would log a call that never
   * happens), and an ask is left unsettled for the report.
   */
  readonly dryRun: boolean;
  tool: RegisteredTool | undefined;
  ctx: ToolContext | undefined;
  /** The current arguments: deep-frozen, validated (and re-validated after transforms). */
  args: Args | undefined;
  /** The arguments as validated, before any transform. */
  proposedArgs: Args | undefined;
  provenance: ArgsChange[];
  resources: Resource[];
  /** The file resources as they were when judged (ToolContext.judged), set with `resources`. */
  judged: readonly JudgedFile[];
  /** `event.analyzeCommand` for this call, made on first use (see state/command-analysis.ts). */
  analyzeCommand?: (command: string) => Promise<ShellAnalysis>;
  votes: Vote[];
  /** The combined vote, once authorize is over. */
  effect: Effect | undefined;
  approval: (ApprovalInput & { handler: string }) | undefined;
  /** Set as soon as the call's fate is known; a deny decision means execute never runs. */
  decision: Decision | undefined;
  result: ResultDraft | undefined;
  /** Why the call ended before execute, worded for the model. */
  stopText: string | undefined;
  /**
   * Once it runs, may this call change what a later call of its batch touches? Starts true (a tool
   * that declares no resources may do anything); set from the resources when they are computed.
   */
  mayChangeFiles: boolean;
  /**
   * The tool limited its own output: its result said `limited: true`, or its `ctx.truncate` cut
   * something. The backstop then gives its notice room (see 6-normalize-result.ts).
   */
  limitedByTool?: true;
  /**
   * Set while the call is judged a second time, just before it runs, because an earlier call of
   * its batch may have changed the filesystem (see run-batch.ts). Holds the first judgement.
   */
  recheck: Recheck | undefined;
  /** The frozen view handlers of one phase share; rebuilt when the phase or the value changes. */
  view: { phase: string; version: number; value: unknown } | undefined;
}

/** The first judgement of a call that is judged again, and the call that made it necessary. */
export interface Recheck {
  /** The earlier call of the batch that may have changed the filesystem. */
  readonly after: { readonly toolCallId: string; readonly toolName: string };
  readonly resources: readonly Resource[];
  readonly votes: readonly Vote[];
  readonly approval: CallState['approval'];
}

export function createCallState(call: ToolCall, abort: RunAbort, events: EventChannel, dryRun = false): CallState {
  return {
    call,
    signal: abort.signal,
    abort,
    events,
    startedAt: performance.now(),
    dryRun,
    tool: undefined,
    ctx: undefined,
    args: undefined,
    proposedArgs: undefined,
    provenance: [],
    resources: [],
    judged: [],
    votes: [],
    effect: undefined,
    approval: undefined,
    decision: undefined,
    result: undefined,
    stopText: undefined,
    mayChangeFiles: true,
    recheck: undefined,
    view: undefined,
  };
}

/** End the call before execute with an outcome other than ok. The first stop wins. */
export function stop(state: CallState, outcome: Outcome, text: string, source?: DecisionSource): void {
  if (state.stopText !== undefined) return;
  state.stopText = text;
  state.decision = {
    effect: 'deny',
    outcome,
    reason: text,
    source: source ?? { kind: 'kernel', reason: outcome },
    votes: state.votes,
  };
}

export function isStopped(state: CallState): boolean {
  return state.stopText !== undefined;
}
