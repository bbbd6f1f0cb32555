import type { NoAnswer } from '@airlock/contract';

/**
 * One dialog on screen at a time, first come first served, whoever asks.
 *
 * Parallel tools and several extensions may all open dialogs at once; a terminal (or an RPC client)
 * can show only one, and interleaving two prompts leaves the UI stuck (Pi #3274). Every ToolUI
 * implementation in the host routes its dialogs through a DialogQueue.
 *
 * Answers when nobody answers — the same values as the kernel's NO_UI, so "no answer" always reads as
 * "no" and a dialog never rejects:
 * - timeout (`timeoutMs`, counted from the call, time spent waiting in the queue included):
 *   confirm → `false`, select/input → `undefined`;
 * - abort (`signal`): the same values. We resolve rather than reject because the kernel's NO_UI
 *   answers "no" and callers (approval handlers) must treat every non-answer alike; a caller that
 *   needs to tell an abort apart checks its own `signal.aborted`;
 * - a backend failure (a prompt library throwing, a broken transport): the same values, reported
 *   through `onError`.
 * An aborted or timed-out dialog leaves the queue at once: if it was waiting it is never shown and
 * resolves straight away; if it was showing, its backend is told to close it (through the signal
 * `show` receives), and the caller gets the fallback and the next dialog starts as soon as that close
 * has finished (so a terminal is back in cooked mode by then), or after `closeGraceMs` at most.
 */

/** What a backend gets when its dialog comes up. */
export interface DialogShowContext {
  /** Aborted when the caller aborts or the timeout fires: close the dialog and settle promptly. */
  signal: AbortSignal;
  /** When the dialog times out (epoch ms), for a countdown; undefined without a timeout. */
  deadline: number | undefined;
  /**
   * Say why the dialog is ending without an answer (declined, an answer that was not a choice,
   * cancelled …) before settling with the fallback. Only the first report of a dialog counts.
   */
  noAnswer(why: NoAnswer): void;
}

export interface DialogRequest<T> {
  /** Puts the dialog up and resolves with the answer. Must settle soon after `signal` aborts. */
  show(context: DialogShowContext): Promise<T>;
  /** The answer when nobody answers (timeout, abort, backend failure). */
  fallback: T;
  signal?: AbortSignal | undefined;
  /** Told why, when the dialog ends with its fallback: timeout, abort, a backend failure, or what the backend reported. */
  onNoAnswer?: ((why: NoAnswer) => void) | undefined;
  /** Gives up this long after the call. undefined, Infinity or over ~24.8 days: never; 0, less or NaN: at once. */
  timeoutMs?: number | undefined;
}

export interface DialogQueueOptions {
  /**
   * How long a cancelled dialog's backend may take to close before its caller gets the fallback and
   * the queue moves on anyway, so a backend that ignores its signal cannot block every later dialog.
   * Default 1000 ms.
   */
  closeGraceMs?: number;
  /** Backend failures and slow closes; the dialog itself resolves with its fallback. */
  onError?: (error: unknown) => void;
}

/** Why a showing dialog's signal was aborted when its time ran out. */
export class DialogTimeoutError extends Error {
  override name = 'DialogTimeoutError';
  constructor(timeoutMs: number) {
    super(`The dialog got no answer within ${timeoutMs} ms`);
  }
}

const MAX_TIMER_MS = 2 ** 31 - 1;

interface Entry {
  start(): Promise<void>;
}

/**
 * A FIFO of dialogs that shows one at a time.
 *
 * @example
 * const queue = new DialogQueue();
 * const ok = await queue.run({
 *   fallback: false,
 *   timeoutMs: 30_000,
 *   show: ({ signal }) => askSomehow('Delete it?', signal),
 * });
 */
export class DialogQueue {
  readonly #waiting: Entry[] = [];
  #showing = false;
  readonly #closeGraceMs: number;
  readonly #onError: (error: unknown) => void;

  constructor(options: DialogQueueOptions = {}) {
    const grace = options.closeGraceMs ?? 1000;
    if (!(grace >= 0)) throw new TypeError(`closeGraceMs must be a number >= 0, got ${String(grace)}`);
    this.#closeGraceMs = grace;
    this.#onError = options.onError ?? (() => {});
  }

  /** Dialogs waiting for their turn (the one showing not included). */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Whether a dialog is on screen. */
  get showing(): boolean {
    return this.#showing;
  }

