import { setMaxListeners } from 'node:events';

/**
 * The abort of one run (a batch), shared by all its calls.
 *
 * Calls and hooks get the run's own signal. It is an internal one, linked to the caller's signal
 * by a single listener, with Node's listener warning lifted: tools add abort listeners to it, and
 * a hundred concurrent calls must not trip MaxListenersExceededWarning. The kernel itself never
 * adds a listener per call; it registers callbacks in a set, which costs nothing on the hot path
 * (creating an AbortController and adding a listener per call took a third of the kernel's time).
 */
export class RunAbort {
  readonly signal: AbortSignal;
  /** Same as signal.aborted, without a trip through the native accessor on the hot path. */
  aborted = false;
  readonly #controller = new AbortController();
  readonly #watchers = new Set<() => void>();
  readonly #external: AbortSignal | undefined;
  readonly #onExternal = (): void => this.abort(this.#external!.reason);

  constructor(external?: AbortSignal) {
    this.signal = this.#controller.signal;
    setMaxListeners(0, this.signal);
    this.#external = external;
    if (external?.aborted) this.abort(external.reason);
    else external?.addEventListener('abort', this.#onExternal, { once: true });
  }

  /** Call `fn` once when the run aborts. Returns the function that stops watching. */
  watch(fn: () => void): () => void {
    this.#watchers.add(fn);
    return () => this.#watchers.delete(fn);
  }

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.#controller.abort(reason);
    const watchers = [...this.#watchers];
    this.#watchers.clear();
    for (const fn of watchers) fn();
  }

  /** The run is over: stop listening to the caller's signal. */
  release(): void {
    this.#external?.removeEventListener('abort', this.#onExternal);
    this.#watchers.clear();
  }
}
