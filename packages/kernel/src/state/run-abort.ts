import { setMaxListeners } from 'node:events';

/**
 * The abort of one run (a batch or a single call), shared by all its calls.
 *
 * An AbortController costs about 3 µs in Node 20 — more than the rest of a call's overhead — so a
 * run makes one only when it must:
 * - no caller signal: nothing can abort the run, and tools get no signal (the contract's
 *   `signal?` is optional; a shared never-firing signal would leak every `once` listener);
 * - a caller signal and one call: the call uses the caller's signal as it is;
 * - a caller signal and several calls: the calls share one internal signal, linked to the caller's
 *   by a single listener, with Node's listener warning lifted — tools add abort listeners to it,
 *   and a hundred concurrent calls must not trip MaxListenersExceededWarning.
 * The kernel itself never adds a listener per call: it registers callbacks in a set.
 */
export class RunAbort {
  readonly signal: AbortSignal | undefined;
  /** Same as signal.aborted, without a trip through the native accessor on the hot path. */
  aborted = false;
  readonly #controller: AbortController | undefined;
  readonly #watchers = new Set<() => void>();
  readonly #external: AbortSignal | undefined;
  #listening = false;
  readonly #onExternal = (): void => this.abort(this.#external!.reason);

  constructor(external: AbortSignal | undefined, calls: number) {
    this.#external = external;
    if (external === undefined) return;
    if (calls > 1) {
      this.#controller = new AbortController();
      setMaxListeners(0, this.#controller.signal);
    }
    this.signal = this.#controller?.signal ?? external;
    if (external.aborted) this.abort(external.reason);
    else if (this.#controller !== undefined) this.#listen();
  }

  /** Call `fn` once when the run aborts. Returns the function that stops watching. */
  watch(fn: () => void): () => void {
    if (this.#external === undefined) return NOOP;
    // A single call listens only from its first watch: an abort that came before (a handler that
    // aborted and then awaited, say) fires no event any more, so it is taken from the signal here.
    if (!this.aborted && this.#external.aborted) this.abort(this.#external.reason);
    if (this.aborted) return NOOP;
    if (!this.#listening) this.#listen();
    this.#watchers.add(fn);
    return () => this.#watchers.delete(fn);
  }

  /**
   * Whether the run is aborted, up to date. `aborted` alone lags for a single call that nobody has
   * watched yet (its listener is added lazily): a caller that aborted while the call was still
   * being decided would otherwise see its tool run anyway. Reads the caller's signal only then.
   */
  current(): boolean {
    if (!this.aborted && !this.#listening && this.#external?.aborted === true) this.abort(this.#external.reason);
    return this.aborted;
  }

  /** The reason the run was aborted with, if it was. */
  get reason(): unknown {
    return this.signal?.reason;
  }

  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.#controller?.abort(reason);
    const watchers = [...this.#watchers];
    this.#watchers.clear();
    for (const fn of watchers) fn();
  }

  /** The run is over: stop listening to the caller's signal. */
  release(): void {
    if (this.#listening) this.#external!.removeEventListener('abort', this.#onExternal);
    this.#listening = false;
    this.#watchers.clear();
  }

  #listen(): void {
    this.#listening = true;
    this.#external!.addEventListener('abort', this.#onExternal, { once: true });
  }
}

const NOOP = (): void => {};
