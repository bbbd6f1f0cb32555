/**
 * An OpenAI function-calling loop of your own, with Airlock running the calls: the tools array to
 * send, and a completion's `tool_calls` turned into Airlock calls (one batch) and back into the
 * messages to append. The wire format is the agent package's own (toOpenAIMessages), so ids,
 * names and images are spelled exactly as Airlock's OpenAI provider spells them.
 */
import { parseToolArguments, toOpenAIMessages, wireToolCallId, type AssistantMessage, type AssistantToolCall } from '@airlock/agent';
import { providerToolNames, toProviderTools, type OpenAIFunctionTool } from '@airlock/toolkit';
import { type KernelBatchOptions } from '@airlock/kernel';
import { type ToolResultMessage } from '@airlock/contract';
import type { Airlock } from './create-airlock.js';

/** A tool call as a chat completion returns it (`choices[0].message.tool_calls[n]`). */
export interface OpenAIToolCallLike {
  id: string;
  type?: string;
  function: { name: string; arguments: string };
}

/** The assistant message of a chat completion, as far as this helper reads it. */
export interface OpenAIAssistantLike {
  content?: string | null;
  tool_calls?: readonly OpenAIToolCallLike[] | null;
}

/** A message to append to `messages` for the next request (the `openai` SDK's ChatCompletionMessageParam shape). */
export type OpenAIMessageParam = ReturnType<typeof toOpenAIMessages>[number];

export interface OpenAIToolCallsResult {
  /** Append these after the assistant message: one `role: "tool"` message per call, in call order (plus one `user` message carrying images, when a tool returned any). */
  messages: OpenAIMessageParam[];
  /** Airlock's result for each call, in call order. */
  results: ToolResultMessage[];
  /** Every result asked to end the run. */
  terminate: boolean;
}

/**
 * The enabled tools in OpenAI's `tools` shape (names respelled where OpenAI would refuse them).
 *
 * @example
 * await openai.chat.completions.create({ model, messages, tools: openAITools(airlock) });
 */
export function openAITools(airlock: Pick<Airlock, 'selection'>): OpenAIFunctionTool[] {
  return toProviderTools(airlock.selection, 'openai');
}

/**
 * Run a completion's tool calls through Airlock as one batch (the kernel's order, policy and
 * approval apply across them) and return the messages to append. A name the model made up is a
 * `not_found` result, arguments that are not a JSON object an `invalid` one: each is a `tool`
 * message the model can act on, never a throw.
 *
 * @example
 * const message = completion.choices[0].message;
 * messages.push(message);
 * if (message.tool_calls?.length) messages.push(...(await runOpenAIToolCalls(airlock, message)).messages);
 */
export async function runOpenAIToolCalls(
  airlock: Pick<Airlock, 'selection' | 'batch'>,
  message: OpenAIAssistantLike,
  options: Pick<KernelBatchOptions, 'signal' | 'onEvent' | 'timeoutMs'> = {},
): Promise<OpenAIToolCallsResult> {
  const names = providerToolNames(airlock.selection, 'openai');
  const calls = (message.tool_calls ?? []).map((call): AssistantToolCall => {
    const parsed = parseToolArguments(call.function.arguments ?? '');
    const name = names.get(call.function.name) ?? call.function.name;
    // As Airlock's loop does: text that is not a JSON object goes to the kernel as it is, so its
    // validation answers `invalid` in its own words (and auditors see the call).
    return parsed.arguments === undefined
      ? { type: 'toolCall', id: call.id, name, arguments: call.function.arguments, argumentsText: call.function.arguments, parseError: parsed.parseError! }
      : { type: 'toolCall', id: call.id, name, arguments: parsed.arguments };
  });
  if (calls.length === 0) return { messages: [], results: [], terminate: false };
  const { messages: results, terminate } = await airlock.batch(
    calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
    options,
  );
  const assistant: AssistantMessage = { role: 'assistant', content: calls, stopReason: 'toolUse', provider: 'openai', model: '', timestamp: Date.now() };
  // The assistant message is serialized too (so answers pair with their calls), then left out: the caller appends the completion's own.
  const wire = toOpenAIMessages('', [assistant, ...results]).slice(1);
  // The answers carry the ids exactly as the completion gave them (the serializer respells ids
  // over OpenAI's length limit, but the caller appends the completion's own assistant message).
  const original = new Map(calls.map((c) => [wireToolCallId(c.id, 'openai'), c.id]));
  const messages = wire.map((m) => (m.role === 'tool' ? { ...m, tool_call_id: original.get(m.tool_call_id) ?? m.tool_call_id } : m));
  return { messages, results, terminate };
}
