import type { AssistantMessage, Message } from '../messages.js';
import type { UsageTotals } from './usage.js';

/**
 * How a run ended.
 * - `done`        the model answered without asking for more tools
 * - `terminated`  every result of the last batch asked to stop (`terminate`), nothing was queued
 * - `turn_limit`  the turn limit was reached while the model still had work to do
 * - `aborted`     the run's signal fired; every call asked for got a result
 * - `failed`      the provider failed, or the model's final answer was cut off (`length`)
 */
export type RunStatus = 'done' | 'terminated' | 'turn_limit' | 'aborted' | 'failed';

export interface AgentRunResult {
  runId: string;
  status: RunStatus;
  /** Why the run ended, in words for a person, when it did not end with the model's answer. */
  reason?: string;
  /** The messages this run added, in transcript order (prompts, assistant messages, results). */
  messages: Message[];
  /** The last assistant message, if the model answered at all. */
  finalMessage: AssistantMessage | undefined;
  /** Model requests made. */
  turns: number;
  usage: UsageTotals;
}
