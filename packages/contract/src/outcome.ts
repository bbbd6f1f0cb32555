import type { Content, Usage } from './content.js';

/**
 * How a call ended. Every call ends in exactly one of these, and every one of them passes through
 * the tool_result hook and becomes a ToolResultMessage: nothing ends a batch by crashing.
 *
 * - `ok`        execute resolved
 * - `error`     execute threw (or returned a malformed result, or resources() threw)
 * - `not_found` no enabled tool has that name
 * - `invalid`   prepareArguments threw, or the arguments failed the schema (before or after transforms)
 * - `denied`    policy said no: a vote, an approver, an unresolved ask, or a failing closed handler
 * - `aborted`   the batch's signal fired before or while the call ran
 * - `timeout`   the call ran longer than its time limit and was aborted
 */
export type Outcome = 'ok' | 'error' | 'not_found' | 'invalid' | 'denied' | 'aborted' | 'timeout';

export const OUTCOMES: readonly Outcome[] = ['ok', 'error', 'not_found', 'invalid', 'denied', 'aborted', 'timeout'];

/** The message the model gets back for one tool call. */
export interface ToolResultMessage<D = unknown> {
  role: 'toolResult';
  toolCallId: string;
  toolName: string;
  content: Content[];
  details?: D;
  usage?: Usage;
  isError: boolean;
  outcome: Outcome;
  /** The result asked the run to stop after this batch (see executeBatch). */
  terminate?: boolean;
  /** Milliseconds since the epoch when the result was finalised. */
  timestamp: number;
}

/** What the model emitted: the intent, not yet trusted in any way. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: unknown;
}
