import type { HookBus } from '../bus/hooks.js';
import type { CallState } from '../state/call-state.js';

/**
 * Stage 7: the tool_result hook, phase by phase — redact → transform → observe — for every outcome, not only
 * for calls that ran: auditors see not-found, invalid, denied and aborted calls too.
 */
export async function runToolResultHook(state: CallState, bus: HookBus): Promise<void> {
  let pending = bus.runPhase('tool_result:redact', state);
  if (pending !== undefined) await pending;
  pending = bus.runPhase('tool_result:transform', state);
  if (pending !== undefined) await pending;
  pending = bus.runPhase('tool_result:observe', state);
  if (pending !== undefined) await pending;
}
