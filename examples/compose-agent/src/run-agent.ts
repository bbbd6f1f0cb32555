import { scriptedProvider, textOf, type Airlock, type AgentRunResult, type ModelProvider } from '@airlock/sdk';

/** A model that reads README.md, counts its words, writes a summary (and tries to overwrite README.md). */
export const summaryScript = (): ModelProvider =>
  scriptedProvider([
    { content: [
      { type: 'toolCall', name: 'read', arguments: { path: 'README.md' } },
      { type: 'toolCall', name: 'word_count', arguments: { path: 'README.md' } },
    ] },
    { content: [
      { type: 'toolCall', name: 'write', arguments: { path: 'notes/summary.md', content: '# Summary\nA short project.\n' } },
      { type: 'toolCall', name: 'write', arguments: { path: 'README.md', content: 'gone' } },
    ] },
    'I wrote notes/summary.md; README.md stays as it is (writes go to notes/ only).',
  ]);

/**
 * Airlock's own loop: `airlock.agent()` is an Agent on the host's tools, with the system prompt
 * built from exactly those tools. Swap the scripted provider for `createOpenAIProvider()` or
 * `createAnthropicProvider()` (or `resolveModel('openai:gpt-5-mini', …)`) to use a real model.
 */
export async function runWithAirlockAgent(airlock: Airlock, provider: ModelProvider = summaryScript(), log: (line: string) => void = () => {}): Promise<{ answer: string; result: AgentRunResult }> {
  const agent = airlock.agent({ provider, model: 'scripted-summary' });
  agent.subscribe((event) => {
    if (event.type === 'tool_execution_end') log(`[agent] ${event.toolName}: ${event.result.outcome}`);
  });
  const result = await agent.prompt('Summarise README.md into notes/summary.md');
  return { answer: result.finalMessage === undefined ? '' : textOf(result.finalMessage), result };
}
