import { userMessage, type UserMessage } from '../messages.js';

/**
 * Messages waiting for the loop. The steering queue is read after each turn's whole batch (so a
 * message never skips or cancels a call that was asked for); the follow-up queue is read only
 * when the model would otherwise stop.
 *
 * @example
 * const steering = new MessageQueue();
 * steering.push('Use the tests folder, not src.');   // delivered before the next model request
 */
export class MessageQueue {
  #items: UserMessage[] = [];

  /** Queue a message (text becomes a user message stamped now). */
  push(message: string | UserMessage): void {
    this.#items.push(typeof message === 'string' ? userMessage(message) : message);
  }

  get size(): number {
    return this.#items.length;
  }

  /** Take every queued message, oldest first. */
  drain(): UserMessage[] {
    if (this.#items.length === 0) return [];
    const items = this.#items;
    this.#items = [];
    return items;
  }
}
