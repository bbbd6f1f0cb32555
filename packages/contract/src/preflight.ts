import type { Args, ArgsChange, Decision, DecisionSource, Effect, Vote } from './hooks.js';
import type { Outcome } from './outcome.js';
import type { Resource } from './resource.js';

/**
 * What a real call of the same arguments would meet in stages 1–4, without running anything
 * (see Kernel.preflight). Every field is the kernel's own state at the end of the dry run.
 */
export interface PreflightReport {
  readonly toolCallId: string;
  /** The registered name (also when the call used an alias), or the name as called when none matched. */
  readonly toolName: string;
  /**
   * What would happen: `allow` (the tool would run), `ask` (a person or approver would be asked;
   * see `asks`), or `deny` (the call would end with `outcome` before running).
   */
  readonly effect: Effect;
  /** `ok` for allow and ask; otherwise the outcome the call would end with (denied, invalid, not_found…). */
  readonly outcome: Outcome;
  /** Who decided: the deciding vote, the kernel, a failing handler, or `default`. Undefined for an ask. */
  readonly source: DecisionSource | undefined;
  /** The decision's reason: the deny text the model would read, or the allowing vote's reason. */
  readonly reason: string | undefined;
  /** The combined authorize vote (deny > ask > allow), when authorize was reached. */
  readonly combined: Effect | undefined;
  /** Every authorize vote, in the order cast, with its handler, rule, reason and hosts. */
  readonly votes: readonly Vote[];
  /** The votes that asked (an ask goes to the approvers with these). */
  readonly asks: readonly Vote[];
  /** The arguments as validated, before any transform; undefined when they never validated. */
  readonly proposedArgs: Args | undefined;
  /** The arguments the tool would get (after transforms and re-validation). */
  readonly args: Args | undefined;
  /** Which transform handler changed the arguments, from what to what. */
  readonly provenance: readonly ArgsChange[];
  /** What the tool's resources() declared for the final arguments. */
  readonly resources: readonly Resource[];
  /** The kernel's decision as it would be when the call is allowed or denied (undefined for an ask). */
  readonly decision: Decision | undefined;
}

