import type { EventSink, KernelEvent } from './contract/hooks.js';
import type { Logger } from './contract/context.js';

/**
 * The kernel's persistent event listeners (`kernel.onEvent`). Every run's events reach them, next
 * to the run's own `onEvent` sink. A listener is called synchronously and never awaited; one that
 * throws or rejects is logged and skipped, so a broken observer cannot break the call it watches
 * nor keep the other listeners from hearing of it.
 */
export class EventListeners {
  readonly #listeners = new Set<EventSink>();
  readonly #log: Logger;
  /** The listeners as an array, rebuilt on change: no Set iterator per event on the hot path. */
  #snapshot: readonly EventSink[] = [];

  constructor(log: Logger) {
    this.#log = log;
  }

  /** Add a listener; returns the function that removes it (calling it twice is harmless). */
  add(listener: EventSink): () => void {
    if (typeof listener !== 'function') throw new TypeError(`kernel.onEvent needs a function, got ${typeof listener}`);
    // The same function added twice is two subscriptions; a wrapper keeps them apart.
    const entry: EventSink = (event) => listener(event);
    this.#listeners.add(entry);
    this.#snapshot = [...this.#listeners];
    return () => {
      if (this.#listeners.delete(entry)) this.#snapshot = [...this.#listeners];
    };
  }

  /**
   * The sink a run emits to: its own `sink` and every listener. Without listeners it is `sink`
   * itself, so a kernel nobody listens to pays nothing per event.
   */
  sinkWith(sink: EventSink | undefined): EventSink | undefined {
    if (this.#listeners.size === 0) return sink;
    return (event) => {
      // Listeners added or removed while this event is delivered take effect from the next one.
      for (const listener of this.#snapshot) this.#deliver(listener, event);
      if (sink !== undefined) sink(event);
    };
  }

  #deliver(listener: EventSink, event: KernelEvent): void {
    const report = (error: unknown): void =>
      this.#log.warn(`An event listener failed on ${event.type}: ${error instanceof Error ? error.message : String(error)}`);
    try {
      const returned = listener(event) as unknown;
      if (returned instanceof Promise) returned.catch(report);
    } catch (error) {
      report(error);
    }
  }
}
