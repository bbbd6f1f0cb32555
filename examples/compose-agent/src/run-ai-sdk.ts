import { generateText, stepCountIs, type LanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import type { Airlock } from '@airlock/sdk';
import { toAiSdkTools } from '@airlock/sdk/ai-sdk';

const usage = { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } };

/**
 * A scripted model for the AI SDK (its own test model: no network, no key): first it asks for the
 * secrets in .env and for README.md's word count, then it answers.
 */
export function scriptedAiSdkModel(): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: [
      {
        content: [
          { type: 'tool-call', toolCallId: 'ai-1', toolName: 'read', input: JSON.stringify({ path: '.env' }) },
          { type: 'tool-call', toolCallId: 'ai-2', toolName: 'word_count', input: JSON.stringify({ path: 'README.md' }) },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      },
      { content: [{ type: 'text', text: 'README.md has a few words; .env is off limits.' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] },
    ],
  });
}

/**
 * The Vercel AI SDK's loop: `toAiSdkTools(airlock)` are ordinary `tool()`s whose execute runs
 * through Airlock. Use any AI SDK model instead of the scripted one (`openai('gpt-5-mini')` …).
 */
export async function runWithAiSdk(airlock: Airlock, model: LanguageModel = scriptedAiSdkModel(), log: (line: string) => void = () => {}) {
  const result = await generateText({ model, tools: toAiSdkTools(airlock), stopWhen: stepCountIs(4), prompt: 'How long is README.md? And what is in .env?' });
  for (const step of result.steps) for (const r of step.toolResults) log(`[ai-sdk] ${r.toolName}: ${(r.output as { outcome: string }).outcome}`);
  return result;
}
