import type { AgentToolResult, Content, Usage } from './content.js';
import type { Outcome } from './outcome.js';
import type { Resource } from './resource.js';
import type { ShellAnalysis } from './shell-analysis.js';

/**
 * The hook bus as extensions see it. Both hooks are waterfalls run in phases; the phase decides
 * what a handler receives and what it may return, so a misuse does not compile.
 */

export type ToolCallPhase = 'transform' | 'authorize' | 'approve' | 'observe';
export type ToolResultPhase = 'redact' | 'transform' | 'observe';
export type HookName = 'tool_call' | 'tool_result';
export type PhaseOf<H extends HookName> = H extends 'tool_call' ? ToolCallPhase : ToolResultPhase;

/** What a handler does when it throws or times out. */
export type FailureMode = 'open' | 'closed';

export interface HandlerOptions<P extends string = string> {
  /** `extension/purpose`, e.g. `path-policy/deny-rules`. Shown in every decision and failure. */
  name: string;
  phase: P;
  /** Default per phase: closed for transform, authorize, approve and redact; open otherwise. */
  failure?: FailureMode;
  /** Milliseconds before the handler counts as failed. Default per phase; 0 means no limit. */
  timeoutMs?: number;
}

/** Plain JSON-like arguments, deep-frozen while handlers look at them. */
export type Args = Readonly<Record<string, unknown>>;

/** A transform handler replaced the arguments: who, and what they were before and after. */
export interface ArgsChange {
  handler: string;
  before: Args;
  after: Args;
}

export type Effect = 'allow' | 'ask' | 'deny';

/** What an authorize handler returns. Return undefined to abstain. */
export interface VoteInput {
  effect: Effect;
  /** Said to the model (deny) or to the person asked (ask). */
  reason?: string;
  /** The id of the rule that decided, for audit and `policy explain`. */
  rule?: string;
  /**
   * Network hosts this vote judged, such as the hosts a shell command connects to (literal names
   * or IP addresses, no patterns). Once the call is allowed — by the votes, or by a person
   * approving an ask — the OS sandbox lets this call's processes, and only this call's, reach
   * them through its proxy. A host no vote names stays out of reach unless a rule allows it.
   *
   * @example
   * { effect: 'ask', reason: 'curl connects to registry.npmjs.org', hosts: ['registry.npmjs.org'] }
   */
  hosts?: readonly string[];
}

export interface Vote extends VoteInput {
  /** The handler that cast it. */
  handler: string;
}

/** What an approve handler returns for a pending ask. Return undefined to leave it to the next. */
export interface ApprovalInput {
  effect: 'allow' | 'deny';
  reason?: string;
  /** Who decided: "user", "rpc", "rule" … */
  by?: string;
  /** How far the answer reaches: this call, the session, or a saved rule. */
  scope?: 'once' | 'session' | 'persisted';
}

export type DecisionSource =
  | { kind: 'default' }
  | { kind: 'vote'; handler: string; rule?: string }
  | { kind: 'approval'; handler: string; by?: string; scope?: ApprovalInput['scope'] }
  | { kind: 'no-approver' }
  | { kind: 'handler-failure'; handler: string; phase: string }
  | { kind: 'kernel'; reason: Outcome | 'resources' | 'refused' };

/** The final word on whether a call runs. */
export interface Decision {
  effect: 'allow' | 'deny';
  /** Outcome the call gets when denied here (`denied`, `invalid`, `aborted` or `error`). */
  outcome: Outcome;
  reason?: string;
  source: DecisionSource;
  votes: readonly Vote[];
}

