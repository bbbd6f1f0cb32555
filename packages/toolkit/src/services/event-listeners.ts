import type { Logger } from '@airlock/contract';

type Listener<E> = (event: E) => void;

/**
 * Persistent listeners of one kind of event (the kernel's `onEvent`, a host's agent-activity
 * listeners). Every run's events reach them, next to the run's own `onEvent` sink.
 * A listener is called synchronously and never awaited; one that throws or rejects is logged and
 * skipped, so a broken observer cannot break the call it watches nor keep the other listeners
 * from hearing of it.
 */
export class EventListeners<E extends { type: string }> {
  readonly #listeners = new Set<Listener<E>>();
  readonly #log: Logger;
  /** How the kernel method that adds them is called, and what a listener is called, for messages. */
  readonly #method: string;
  readonly #what: string;
  /** The listeners as an array, rebuilt on change: no Set iterator per event on the hot path. */
  #snapshot: readonly Listener<E>[] = [];

  constructor(log: Logger, method = 'kernel.onEvent', what = 'event listener') {
    this.#log = log;
    this.#method = method;
    this.#what = what;
  }

  /** Add a listener; returns the function that removes it (calling it twice is harmless). */
  add(listener: Listener<E>): () => void {
    if (typeof listener !== 'function') throw new TypeError(`${this.#method} needs a function, got ${typeof listener}`);
    // The same function added twice is two subscriptions; a wrapper keeps them apart.
    const entry: Listener<E> = (event) => listener(event);
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
  sinkWith(sink: Listener<E> | undefined): Listener<E> | undefined {
    if (this.#listeners.size === 0) return sink;
    return (event) => {
      // Listeners added or removed while this event is delivered take effect from the next one.
      for (const listener of this.#snapshot) this.#deliver(listener, event);
      if (sink !== undefined) sink(event);
    };
  }

  /** Deliver one event to every listener now. */
  emit(event: E): void {
    for (const listener of this.#snapshot) this.#deliver(listener, event);
  }

  #deliver(listener: Listener<E>, event: E): void {
    const report = (error: unknown): void =>
      this.#log.warn(`An ${this.#what} failed on ${event.type}: ${error instanceof Error ? error.message : String(error)}`);
    try {
      const returned = listener(event) as unknown;
      if (returned instanceof Promise) returned.catch(report);
    } catch (error) {
      report(error);
    }
  }
}
