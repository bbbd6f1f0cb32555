import { defineTool, type AnyAgentTool } from '@airlock/contract';
import Type from 'typebox';
import type { AssistantMessage } from '../../src/messages.js';
import type { ModelProvider, ModelRequest, ModelStreamEvent } from '../../src/provider.js';

/** Every event of one provider stream and the final message (the `done`/`error` event's). */
export async function runProvider(
  provider: ModelProvider,
  request: Partial<ModelRequest> = {},
  options: { signal?: AbortSignal; onEvent?: (event: ModelStreamEvent) => void } = {},
): Promise<{ events: ModelStreamEvent[]; final: AssistantMessage; last: ModelStreamEvent }> {
  const events: ModelStreamEvent[] = [];
  for await (const event of provider.stream({ model: 'test-model', systemPrompt: 'You are a test.', messages: [], tools: [], ...request }, options.signal)) {
    events.push(event);
    options.onEvent?.(event);
  }
  const last = events.at(-1);
  if (last === undefined || (last.type !== 'done' && last.type !== 'error')) throw new Error(`the stream did not end with done/error: ${JSON.stringify(events.map((e) => e.type))}`);
  return { events, final: last.message, last };
}

/** Two small tools; `github:create_issue` has a name providers must respell. */
export const testTools: AnyAgentTool[] = [
  defineTool({
    name: 'read',
    label: 'Read',
    description: 'Read a file.',
    parameters: Type.Object({ path: Type.String() }),
    async execute() {
      return { content: [] };
    },
  }),
  defineTool({
    name: 'github:create_issue',
    label: 'Create issue',
    description: 'Open an issue.',
    parameters: Type.Object({ title: Type.String() }),
    async execute() {
      return { content: [] };
    },
  }),
];

/** A 1×1 PNG, base64. */
export const PNG_1x1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
