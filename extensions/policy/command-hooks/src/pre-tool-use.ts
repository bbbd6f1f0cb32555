import { isDeepStrictEqual } from 'node:util';
import type { Effect, Logger, ToolCallEvent, VoteInput } from '@airlock/contract';
import { readAnswer, type HookOutput } from './answer.js';
import { hookLabel, type CompiledHook, type HookSet } from './hook-set.js';
import { inputFields, shownInput, shownKey, targetFromResources, targetNow, type ShownInput } from './hook-input.js';
import { hookInput, type SessionFacts } from './payload.js';
import { runHook, type HookRunner } from './run-hook.js';
import { mappingFor, type ToolMapping } from './tool-map.js';

type Args = Record<string, unknown>;

/** What the PreToolUse hooks of one call said, kept from the transform phase for the authorize phase. */
export interface PreVerdict {
  /** The combined vote; undefined when no hook decided. */
  vote?: VoteInput;
  /** The arguments a hook's `updatedInput` gave, mapped back to the Airlock tool's names. */
  updatedArgs?: Args;
  /** `additionalContext` of every hook, for the result the model sees. */
  context: string[];
  /** How many argument changes were recorded before the hooks judged (see `changedSince`). */
  judgedAt: number;
  /**
   * What the hooks were last shown (their input, paths resolved), or for a call they rewrote, what
   * the rewritten arguments show: the authorize phase runs the hooks again when the call, as the
   * policy now sees it, shows something else (see `needsRejudging`). PostToolUse hooks are shown it.
   */
  shown: ShownInput;
}

