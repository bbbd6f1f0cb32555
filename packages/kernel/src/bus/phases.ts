import type { FailureMode, HookName } from '../contract/hooks.js';

/**
 * Every phase of both hooks in one table. A phase is a tapable stage: handlers of one phase share
 * its stage and run in registration order, phases run in stage order, and the kernel's own steps
 * sit between them at stages of their own. The gaps leave room for phases added later.
 */
export interface PhaseRow {
  hook: HookName;
  stage: number;
  /** What a handler in this phase may do. */
  may: string;
  /** The handler receives a frozen view and its return value is a vote, a patch or nothing. */
  readOnly: boolean;
  failure: FailureMode;
  /** Default time limit in ms; 0 = none (a person may take as long as they need). */
  timeoutMs: number;
  /** Said in errors when a handler of this phase fails. */
  onFailure: string;
}

const HANDLER_TIMEOUT_MS = 10_000;

export const TOOL_CALL_PHASES = {
  transform: {
    hook: 'tool_call',
    stage: -3000,
    may: 'return replacement arguments (recorded as provenance)',
    readOnly: false,
    failure: 'closed',
    timeoutMs: HANDLER_TIMEOUT_MS,
    onFailure: 'the call is denied',
  },
  authorize: {
    hook: 'tool_call',
    stage: -1000,
    may: 'vote deny, ask or allow with a reason',
    readOnly: true,
    failure: 'closed',
    timeoutMs: HANDLER_TIMEOUT_MS,
    onFailure: 'the call is denied',
  },
  approve: {
    hook: 'tool_call',
    stage: 0,
    may: 'resolve a pending ask with allow or deny',
    readOnly: true,
    failure: 'closed',
    timeoutMs: 0,
    onFailure: 'the call is denied',
  },
  observe: {
    hook: 'tool_call',
    stage: 1000,
    may: 'look at the final decision',
    readOnly: true,
    failure: 'open',
    timeoutMs: HANDLER_TIMEOUT_MS,
    onFailure: 'the failure is reported and the call goes on',
  },
} as const satisfies Record<string, PhaseRow>;

export const TOOL_RESULT_PHASES = {
  redact: {
    hook: 'tool_result',
    stage: -2000,
    may: 'replace content and details before anyone else sees them',
    readOnly: false,
    failure: 'closed',
    timeoutMs: HANDLER_TIMEOUT_MS,
    onFailure: "the result's content is withheld",
  },
  transform: {
    hook: 'tool_result',
    stage: 0,
    may: 'patch content, details, isError or terminate',
    readOnly: false,
    failure: 'open',
    timeoutMs: HANDLER_TIMEOUT_MS,
    onFailure: 'the failure is reported and the patch skipped',
  },
  observe: {
    hook: 'tool_result',
    stage: 1000,
    may: 'look at the final result',
    readOnly: true,
    failure: 'open',
    timeoutMs: HANDLER_TIMEOUT_MS,
    onFailure: 'the failure is reported',
  },
} as const satisfies Record<string, PhaseRow>;

/** The kernel's own steps inside the tool_call waterfall, between the handler phases. */
export const KERNEL_STAGES = {
  /** After every transform: re-validate changed arguments, compute resources(). */
  revalidate: -2000,
  /** After every authorize vote: combine deny > ask > allow. */
  combineVotes: -500,
  /** After approvers: settle the decision (an unresolved ask is a deny). */
  settle: 500,
} as const;

export type ToolCallPhaseName = keyof typeof TOOL_CALL_PHASES;
export type ToolResultPhaseName = keyof typeof TOOL_RESULT_PHASES;

export function phaseRow(hook: HookName, phase: string): PhaseRow | undefined {
  const table: Record<string, PhaseRow> = hook === 'tool_call' ? TOOL_CALL_PHASES : TOOL_RESULT_PHASES;
  return Object.hasOwn(table, phase) ? table[phase] : undefined;
}

export function phaseNames(hook: HookName): string[] {
  return Object.keys(hook === 'tool_call' ? TOOL_CALL_PHASES : TOOL_RESULT_PHASES);
}