/** What every tool_call handler sees. Frozen: change arguments by returning new ones. */
export interface ToolCallEvent {
  readonly toolCallId: string;
  /** The registered name, also when the model used a provider-safe alias (`mcp_fs_read`). */
  readonly toolName: string;
  /** Where the tool came from: builtin, extension or sdk. */
  readonly toolSource: string;
  /**
   * `'unknown'` when the tool says nobody knows what its calls do beyond its name (AgentTool.effects):
   * judge the call as one with unknown effects (path-policy asks unless a rule names the tool).
   */
  readonly toolEffects: 'unknown' | undefined;
  /** The current arguments (after earlier transforms). */
  readonly args: Args;
  /** The arguments as the model sent them, after validation and before any transform. */
  readonly proposedArgs: Args;
  readonly provenance: readonly ArgsChange[];
  /** What the call touches, computed by the kernel after transforms (empty in transform). */
  readonly resources: readonly Resource[];
  /**
   * The shell analysis of a command line of this call (an `exec` resource's `command`), by the
   * tool's own analyzer: computed once per command and call, and the same frozen object for every
   * handler, so a policy never parses shell itself. Never rejects: a failing analyzer gives
   * `ok: false`. Undefined when the tool declares no analyzer (judge its commands as unknown).
   *
   * @example
   * for (const r of event.resources) if (r.kind === 'exec') {
   *   const a = await event.analyzeCommand?.(r.command);
   *   if (a === undefined || !a.ok || a.commands.some((c) => c.name === 'curl')) return { effect: 'deny', reason: 'no curl' };
   * }
   */
  readonly analyzeCommand: ((command: string) => Promise<ShellAnalysis>) | undefined;
  /** Votes cast so far (complete from approve on). */
  readonly votes: readonly Vote[];
  /** The combined vote (approve and observe). */
  readonly effect?: Effect;
  /** The final decision (observe only). */
  readonly decision?: Decision;
  /**
   * Set when the call is judged a second time, just before it runs, because this earlier call of
   * its batch may have changed the filesystem (it wrote, ran a process, or is a tool that does not
   * declare its resources). Votes and approvals then apply to the filesystem as it is now.
   */
  readonly recheck?: { readonly toolCallId: string; readonly toolName: string };
  /** The run's abort signal; undefined when the host gave none (then nothing can abort the call). */
  readonly signal: AbortSignal | undefined;
}

/** A change to a result, returned by redact and transform handlers. Present keys replace. */
export interface ResultPatch<D = unknown> {
  content?: Content[];
  details?: D;
  isError?: boolean;
  terminate?: boolean;
}

/** What every tool_result handler sees. Frozen: change the result by returning a patch. */
export interface ToolResultEvent {
  readonly toolCallId: string;
  readonly toolName: string;
  /** The final arguments the tool ran with (validated, after transforms); undefined when the call ended before validation. */
  readonly args: Args | undefined;
  /**
   * The arguments exactly as the model sent them, whatever became of the call (not found,
   * invalid, denied, run): what tool_execution_start carried. Arguments nested too deep to walk
   * are a preview note instead. Not validated and not frozen by the kernel: read it, never change it.
   */
  readonly rawArgs: unknown;
  readonly outcome: Outcome;
  readonly content: readonly Content[];
  readonly details: unknown;
  readonly usage: Usage | undefined;
  readonly isError: boolean;
  readonly terminate: boolean;
  readonly decision: Decision | undefined;
  readonly provenance: readonly ArgsChange[];
  readonly durationMs: number;
  /** True while redacting a streamed partial result (tool_execution_update), not the final one. */
  readonly partial: boolean;
  readonly signal: AbortSignal | undefined;
}

type MaybePromise<T> = T | Promise<T>;

export interface ToolCallHandlers {
  transform: (event: ToolCallEvent) => MaybePromise<Record<string, unknown> | undefined | void>;
  authorize: (event: ToolCallEvent) => MaybePromise<VoteInput | undefined | void>;
  approve: (event: ToolCallEvent) => MaybePromise<ApprovalInput | undefined | void>;
  observe: (event: ToolCallEvent) => MaybePromise<void>;
}

export interface ToolResultHandlers {
  redact: (event: ToolResultEvent) => MaybePromise<Pick<ResultPatch, 'content' | 'details'> | undefined | void>;
  transform: (event: ToolResultEvent) => MaybePromise<ResultPatch | undefined | void>;
  observe: (event: ToolResultEvent) => MaybePromise<void>;
}

export type HandlerFor<H extends HookName, P extends PhaseOf<H>> = H extends 'tool_call'
  ? P extends keyof ToolCallHandlers
    ? ToolCallHandlers[P]
    : never
  : P extends keyof ToolResultHandlers
    ? ToolResultHandlers[P]
    : never;

/** Registration only: nothing an extension holds can fire the bus. */
export interface HookRegistrar {
  on<H extends HookName, P extends PhaseOf<H>>(
    hook: H,
    handler: HandlerFor<H, P>,
    options: HandlerOptions<P>,
  ): () => void;
}

/** Events for observers: never block, never change anything. */
export type KernelEvent =
  | { type: 'tool_execution_start'; toolCallId: string; toolName: string; args: unknown }
  | { type: 'tool_execution_update'; toolCallId: string; toolName: string; partial: AgentToolResult }
  | { type: 'tool_execution_end'; toolCallId: string; toolName: string; result: import('./outcome.js').ToolResultMessage }
  | {
      type: 'tool_decision';
      toolCallId: string;
      toolName: string;
      decision: Decision;
      provenance: readonly ArgsChange[];
      resources: readonly Resource[];
    }
  | {
      type: 'hook_failure';
      toolCallId: string;
      hook: HookName;
      phase: string;
      handler: string;
      failure: FailureMode;
      error: string;
      timedOut: boolean;
    };

export type EventSink = (event: KernelEvent) => void;