/** Per-call verdicts, keyed by the call id; bounded, since a call whose result never comes would stay. */
export class VerdictStore {
  readonly #map = new Map<string, PreVerdict>();
  constructor(private readonly max = 10_000) {}
  set(id: string, verdict: PreVerdict): void {
    this.#map.delete(id);
    this.#map.set(id, verdict);
    if (this.#map.size > this.max) this.#map.delete(this.#map.keys().next().value!);
  }
  get(id: string): PreVerdict | undefined {
    return this.#map.get(id);
  }
  take(id: string): PreVerdict | undefined {
    const v = this.#map.get(id);
    this.#map.delete(id);
    return v;
  }
}

export interface PreDeps {
  readonly hooks: HookSet;
  readonly runner: HookRunner;
  readonly facts: SessionFacts;
  readonly log: Logger;
}

/** One hook's contribution. */
interface HookVerdict {
  effect?: Effect;
  reason?: string;
  updatedArgs?: Args;
  context?: string;
}

const RANK: Record<Effect, number> = { allow: 0, ask: 1, deny: 2 };

/**
 * Run every PreToolUse hook matching the call (in parallel, as Claude Code does; each sees the
 * same input) and combine what they said: deny > ask > allow, `additionalContext` from all, and
 * the `updatedInput` of the last hook in configuration order that gave one (Claude Code takes the
 * one that finishes last, which is not repeatable).
 */
export async function judgeCall(
  deps: PreDeps,
  event: Pick<ToolCallEvent, 'toolName' | 'toolCallId' | 'args' | 'signal'>,
  hooks: readonly CompiledHook[],
  allowRewrite: boolean,
  shown: ShownInput = shownInput(mappingFor(event.toolName), event.args, targetNow(deps.facts.cwd)),
): Promise<Omit<PreVerdict, 'judgedAt'>> {
  const mapping = mappingFor(event.toolName);
  const toolInput = shown.toolInput;
  const input = hookInput(deps.facts, 'PreToolUse', { tool_name: mapping.ccName, ...inputFields(shown), tool_use_id: event.toolCallId });
  const verdicts = await Promise.all(hooks.map((hook) => judgeOne(deps, hook, mapping, toolInput, input, event.signal, allowRewrite)));
  const context = verdicts.flatMap((v) => (v.context === undefined ? [] : [v.context]));
  const voting = verdicts.filter((v) => v.effect !== undefined);
  let updatedArgs: Args | undefined;
  for (const v of verdicts) if (v.updatedArgs !== undefined && v.effect !== 'deny') updatedArgs = v.updatedArgs;
  if (updatedArgs !== undefined && isDeepStrictEqual(updatedArgs, { ...event.args })) updatedArgs = undefined;
  // A rewrite is what runs: the authorize phase compares the call with what the rewritten arguments show.
  if (updatedArgs !== undefined) shown = shownInput(mapping, updatedArgs, targetNow(deps.facts.cwd));
  if (voting.length === 0) return { context, shown, ...(updatedArgs === undefined ? {} : { updatedArgs }) };
  const effect = voting.reduce<Effect>((top, v) => (RANK[v.effect!] > RANK[top] ? v.effect! : top), 'allow');
  const reasons = voting.filter((v) => v.effect === effect && v.reason !== undefined && v.reason !== '').map((v) => v.reason!);
  const rules = hooks.filter((_, i) => verdicts[i]!.effect === effect).map((h) => `PreToolUse hook: ${hookLabel(h)}`);
  const vote: VoteInput = { effect, ...(reasons.length > 0 ? { reason: reasons.join('; ') } : {}), rule: rules.join(', ') };
  return { vote, context, shown, ...(updatedArgs === undefined ? {} : { updatedArgs }) };
}

async function judgeOne(deps: PreDeps, hook: CompiledHook, mapping: ToolMapping, toolInput: Args, input: string, signal: AbortSignal | undefined, allowRewrite: boolean): Promise<HookVerdict> {
  const run = await runHook(deps.runner, hook.command, input, hook.timeoutMs, signal);
  const answer = readAnswer(run, 'PreToolUse');
  if (answer.kind === 'failure') return failed(deps, hook, answer.problem);
  const out = answer.output;
  if (out?.systemMessage !== undefined) deps.log.warn(`PreToolUse hook "${hookLabel(hook)}": ${out.systemMessage}`);
  const context = out?.hookSpecificOutput?.additionalContext;
  const base: HookVerdict = context === undefined || context === '' ? {} : { context };
  if (answer.blocking !== undefined) return { ...base, effect: 'deny', reason: answer.blocking };
  // `continue: false` stops Claude Code's whole turn; here it stops this call.
  if (out?.continue === false) return { ...base, effect: 'deny', reason: out.stopReason ?? out.reason ?? 'a PreToolUse hook said not to continue' };
  const decided = decisionOf(out);
  let updatedArgs: Args | undefined;
  const updated = out?.hookSpecificOutput?.updatedInput;
  // Scripts often hand back the input they got (file_path made absolute): that is no rewrite.
  if (updated !== undefined && decided.effect !== 'deny' && !isDeepStrictEqual(updated, toolInput)) {
    if (!allowRewrite) {
      // The arguments changed after the hooks first saw them; a second rewrite would skip re-validation.
      return failed(deps, hook, 'it gave updatedInput when judging arguments another handler had changed; it may rewrite only in the transform phase');
    }
    try {
      updatedArgs = mapping.fromCC(updated);
    } catch (error) {
      return failed(deps, hook, (error as Error).message);
    }
  }
  return { ...base, ...decided, ...(updatedArgs === undefined ? {} : { updatedArgs }) };
}

/**
 * `permissionDecision`, else the top-level `decision`: Claude Code's deprecated `approve` / `block`,
 * and the `ask` / `allow` / `deny` public scripts print there, each meaning what the same word
 * means as a permissionDecision. `defer` is no decision (Claude Code defers to its next step; here
 * the policy decides). `hookSpecificOutput` wins when both are given, as in Claude Code.
 */
function decisionOf(out: HookOutput | undefined): Pick<HookVerdict, 'effect' | 'reason'> {
  const specific = out?.hookSpecificOutput;
  const reason = specific?.permissionDecisionReason ?? out?.reason;
  const r = reason === undefined ? {} : { reason };
  const word = specific?.permissionDecision ?? out?.decision;
  switch (word) {
    case 'deny':
    case 'block':
      return { effect: 'deny', ...r };
    case 'ask':
      return { effect: 'ask', ...r };
    case 'allow':
    case 'approve':
      return { effect: 'allow', ...r };
    case 'defer':
    case undefined:
      return {};
  }
}

function failed(deps: PreDeps, hook: CompiledHook, problem: string): HookVerdict {
  const label = hookLabel(hook);
  if (hook.failure === 'open') {
    deps.log.warn(`PreToolUse hook "${label}" failed (${problem}); its failure mode is "open", so the call goes on without its judgement.`);
    return {};
  }
  return {
    effect: 'deny',
    reason: `PreToolUse hook "${label}" failed: ${problem}. Calls it matches are denied until it is fixed (a person can set its "failure" to "open" in settings).`,
  };
}

/** Whether a transform other than ours changed the arguments after the hooks judged them. */
export function changedSince(event: Pick<ToolCallEvent, 'provenance'>, verdict: PreVerdict): boolean {
  return event.provenance.length - verdict.judgedAt - (verdict.updatedArgs === undefined ? 0 : 1) > 0;
}

/**
 * What the call shows the hooks in the authorize phase: its final arguments, each path the file
 * its declared resources say the tool opens, so the hooks judge the target path-policy judges.
 */
export function shownAtAuthorize(event: Pick<ToolCallEvent, 'toolName' | 'args' | 'resources'>, cwd: string): ShownInput {
  return shownInput(mappingFor(event.toolName), event.args, targetFromResources(event.resources, cwd), event.resources, cwd);
}

/**
 * Must the hooks judge the call again before it runs? Yes when another transform changed its
 * arguments after they judged, and when the call now shows them something else than they judged:
 * a path that leads elsewhere than it did when they ran (a link made meanwhile, or by an earlier
 * call of the same batch, which the kernel re-checks the call for).
 */
export function needsRejudging(event: Pick<ToolCallEvent, 'provenance'>, verdict: PreVerdict, now: ShownInput): boolean {
  return changedSince(event, verdict) || shownKey(now) !== shownKey(verdict.shown);
}
