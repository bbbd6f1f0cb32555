/** The compose-agent example's pieces, for its test and for copying into your own program. */
export { composeAirlock } from './compose.js';
export { notesOnly, notesOnlyModule } from './notes-only.js';
export { wordCount, wordCountModule } from './word-count.js';
export { runWithAirlockAgent, summaryScript } from './run-agent.js';
export { runWithAiSdk, scriptedAiSdkModel } from './run-ai-sdk.js';
export { listAndNote, runOpenAILoop, scriptedCompletions, type Complete, type CompletionRequest } from './run-openai-loop.js';
