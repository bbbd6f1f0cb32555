import type { Usage } from './content.js';

/**
 * What an agent loop driving this kernel tells extensions, next to the kernel's own call events:
 * runs, turns and model requests, with ids, models, stop reasons and token usage, and never the
 * content of a message (an observer that ships data off the machine cannot leak what it is not
 * given). `@airlock/agent` reports it through its tool runner; a loop of your own may report it
 * with `host.services.activity.emit`.
 *
 * ```
 * agent_start
 *   turn_start
 *     model_request_start / model_request_end   one per turn; the end lists the tool calls asked for
 *     … the kernel's events for those calls (tool_execution_start …, same toolCallId)
 *   turn_end
 * agent_end
 * ```
 */
export type AgentActivity =
  | { type: 'agent_start'; runId: string; provider: string; model: string }
  | {
      type: 'agent_end';
      runId: string;
      /** How the run ended: `done`, `terminated`, `aborted`, `failed`, `turn_limit`. */
      status: string;
      turns: number;
      /** Model requests made. */
      requests: number;
      /** Summed over the run's model requests (not the usage tools reported). */
      usage: Required<Usage>;
    }
  | { type: 'turn_start'; runId: string; turnId: string; turn: number }
  | { type: 'turn_end'; runId: string; turnId: string; turn: number; toolCalls: number }
  | { type: 'model_request_start'; runId: string; turnId: string; provider: string; model: string }
  | {
      type: 'model_request_end';
      runId: string;
      turnId: string;
      provider: string;
      /** The model that answered (a provider may name a more exact one than was asked for). */
      model: string;
      /** `stop`, `toolUse`, `length`, `error` or `aborted`. */
      stopReason: string;
      /**
       * As the provider reported it; `input` excludes cached prompt tokens, which are `cacheRead`
       * and `cacheWrite`.
       */
      usage?: Usage;
      /** The ids of the tool calls the answer asked for, in order: the kernel's events carry the same ids. */
      toolCallIds: readonly string[];
    };

/** A listener for agent activity: called synchronously, never awaited (see `ExtensionAPI.onAgentActivity`). */
export type AgentActivityListener = (activity: AgentActivity) => void;
