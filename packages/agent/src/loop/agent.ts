import { userMessage, type Message, type UserMessage } from '../messages.js';
import type { AgentListener } from './events.js';
import { MessageQueue } from './queue.js';
import type { AgentRunResult } from './result.js';
import { runAgentLoop, type AgentLoopOptions } from './run-loop.js';

export type AgentOptions = Omit<AgentLoopOptions, 'history' | 'signal' | 'onEvent' | 'steering' | 'followUp'> & { history?: readonly Message[] };

/**
 * A conversation that lasts across runs: it keeps the transcript, the steering and follow-up
 * queues, the listeners, and the abort switch of the run in progress.
 *
 * @example
 * const agent = new Agent({ provider, model: 'gpt-5-mini', runner: kernelRunner(kernel) });
 * agent.subscribe((e) => { if (e.type === 'message_update' && e.delta.type === 'text_delta') process.stdout.write(e.delta.delta); });
 * const result = await agent.prompt('Fix the failing test');
 * agent.steer('Only touch files under src/');   // while a run is going: delivered after the current batch
 */
export class Agent {
  readonly steering = new MessageQueue();
  readonly followUps = new MessageQueue();
  readonly #options: AgentOptions;
  readonly #listeners: AgentListener[] = [];
  #messages: Message[];
  #controller: AbortController | undefined;

  constructor(options: AgentOptions) {
    this.#options = options;
    this.#messages = options.history === undefined ? [] : [...options.history];
  }

  /** The transcript so far. */
  get messages(): readonly Message[] {
    return this.#messages;
  }

  get running(): boolean {
    return this.#controller !== undefined;
  }

  /** Listen to every event of every run. Returns the function that removes the listener. */
  subscribe(listener: AgentListener): () => void {
    this.#listeners.push(listener);
    return () => {
      const i = this.#listeners.indexOf(listener);
      if (i >= 0) this.#listeners.splice(i, 1);
    };
  }

  /** Start a run with these messages. One run at a time: use `steer` or `followUp` while one is going. */
  async prompt(input: string | UserMessage | readonly UserMessage[]): Promise<AgentRunResult> {
    if (this.#controller !== undefined) throw new Error('A run is already going: queue the message with steer() or followUp() instead.');
    const prompts = typeof input === 'string' ? [userMessage(input)] : Array.isArray(input) ? [...input] : [input as UserMessage];
    const controller = new AbortController();
    this.#controller = controller;
    try {
      const result = await runAgentLoop(prompts, {
        ...this.#options,
        history: this.#messages,
        signal: controller.signal,
        onEvent: [...this.#listeners],
        steering: this.steering,
        followUp: this.followUps,
      });
      this.#messages = [...this.#messages, ...result.messages];
      return result;
    } finally {
      this.#controller = undefined;
    }
  }

  /** Deliver a message after the current turn's whole batch. */
  steer(message: string | UserMessage): void {
    this.steering.push(message);
  }

  /** Deliver a message when the model would otherwise stop. */
  followUp(message: string | UserMessage): void {
    this.followUps.push(message);
  }

  /** Abort the run in progress: the model stream stops, every pending call gets an `aborted` result. */
  abort(reason?: unknown): void {
    this.#controller?.abort(reason);
  }
}
