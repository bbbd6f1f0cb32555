/**
 * The Vercel AI SDK (`ai` 7.x) adapter, on its own entry point (`@airlock/sdk/ai-sdk`) so
 * programs that do not use the AI SDK never load it.
 */
import { jsonSchema, tool, type JSONSchema7, type Tool } from 'ai';
import { providerToolNames, toProviderTools } from '@airlock/toolkit';
import { type ToolResultMessage } from '@airlock/contract';
import type { Airlock } from './create-airlock.js';

/** What the model is sent for a result (the AI SDK's ToolResultOutput, which `ai` does not export by name). */
export type ModelOutput = Awaited<ReturnType<NonNullable<Tool<unknown, ToolResultMessage>['toModelOutput']>>>;

/** What each tool's `execute` resolves to: Airlock's result message, kept whole for your program. */
export type AirlockToolOutput = ToolResultMessage;

export interface AiSdkToolsOptions {
  /** Time limit for each call's execution in ms (outcome `timeout`); default: the settings'. */
  timeoutMs?: number;
}

/**
 * The enabled tools as AI SDK `tool()` objects, keyed by the name the model sees (OpenAI's
 * spelling, which every AI SDK provider accepts: `github:create_issue` → `github_create_issue`).
 * Each `execute` runs the call through the host (policy, approval, redaction, audit) with the AI
 * SDK's tool call id and abort signal, and resolves to the result message.
 *
 * A `denied`, `invalid` or failed call is not thrown: it resolves like any result, and
 * `toModelOutput` sends the model Airlock's text as an error result (`error-text`). The model
 * then reads the reason and the fix ("needs approval; add the rule …", "path: must be string")
 * as it would in Airlock's own loop, and the AI SDK does not treat the refusal as a crash of
 * your program (a throw would reach its error callbacks and lose the outcome).
 *
 * @example
 * import { generateText, stepCountIs } from 'ai';
 * const result = await generateText({ model, tools: toAiSdkTools(airlock), stopWhen: stepCountIs(5), prompt: 'What is in a.txt?' });
 */
export function toAiSdkTools(airlock: Pick<Airlock, 'selection' | 'execute'>, options: AiSdkToolsOptions = {}): Record<string, Tool<unknown, AirlockToolOutput>> {
  const definitions = toProviderTools(airlock.selection, 'openai');
  const names = providerToolNames(airlock.selection, 'openai');
  const tools: Record<string, Tool<unknown, AirlockToolOutput>> = {};
  for (const definition of definitions) {
    const wireName = definition.function.name;
    const name = names.get(wireName) ?? wireName;
    tools[wireName] = tool<unknown, AirlockToolOutput, Record<string, never>>({
      description: definition.function.description ?? '',
      // No validate: the kernel checks the arguments itself and answers `invalid` in its own words.
      inputSchema: jsonSchema<unknown>(definition.function.parameters as JSONSchema7),
      execute: (input, { toolCallId, abortSignal }) =>
        airlock.execute(
          { id: toolCallId, name, arguments: input },
          { ...(abortSignal === undefined ? {} : { signal: abortSignal }), ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) },
        ),
      toModelOutput: ({ output }) => modelOutput(output),
    });
  }
  return tools;
}

/**
 * What the model reads of a result: its content (text, and images as file data), flagged as an
 * error when the outcome is not `ok`. `details` stay with your program, as in Airlock's own loop.
 */
export function modelOutput(result: ToolResultMessage): ModelOutput {
  const text = result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
  const images = result.content.flatMap((c) => (c.type === 'image' ? [c] : []));
  if (result.isError) return { type: 'error-text', value: text === '' ? `The call ended "${result.outcome}" with no text.` : text };
  if (images.length === 0) return { type: 'text', value: text === '' ? '(no output)' : text };
  return {
    type: 'content',
    value: [
      ...(text === '' ? [] : [{ type: 'text' as const, text }]),
      ...images.map((image) => ({ type: 'file-data' as const, data: image.data, mediaType: image.mimeType })),
    ],
  };
}