  /** Queue a dialog; resolves with its answer, or with `fallback` on timeout, abort or failure. */
  run<T>(request: DialogRequest<T>): Promise<T> {
    const { signal, timeoutMs, fallback } = request;
    let reported = false;
    const noAnswer = (why: NoAnswer): void => {
      if (reported) return;
      reported = true;
      try {
        request.onNoAnswer?.(why);
      } catch (error) {
        this.#onError(error);
      }
    };
    if (signal?.aborted) {
      noAnswer({ kind: 'aborted' });
      return Promise.resolve(fallback);
    }
    if (timeoutMs !== undefined && !(timeoutMs > 0)) {
      noAnswer({ kind: 'timeout', timeoutMs: Number.isNaN(timeoutMs) ? 0 : Math.max(0, timeoutMs) });
      return Promise.resolve(fallback);
    }

    return new Promise<T>((resolve) => {
      const close = new AbortController();
      // Beyond setTimeout's range (about 24.8 days) a timeout would fire at once; treat it as none.
      const deadline = timeoutMs !== undefined && timeoutMs <= MAX_TIMER_MS ? Date.now() + timeoutMs : undefined;
      let state: 'waiting' | 'showing' | 'closing' | 'done' = 'waiting';
      let timer: ReturnType<typeof setTimeout> | undefined;

      const settle = (value: T): void => {
        if (state === 'done') return;
        state = 'done';
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(value);
      };
      const cancel = (reason: unknown): void => {
        if (state === 'waiting' || state === 'showing') noAnswer(reason instanceof DialogTimeoutError ? { kind: 'timeout', timeoutMs: timeoutMs! } : { kind: 'aborted' });
        if (state === 'waiting') {
          // Never shown: drop it from the line so it cannot block anyone.
          const index = this.#waiting.indexOf(entry);
          if (index >= 0) this.#waiting.splice(index, 1);
          settle(fallback);
        } else if (state === 'showing') {
          // The caller hears once the backend has closed (a terminal is back in cooked mode by then).
          state = 'closing';
          close.abort(reason);
        }
      };
      const onAbort = (): void => cancel(signal?.reason);

      const entry: Entry = {
        start: async () => {
          state = 'showing';
          let shown: Promise<T>;
          try {
            shown = Promise.resolve(request.show({ signal: close.signal, deadline, noAnswer }));
          } catch (error) {
            shown = Promise.reject(error);
          }
          const closed = shown.then(
            // An answer that races a cancel loses: once cancelled, the answer is the fallback.
            (value) => settle(state === 'closing' ? fallback : value),
            (error: unknown) => {
              // A backend rejecting because we closed it is the expected way out, not a failure.
              if (!close.signal.aborted) {
                this.#onError(error);
                noAnswer({ kind: 'unavailable', detail: `the dialog failed: ${error instanceof Error ? error.message : String(error)}` });
              }
              settle(fallback);
            },
          );
          await this.#closedOrGrace(closed, close.signal);
          settle(fallback); // only does something when the grace ran out before the backend closed
        },
      };

      signal?.addEventListener('abort', onAbort, { once: true });
      if (deadline !== undefined) timer = setTimeout(() => cancel(new DialogTimeoutError(timeoutMs!)), timeoutMs);
      this.#waiting.push(entry);
      this.#pump();
    });
  }

  /** Starts the next dialog when none is showing; called on every enqueue and every close. */
  #pump(): void {
    if (this.#showing) return;
    const next = this.#waiting.shift();
    if (!next) return;
    this.#showing = true;
    void next.start().finally(() => {
      this.#showing = false;
      this.#pump();
    });
  }

  /**
   * Resolves when the dialog has closed, or `closeGraceMs` after it was cancelled if its backend is
   * still holding on: the longest a cancelled backend may hold its caller and the queue.
   */
  #closedOrGrace(closed: Promise<void>, cancelled: AbortSignal): Promise<void> {
    return new Promise((release) => {
      let grace: ReturnType<typeof setTimeout> | undefined;
      void closed.then(() => {
        clearTimeout(grace);
        release();
      });
      cancelled.addEventListener(
        'abort',
        () => {
          grace = setTimeout(() => {
            this.#onError(new Error(`A cancelled dialog did not close within ${this.#closeGraceMs} ms; showing the next one anyway`));
            release();
          }, this.#closeGraceMs);
          // Only a stuck backend needs this timer; it must not keep the process alive on its own.
          grace.unref?.();
        },
        { once: true },
      );
    });
  }
}

const shared = new WeakMap<object, DialogQueue>();

/**
 * The queue of a channel (a terminal's input stream, an RPC transport): every UI made for the same
 * channel shares it, so two UIs on one terminal still show one dialog at a time. The options apply
 * only when the queue is created.
 *
 * @example
 * const queue = queueFor(process.stdin);
 */
export function queueFor(channel: object, options?: DialogQueueOptions): DialogQueue {
  let queue = shared.get(channel);
  if (!queue) {
    queue = new DialogQueue(options);
    shared.set(channel, queue);
  }
  return queue;
}
