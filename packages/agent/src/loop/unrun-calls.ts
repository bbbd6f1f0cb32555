import type { CallRefusal } from '@airlock/kernel';
import type { Outcome, ToolCall, ToolResultMessage } from '@airlock/contract';
import type { AssistantMessage, AssistantToolCall } from '../messages.js';

/**
 * Tool calls that must not run: the calls of a message the model did not finish (cut at the
 * output limit, a provider error, an abort while it was streaming), whose arguments may be
 * half-written, and a malformed call the kernel cannot be shown as such. The loop hands them to
 * the kernel's refuseBatch through the runner (only stages 7–8 run, so the audit log sees them),
 * or answers them itself for a runner that cannot. Every one gets a result: the transcript has
 * no holes.
 */

/** Why none of this message's calls may run, or undefined when they may. */
export function unfinishedReason(message: AssistantMessage): CallRefusal | undefined {
  switch (message.stopReason) {
    case 'length':
      return {
        outcome: 'error',
        text: "Not run: the model's output was cut off at its length limit, so this call may be incomplete. Retry with a shorter call (smaller arguments, or split the work into several calls).",
      };
    case 'aborted':
      return { outcome: 'aborted', text: 'Not run: the run was aborted while the model was still writing this call.' };
    case 'error':
      return {
        outcome: 'error',
        text: `Not run: the model's response failed before it was complete${message.errorMessage ? ` (${message.errorMessage})` : ''}.`,
      };
    default:
      return undefined;
  }
}

/**
 * The call as the kernel should see it. A call whose JSON did not parse goes with its raw text
 * as the arguments, so the kernel's own preparation stage answers it (`invalid`, in the kernel's
 * words, through the tool_result hook, so auditors see it). When that text would parse after
 * all (or there is none) the kernel cannot be shown the fault, and the loop answers: undefined.
 */
export function kernelCall(call: AssistantToolCall): ToolCall | undefined {
  if (call.parseError === undefined) return { id: call.id, name: call.name, arguments: call.arguments };
  const text = call.argumentsText;
  if (typeof text !== 'string' || text.trim() === '' || parses(text)) return undefined;
  return { id: call.id, name: call.name, arguments: text };
}

/** A call that will not run, as the kernel records it: its arguments as far as they were read, else their raw text. */
export function asCall(call: AssistantToolCall): ToolCall {
  return { id: call.id, name: call.name, arguments: call.parseError === undefined ? call.arguments : (call.argumentsText ?? call.arguments) };
}

export function malformedText(call: AssistantToolCall): string {
  return `Invalid arguments for tool "${call.name}": the model's JSON could not be read (${call.parseError ?? 'unknown error'}).\n\nSend the arguments as a JSON object and call the tool again.`;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** A result message for a call that never ran. */
export function unrunResult(call: AssistantToolCall, outcome: Outcome, text: string): ToolResultMessage {
  return {
    role: 'toolResult',
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: 'text', text }],
    isError: true,
    outcome,
    timestamp: Date.now(),
  };
}
