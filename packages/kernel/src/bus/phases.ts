import type { FailureMode, HookName, ToolCallPhase, ToolResultPhase } from '@airlock/contract';

/**
 * Every phase of both hooks, named `hook:phase` (`tool_call:authorize`). The one key every table
 * about phases uses: a table typed `Record<Phase, …>` does not compile while a phase is missing.
 */
export type Phase = `tool_call:${ToolCallPhase}` | `tool_result:${ToolResultPhase}`;

/** Everything the kernel and the host know about one phase. */
export interface PhaseRow {
  hook: HookName;
  /** The phase's name within its hook, as handlers register it (`{ phase: 'authorize' }`). */
  phase: string;
  /** The stage of a call that runs this phase: 4 (call/4-tool-call-hook.ts) or 7 (call/7-tool-result-hook.ts). */
  stage: 4 | 7;
  /**
   * Run order within the hook (ascending; the gaps leave room for new phases). Stages 4 and 7 run
   * the phases in this order, which test/bus/phase-record.test.ts checks.
   */
  order: number;
  /** What a handler in this phase may do. */
  may: string;
  /** What a handler may return (anything else is a handler failure). */
  returns: string;
  /** The handler receives a frozen view and its return value is a vote, a patch or nothing. */
  readOnly: boolean;
  /** Default failure mode when a handler throws, times out or returns something not allowed. */
  failure: FailureMode;
  /** Said in errors when a handler of this phase fails. */
  onFailure: string;
  /** An abort of the run stops the call in this phase (and ends a pending handler at once). */
  mayAbort: boolean;
  /** Its handlers decide whether a call runs or what anyone sees: a failed extension with one blocks all tools. */
  policy: boolean;
  /** Default time limit in ms; 0 = none (a person may take as long as they need). */
  timeoutMs: number;
}

const HANDLER_TIMEOUT_MS = 10_000;

/**
 * The phase record: one row per phase, in run order within each hook. Every other table about
 * phases derives from it.
 *
 * @example
 * PHASES['tool_call:authorize'].failure; // 'closed'
 */
export const PHASES = {
  'tool_call:transform': {
    hook: 'tool_call',
    phase: 'transform',
    stage: 4,
    order: -3000,
    may: 'return replacement arguments (recorded as provenance)',
    returns: 'the new arguments object, or undefined to keep them',
    readOnly: false,
    failure: 'closed',
    onFailure: 'the call is denied',
    mayAbort: true,
    policy: false,
    timeoutMs: HANDLER_TIMEOUT_MS,
  },
  'tool_call:authorize': {
    hook: 'tool_call',
    phase: 'authorize',
    stage: 4,
    order: -1000,
    may: 'vote deny, ask or allow with a reason',
    returns: '{effect: "allow" | "ask" | "deny", reason?, rule?, hosts?}, or undefined to abstain',
    readOnly: true,
    failure: 'closed',
    onFailure: 'the call is denied',
    mayAbort: true,
    policy: true,
    timeoutMs: HANDLER_TIMEOUT_MS,
  },
  'tool_call:approve': {
    hook: 'tool_call',
    phase: 'approve',
    stage: 4,
    order: 0,
    may: 'resolve a pending ask with allow or deny',
    returns: '{effect: "allow" | "deny", reason?, by?, scope?}, or undefined to pass',
    readOnly: true,
    failure: 'closed',
    onFailure: 'the call is denied',
    mayAbort: true,
    policy: true,
    timeoutMs: 0,
  },
  'tool_call:observe': {
    hook: 'tool_call',
    phase: 'observe',
    stage: 4,
    order: 1000,
    may: 'look at the final decision',
    returns: 'nothing',
    readOnly: true,
    failure: 'open',
    onFailure: 'the failure is reported and the call goes on',
    mayAbort: false,
    policy: false,
    timeoutMs: HANDLER_TIMEOUT_MS,
  },
  'tool_result:redact': {
    hook: 'tool_result',
    phase: 'redact',
    stage: 7,
    order: -2000,
    may: 'replace content and details before anyone else sees them',
    returns: '{content?, details?}, or undefined to keep the result',
    readOnly: false,
    failure: 'closed',
    onFailure: "the result's content is withheld",
    mayAbort: false,
    policy: true,
    timeoutMs: HANDLER_TIMEOUT_MS,
  },
  'tool_result:transform': {
    hook: 'tool_result',
    phase: 'transform',
    stage: 7,
    order: 0,
    may: 'patch content, details, isError or terminate',
    returns: '{content?, details?, isError?, terminate?}, or undefined to keep the result',
    readOnly: false,
    failure: 'open',
    onFailure: 'the failure is reported and the patch skipped',
    mayAbort: false,
    policy: false,
    timeoutMs: HANDLER_TIMEOUT_MS,
  },
  'tool_result:observe': {
    hook: 'tool_result',
    phase: 'observe',
    stage: 7,
    order: 1000,
    may: 'look at the final result',
    returns: 'nothing',
    readOnly: true,
    failure: 'open',
    onFailure: 'the failure is reported',
    mayAbort: false,
    policy: false,
    timeoutMs: HANDLER_TIMEOUT_MS,
  },
} as const satisfies { readonly [K in Phase]: PhaseRow & { hook: K extends `${infer H}:${string}` ? H : never; phase: K extends `${string}:${infer P}` ? P : never } };

/** Every phase key, in run order within each hook. */
export const PHASE_KEYS = Object.freeze(Object.keys(PHASES) as Phase[]);

/** The phases whose handlers decide whether a call runs or what anyone sees (see PhaseRow.policy). */
export const POLICY_PHASES: readonly Phase[] = Object.freeze(PHASE_KEYS.filter((key) => PHASES[key].policy));

function rowsOf<H extends HookName>(hook: H): Readonly<Record<H extends 'tool_call' ? ToolCallPhase : ToolResultPhase, PhaseRow>> {
  const rows = PHASE_KEYS.filter((key) => PHASES[key].hook === hook).map((key) => [PHASES[key].phase, PHASES[key]] as const);
  return Object.freeze(Object.fromEntries(rows)) as never;
}

/** The tool_call rows by phase name, derived from PHASES. */
export const TOOL_CALL_PHASES = rowsOf('tool_call');
/** The tool_result rows by phase name, derived from PHASES. */
export const TOOL_RESULT_PHASES = rowsOf('tool_result');

/** The key of `phase` in `hook`, or undefined when the hook has no such phase. */
export function phaseKey(hook: HookName, phase: string): Phase | undefined {
  const key = `${hook}:${phase}`;
  return Object.hasOwn(PHASES, key) ? (key as Phase) : undefined;
}

/** The phase names of `hook`, in run order (for the error that lists them). */
export function phaseNames(hook: HookName): string[] {
  return PHASE_KEYS.filter((key) => PHASES[key].hook === hook).map((key) => PHASES[key].phase);
}
