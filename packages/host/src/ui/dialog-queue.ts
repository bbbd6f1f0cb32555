import type { NoAnswer } from '@airlock/contract';

/**
 * One dialog on screen at a time, first come first served, whoever asks.
 *
 * Parallel tools and several extensions may all ask at once; a terminal (or an RPC client) can show
 * only one, and interleaving two prompts leaves the UI stuck (Pi #3274). Every ask the host shows
 * goes through a DialogQueue (see ask.ts).
 *
 * A dialog never rejects. When nobody answers it resolves with `{ noAnswer }` saying why, so a
 * caller treats every non-answer alike ("no") and can still tell the model the truth:
 * - timeout (`timeoutMs`, counted from the call, time spent waiting in the queue included);
 * - abort (`signal`);
 * - a backend failure (a prompt library throwing, a broken transport), also reported through `onError`.
 * An aborted or timed-out dialog leaves the queue at once: if it was waiting it is never shown and
 * resolves straight away; if it was showing, its backend is told to close it (through the signal
 * `show` receives), and the caller hears once that close has finished (so a terminal is back in
 * cooked mode by then), or after `closeGraceMs` at most; the next dialog starts then.
 */

/** How a dialog that got no answer resolves. */
export interface NoAnswered {
  noAnswer: NoAnswer;
}

/** What a backend gets when its dialog comes up. */
export interface DialogShowContext {
  /** Aborted when the caller aborts or the timeout fires: close the dialog and settle promptly. */
  signal: AbortSignal;
  /** When the dialog times out (epoch ms), for a countdown; undefined without a timeout. */
  deadline: number | undefined;
}

export interface DialogRequest<T> {
  /**
   * Puts the dialog up and resolves with what came back (a backend that knows why nobody answered
   * — Ctrl-C, a declined form — says so in its value). Must settle soon after `signal` aborts.
   */
  show(context: DialogShowContext): Promise<T>;
  signal?: AbortSignal | undefined;
  /** Gives up this long after the call. undefined, Infinity or over ~24.8 days: never; 0, less or NaN: at once. */
  timeoutMs?: number | undefined;
}

export interface DialogQueueOptions {
  /**
   * How long a cancelled dialog's backend may take to close before its caller hears why and
   * the queue moves on anyway, so a backend that ignores its signal cannot block every later dialog.
   * Default 1000 ms.
   */
  closeGraceMs?: number;
  /** Backend failures and slow closes; the dialog itself resolves with `{ noAnswer }`. */
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
 * const answer = await queue.run({
 *   timeoutMs: 30_000,
 *   show: ({ signal }) => askSomehow('Delete it?', signal),
 * });
 * if ('noAnswer' in answer) console.log(noAnswerText(answer.noAnswer)); // e.g. "no answer within 30 s"
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

  /** Queue a dialog; resolves with what its backend gave, or with why nobody answered. */
  run<T>(request: DialogRequest<T>): Promise<T | NoAnswered> {
    const { signal, timeoutMs } = request;
    if (signal?.aborted) return Promise.resolve({ noAnswer: { kind: 'aborted' } });
    if (timeoutMs !== undefined && !(timeoutMs > 0)) {
      return Promise.resolve({ noAnswer: { kind: 'timeout', timeoutMs: Number.isNaN(timeoutMs) ? 0 : Math.max(0, timeoutMs) } });
    }

    return new Promise<T | NoAnswered>((resolve) => {
      const close = new AbortController();
      // Beyond setTimeout's range (about 24.8 days) a timeout would fire at once; treat it as none.
      const deadline = timeoutMs !== undefined && timeoutMs <= MAX_TIMER_MS ? Date.now() + timeoutMs : undefined;
      let state: 'waiting' | 'showing' | 'closing' | 'done' = 'waiting';
      let timer: ReturnType<typeof setTimeout> | undefined;
      /** Why the dialog was cancelled, once it was: what the caller gets whatever the backend does next. */
      let cancelled: NoAnswered | undefined;

      const settle = (value: T | NoAnswered): void => {
        if (state === 'done') return;
        state = 'done';
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(value);
      };
      const cancel = (reason: unknown): void => {
        if (state !== 'waiting' && state !== 'showing') return;
        cancelled = { noAnswer: reason instanceof DialogTimeoutError ? { kind: 'timeout', timeoutMs: timeoutMs! } : { kind: 'aborted' } };
        if (state === 'waiting') {
          // Never shown: drop it from the line so it cannot block anyone.
          const index = this.#waiting.indexOf(entry);
          if (index >= 0) this.#waiting.splice(index, 1);
          settle(cancelled);
        } else {
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
            shown = Promise.resolve(request.show({ signal: close.signal, deadline }));
          } catch (error) {
            shown = Promise.reject(error);
          }
          const closed = shown.then(
            // An answer that races a cancel loses: once cancelled, the answer is the cancel's reason.
            (value) => settle(cancelled ?? value),
            (error: unknown) => {
              // A backend rejecting because we closed it is the expected way out, not a failure.
              if (cancelled !== undefined) return settle(cancelled);
              this.#onError(error);
              settle({ noAnswer: { kind: 'unavailable', detail: `the dialog failed: ${error instanceof Error ? error.message : String(error)}` } });
            },
          );
          await this.#closedOrGrace(closed, close.signal);
          // Only does something when the grace ran out before the backend closed.
          if (cancelled !== undefined) settle(cancelled);
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
