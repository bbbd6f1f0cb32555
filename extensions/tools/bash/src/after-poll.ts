/**
 * Run `fn` once Node's event loop has polled for I/O after this call; returns a function that
 * cancels it.
 *
 * Why: a timer says nothing about whether a pipe is quiet. Each turn of the event loop runs its
 * due timers *before* it polls for I/O, so after a stall (a loaded CPU, another call's synchronous
 * work) a timer armed "100 ms after the last data" fires while bytes sit unread in the pipe. And
 * Node may emit a child's `exit` before the output the child wrote before exiting: libuv reaps
 * every exited child on any SIGCHLD, possibly before the poll that reports that child's pipe. So a
 * decision taken in a timer ("the pipe has been quiet") is only final once a poll has run since
 * and delivered nothing new.
 *
 * Two nested immediates: the outer one runs in a check phase; one queued from there runs in the
 * next turn's check phase, and every turn polls (without blocking, while an immediate is queued)
 * between its timers and its check phase.
 *
 * @example
 * const seen = chunks;
 * afterNextPoll(() => (chunks === seen ? finish() : waitMore()));
 */
export function afterNextPoll(fn: () => void): () => void {
  let inner: NodeJS.Immediate | undefined;
  const outer = setImmediate(() => {
    inner = setImmediate(fn);
  });
  return () => {
    clearImmediate(outer);
    if (inner !== undefined) clearImmediate(inner);
  };
}

type TimerName = 'timeout' | 'idle' | 'cap' | 'deadline';

/**
 * The timers of one command's run, by name (one of each at a time), and the decisions waiting on
 * a poll (afterNextPoll): all cancelled together when the call settles.
 *
 * @example
 * const timers = new RunTimers();
 * timers.set('idle', () => timers.afterPoll(checkQuiet), 100);
 * timers.clearAll();
 */
export class RunTimers {
  readonly #timers = new Map<TimerName, NodeJS.Timeout>();
  readonly #polls = new Set<() => void>();

  /** Start `name` (replacing one already running under that name). */
  set(name: TimerName, fn: () => void, ms: number): void {
    this.clear(name);
    this.#timers.set(name, setTimeout(() => {
      this.#timers.delete(name);
      fn();
    }, ms));
  }

  has(name: TimerName): boolean {
    return this.#timers.has(name);
  }

  clear(name: TimerName): void {
    const timer = this.#timers.get(name);
    if (timer !== undefined) clearTimeout(timer);
    this.#timers.delete(name);
  }

  /** Run `fn` once the event loop has polled for I/O (see afterNextPoll), unless cleared first. */
  afterPoll(fn: () => void): void {
    const cancel = afterNextPoll(() => {
      this.#polls.delete(cancel);
      fn();
    });
    this.#polls.add(cancel);
  }

  clearAll(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    for (const cancel of this.#polls) cancel();
    this.#polls.clear();
  }
}
