/**
 * `events/subscribe`: the kernel's events of every call, sent to the client as `events/event`
 * notifications, once per subscription whose types match. Listening on the kernel only while at
 * least one subscription exists.
 */
import type { Kernel } from '@airlock/kernel';
import type { KernelEvent } from '@airlock/contract';
import { RPC_ERRORS, RpcError } from './protocol.js';

/** Subscriptions one client may hold at once: every event goes out once per subscription. */
export const MAX_SUBSCRIPTIONS = 16;

export class EventSubscriptions {
  readonly #subscriptions = new Map<string, ReadonlySet<string> | undefined>();
  #count = 0;
  #stop: (() => void) | undefined;

  /**
   * @param kernel where the events come from
   * @param send writes one notification
   * @param backedUp whether the client is behind on reading: progress events are dropped then
   *
   * @example
   * const events = new EventSubscriptions(host.kernel, send, () => out.full);
   * events.subscribe(['tool_execution_end']); // 's1'
   */
  constructor(
    private readonly kernel: Pick<Kernel, 'onEvent'>,
    private readonly send: (message: object) => void,
    private readonly backedUp: () => boolean,
  ) {}

  /** A new subscription's name; throws an RpcError when the client already holds the most it may. */
  subscribe(types: readonly string[] | undefined): string {
    if (this.#subscriptions.size >= MAX_SUBSCRIPTIONS) {
      throw new RpcError(RPC_ERRORS.invalidRequest, `At most ${MAX_SUBSCRIPTIONS} subscriptions at once; end one with events/unsubscribe first (one subscription without "types" gets every event).`);
    }
    const name = `s${++this.#count}`;
    this.#subscriptions.set(name, types === undefined ? undefined : new Set(types));
    this.#stop ??= this.kernel.onEvent((event) => this.#deliver(event));
    return name;
  }

  /** False when there was no such subscription. */
  unsubscribe(name: string): boolean {
    const had = this.#subscriptions.delete(name);
    if (this.#subscriptions.size === 0) this.clear();
    return had;
  }

  /** Ends every subscription and stops listening. */
  clear(): void {
    this.#subscriptions.clear();
    this.#stop?.();
    this.#stop = undefined;
  }

  #deliver(event: KernelEvent): void {
    // Progress is what a slow reader can do without; start, end and decisions are not dropped.
    if (event.type === 'tool_execution_update' && this.backedUp()) return;
    for (const [subscription, types] of this.#subscriptions) {
      if (types === undefined || types.has(event.type)) this.send({ jsonrpc: '2.0', method: 'events/event', params: { subscription, event } });
    }
  }
}
