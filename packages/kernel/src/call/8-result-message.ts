import type { ToolResultMessage } from '@airlock/contract';
import type { CallState } from '../state/call-state.js';

/**
 * Stage 8: the message the model gets. It names the tool as the model did (a provider pairs the
 * result with the call by that name), even when the call reached its tool through a provider-safe
 * alias; hooks and events use the tool's registered name. Only `ok` and `error` may have their isError flag changed
 * by a handler; a call that did not run is always an error to the model, whatever a patch said.
 */
export function toResultMessage(state: CallState): ToolResultMessage {
  const result = state.result!;
  const message: ToolResultMessage = {
    role: 'toolResult',
    toolCallId: state.call.id,
    toolName: state.call.name,
    content: result.content,
    isError: result.outcome === 'ok' || result.outcome === 'error' ? result.isError : true,
    outcome: result.outcome,
    timestamp: Date.now(),
  };
  if (result.details !== undefined) message.details = result.details;
  if (result.usage !== undefined) message.usage = result.usage;
  if (result.terminate) message.terminate = true;
  return message;
}
