import type { HookBus } from '../bus/hooks.js';
import type { CallState } from './state.js';

/**
 * Stage 7: the tool_result waterfall — redact → transform → observe — for every outcome, not only
 * for calls that ran: auditors see not-found, invalid, denied and aborted calls too.
 */
export async function runToolResultHook(state: CallState, bus: HookBus): Promise<void> {
  const pending = bus.fireToolResult(state);
  if (pending !== undefined) await pending;
}
