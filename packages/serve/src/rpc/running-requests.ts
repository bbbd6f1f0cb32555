/**
 * The requests a server is answering, by id: each can be aborted, and the ones that run tools take
 * one of a fixed number of slots; the rest wait in line, in arrival order.
 */
import type { RpcId } from './protocol.js';

/** A request's key: 1 and "1" are different ids in JSON-RPC. */
const keyOf = (id: RpcId): string => `${typeof id}:${String(id)}`;

export class RunningRequests {
  readonly #controllers = new Map<string, AbortController>();
  readonly #waiting: (() => void)[] = [];
  #slotsInUse = 0;

  /**
   * @param maxRunning slot requests running at once
   * @param maxWaiting past this many waiting, `waitingFull` is true (the server stops reading)
   * @param changed called whenever a request finishes or the line grows
   *
   * @example
   * const requests = new RunningRequests(64, 1024, () => flow());
   * requests.start(7, true, (signal) => host.execute(call, { signal }).then(reply));
   */
  constructor(
    readonly maxRunning: number,
    readonly maxWaiting: number,
    private readonly changed: () => void,
  ) {}

  get size(): number {
    return this.#controllers.size;
  }

  get waitingFull(): boolean {
    return this.#waiting.length >= this.maxWaiting;
  }

  has(id: RpcId): boolean {
    return this.#controllers.has(keyOf(id));
  }

  /**
   * Register the request and run it now, or (a `slot` request with every slot taken) when a slot
   * frees. It is registered at once either way, so `abort` finds a waiting one too: it still runs
   * when its turn comes, with its signal already aborted, and answers straight away.
   */
  start(id: RpcId, slot: boolean, run: (signal: AbortSignal) => Promise<void>): void {
    const key = keyOf(id);
    const controller = new AbortController();
    this.#controllers.set(key, controller);
    const go = (): void => {
      if (slot) this.#slotsInUse++;
      void run(controller.signal).finally(() => {
        this.#controllers.delete(key);
        if (slot) {
          this.#slotsInUse--;
          this.#waiting.shift()?.();
        }
        this.changed();
      });
    };
    if (!slot || this.#slotsInUse < this.maxRunning) return go();
    this.#waiting.push(go);
    this.changed();
  }

  /** Abort one request; false when none by that id is running (or it was aborted already). */
  abort(id: RpcId, reason: Error): boolean {
    const controller = this.#controllers.get(keyOf(id));
    if (controller === undefined || controller.signal.aborted) return false;
    controller.abort(reason);
    return true;
  }

  /** Abort every request but `except` (the abort request itself); how many were told to stop. */
  abortAll(reason: Error, except?: RpcId): number {
    const own = except === undefined ? undefined : keyOf(except);
    let count = 0;
    for (const [key, controller] of this.#controllers) {
      if (key === own || controller.signal.aborted) continue;
      controller.abort(reason);
      count++;
    }
    return count;
  }
}
