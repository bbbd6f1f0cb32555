import { openAITools, runOpenAIToolCalls, type Airlock, type OpenAIAssistantLike, type OpenAIMessageParam } from '@airlock/sdk';

/** The request an OpenAI chat completion takes, as far as this loop uses it. */
export interface CompletionRequest {
  model: string;
  messages: (OpenAIMessageParam | ({ role: 'assistant' } & OpenAIAssistantLike))[];
  tools: ReturnType<typeof openAITools>;
}
export type Complete = (request: CompletionRequest) => Promise<{ choices: { message: { role: 'assistant' } & OpenAIAssistantLike; finish_reason: string }[] }>;

/**
 * Scripted chat completions, shaped like `openai.chat.completions.create`'s answers: each request
 * gets the next message. With the `openai` package, pass
 * `(request) => client.chat.completions.create(request)` instead.
 */
export function scriptedCompletions(messages: readonly ({ role: 'assistant' } & OpenAIAssistantLike)[]): Complete & { requests: CompletionRequest[] } {
  const requests: CompletionRequest[] = [];
  const complete = async (request: CompletionRequest) => {
    requests.push(structuredClone(request));
    const message = messages[requests.length - 1];
    if (message === undefined) throw new Error(`the script has ${messages.length} answers; request ${requests.length} has none`);
    return { choices: [{ message, finish_reason: message.tool_calls?.length ? 'tool_calls' : 'stop' }] };
  };
  return Object.assign(complete, { requests });
}

export const listAndNote = () =>
  scriptedCompletions([
    { role: 'assistant', content: null, tool_calls: [
      { id: 'call_ls', type: 'function', function: { name: 'ls', arguments: '{}' } },
      { id: 'call_note', type: 'function', function: { name: 'write', arguments: JSON.stringify({ path: 'notes/files.md', content: 'README.md\n' }) } },
    ] },
    { role: 'assistant', content: 'Listed the files into notes/files.md.' },
  ]);

/**
 * A function-calling loop of your own: send the tools, append the assistant message, let Airlock
 * run its tool_calls as one batch and append the `tool` messages it returns, until the model answers.
 */
export async function runOpenAILoop(
  airlock: Airlock,
  complete: Complete = listAndNote(),
  prompt = 'List the files into notes/files.md',
  log: (line: string) => void = () => {},
  maxTurns = 8,
): Promise<string> {
  const messages: CompletionRequest['messages'] = [
    { role: 'system', content: airlock.systemPrompt() },
    { role: 'user', content: prompt },
  ];
  const tools = openAITools(airlock);
  for (let turn = 0; turn < maxTurns; turn++) {
    const message = (await complete({ model: 'scripted', messages, tools })).choices[0]!.message;
    messages.push(message);
    if (!message.tool_calls?.length) return message.content ?? '';
    const { messages: toolMessages, results } = await runOpenAIToolCalls(airlock, message);
    for (const r of results) log(`[openai] ${r.toolName}: ${r.outcome}`);
    messages.push(...toolMessages);
  }
  throw new Error(`no answer after ${maxTurns} turns`);
}
