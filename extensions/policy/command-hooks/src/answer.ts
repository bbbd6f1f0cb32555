import Type, { type Static } from 'typebox';
import Value from 'typebox/value';
import { schemaProblemLines } from '@airlock/toolkit/util';
import type { ToolEvent } from './options.js';
import type { HookRun } from './run-hook.js';

/** Every value a hook's top-level `decision` may hold (HookOutput.decision spells the same list). */
export const TOP_LEVEL_DECISIONS = ['block', 'approve', 'ask', 'allow', 'deny', 'defer'] as const;

/** Claude Code caps what a hook hands the model (additionalContext, reasons) at 10,000 characters. */
export const TEXT_CAP_CHARS = 10_000;

/**
 * The JSON a hook may print on stdout (hooks.md, "JSON output"). Fields Airlock does not act on
 * are allowed, so a script written for a newer Claude Code still loads; a field of the wrong type
 * makes the answer a hook failure.
 */
export const HookOutput = Type.Object({
  continue: Type.Optional(Type.Boolean()),
  stopReason: Type.Optional(Type.String()),
  suppressOutput: Type.Optional(Type.Boolean()),
  systemMessage: Type.Optional(Type.String()),
  /**
   * Claude Code documents `block` (and, deprecated for PreToolUse, `approve`). Public PreToolUse
   * scripts also print `ask`, `allow`, `deny` and `defer` here, meaning what `permissionDecision`
   * means by them: read them that way rather than failing the hook and so denying what its author
   * meant to ask about or allow.
   */
  decision: Type.Optional(Type.Union([Type.Literal('block'), Type.Literal('approve'), Type.Literal('ask'), Type.Literal('allow'), Type.Literal('deny'), Type.Literal('defer')])),
  reason: Type.Optional(Type.String()),
  hookSpecificOutput: Type.Optional(
    Type.Object({
      hookEventName: Type.Optional(Type.String()),
      permissionDecision: Type.Optional(Type.Union([Type.Literal('allow'), Type.Literal('deny'), Type.Literal('ask'), Type.Literal('defer')])),
      permissionDecisionReason: Type.Optional(Type.String()),
      updatedInput: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      additionalContext: Type.Optional(Type.String()),
    }),
  ),
});
export type HookOutput = Static<typeof HookOutput>;

/** What one hook run said, before the event gives it a meaning. */
export type HookAnswer =
  /** Exit 0 (or JSON that decides whatever the code): `output` when stdout held JSON. */
  | { kind: 'answer'; output?: HookOutput; blocking?: undefined }
  /** Exit 2: a blocking error; the reason is the JSON's, else stderr. */
  | { kind: 'answer'; output?: HookOutput; blocking: string }
  /** Crashed, timed out, could not start, exited otherwise, or printed JSON of the wrong shape. */
  | { kind: 'failure'; problem: string };

/** `text` cut to TEXT_CAP_CHARS, saying so. */
export function capText(text: string): string {
  return text.length <= TEXT_CAP_CHARS ? text : `${text.slice(0, TEXT_CAP_CHARS)}… [${text.length - TEXT_CAP_CHARS} more characters cut]`;
}

/**
 * Read a hook's run the way Claude Code does (hooks.md, "Exit code output"):
 * - stdout is JSON only when its first non-blank character is `{`; JSON that does not parse is plain
 *   text (ignored); JSON that parses but has a wrong field is a failure;
 * - exit 2 blocks, with the JSON's reason or else stderr;
 * - exit 0 answers; any other exit is a failure unless stdout held valid JSON, which then decides.
 * Unlike Claude Code, a timeout, a crash or a hook that cannot start is a failure too (Claude Code
 * lets the call go on), so that the handler's failure mode decides.
 */
export function readAnswer(run: HookRun, event: ToolEvent): HookAnswer {
  if (run.problem !== undefined) return { kind: 'failure', problem: withStderr(run.problem, run.stderr) };
  const parsed = parseJson(run.stdout, event);
  if (typeof parsed === 'string') return { kind: 'failure', problem: parsed };
  if (run.exitCode === 2) {
    const reason = jsonReason(parsed) ?? (run.stderr.trim() || 'the hook exited with code 2 and gave no reason on stderr');
    return { kind: 'answer', ...(parsed === undefined ? {} : { output: parsed }), blocking: capText(reason) };
  }
  if (run.exitCode === 0 || parsed !== undefined) return { kind: 'answer', ...(parsed === undefined ? {} : { output: parsed }) };
  return { kind: 'failure', problem: withStderr(`it exited with code ${run.exitCode}`, run.stderr) };
}

/** undefined: no JSON; a string: JSON of the wrong shape (what is wrong). */
function parseJson(stdout: string, event: ToolEvent): HookOutput | undefined | string {
  if (!stdout.trimStart().startsWith('{')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch {
    return undefined;
  }
  if (!Value.Check(HookOutput, value)) {
    const decision = (value as { decision?: unknown } | null)?.decision;
    if (decision !== undefined && !(TOP_LEVEL_DECISIONS as readonly unknown[]).includes(decision)) {
      return `its JSON output has "decision": ${JSON.stringify(decision)?.slice(0, 80)}, which means nothing to Claude Code or Airlock; print one of ${TOP_LEVEL_DECISIONS.map((d) => `"${d}"`).join(', ')}, or hookSpecificOutput.permissionDecision`;
    }
    return `its JSON output does not have Claude Code's shape (${schemaProblemLines(HookOutput, value)[0] ?? 'wrong shape'})`;
  }
  const name = value.hookSpecificOutput?.hookEventName;
  if (name !== undefined && name !== event) return `its JSON output is for ${name}, not ${event}`;
  return value;
}

function jsonReason(output: HookOutput | undefined): string | undefined {
  return output?.hookSpecificOutput?.permissionDecisionReason ?? output?.reason ?? undefined;
}

/** The problem with stderr's last line: where Python's traceback says what went wrong, and a shell its one-line error. */
function withStderr(problem: string, stderr: string): string {
  const last = stderr.trim().split('\n').at(-1)?.trim();
  return last === undefined || last === '' ? problem : `${problem}: ${last.slice(0, 500)}`;
}
