export { Agent, type AgentOptions } from './agent.js';
export type { AgentEvent, AgentListener } from './events.js';
export { MessageQueue } from './queue.js';
export type { AgentRunResult, RunStatus } from './result.js';
export { DEFAULT_MAX_TURNS, runAgentLoop, type AgentLoopOptions } from './run-loop.js';
export { hostRunner, kernelRunner, runnerOf, type RunnerBatchOptions, type RunnerHost, type ToolRunner } from './runner.js';
export { addUsage, emptyTotals, emptyUsage, type UsageTotals } from './usage.js';
