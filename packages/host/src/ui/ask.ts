/**
 * The one way the host asks a person. Every transport — the terminal, a JSON-RPC client, an MCP
 * client's form, an SDK program's own UI — is a `show` that puts one ask up and returns what came
 * back. Everything else is done here, once, for all of them:
 * - the ask is checked, and a confirm's choices filled in, before anything is shown (askToShow);
 * - nobody to ask (`interactive` false): `unavailable` at once, in the transport's words;
 * - one ask at a time per channel, with its time limit and its abort (DialogQueue);
 * - what came back is checked against the ask (checkAnswer): an id that is not one of the choices,
 *   text for a question with choices, or anything malformed counts as no, and says what came.
 */
import type { AskAnswer, AskOptions, AskRequest, ToolUI } from '@airlock/contract';
import { askToShow, checkAnswer } from '@airlock/toolkit/util';
import { DialogQueue, type DialogShowContext } from './dialog-queue.js';

/** What a transport does: show one ask, and say whether anybody is there to answer. */
export interface AskBackend {
  /** Whether someone can answer now; read on every ask (an RPC client says so only once connected). */
  readonly interactive: boolean;
  /** Why nobody can answer while `interactive` is false, e.g. "no terminal to show it in". */
  readonly nobody?: string;
  /**
   * Put one ask up and resolve with what came back: an AskAnswer, or whatever a client sent (it is
   * checked here). The ask's choices are filled in; its texts are as the asker wrote them, so escape
   * them for where they go. Must settle soon after `context.signal` aborts (time ran out, or the
   * caller gave up); what it resolves with then is not used.
   */
  show(request: AskRequest, context: DialogShowContext): Promise<unknown>;
}

export interface AskUIOptions {
  /** The line the asks wait in; default a queue of this UI's own. UIs on one channel share one (see queueFor). */
  queue?: DialogQueue;
  /** The time limit of an ask that sets none; default none (a terminal waits for its person). */
  defaultTimeoutMs?: number;
  /** Failures of `show` (the ask ends `unavailable`), for the default queue. */
  onError?: (error: unknown) => void;
}

/**
 * A ToolUI from a transport's `show`.
 *
 * @example
 * // An SDK program's own approver: answers every ask about `ls` with "once", all others with "deny".
 * const ui = createAskUI({
 *   interactive: true,
 *   show: async (request) => ({ id: request.title.startsWith('Allow ls?') ? 'once' : 'deny' }),
 * });
 * await using airlock = await createAirlock({ cwd, interactive: true, ui });
 */
export function createAskUI(backend: AskBackend, options: AskUIOptions = {}): ToolUI {
  const queue = options.queue ?? new DialogQueue(options.onError === undefined ? {} : { onError: options.onError });
  return {
    get interactive() {
      return backend.interactive;
    },
    async ask(request: AskRequest, o: AskOptions = {}): Promise<AskAnswer> {
      const shown = askToShow(request);
      if (!backend.interactive) return { noAnswer: { kind: 'unavailable', detail: backend.nobody ?? 'nobody can answer here' } };
      const came = await queue.run({ signal: o.signal, timeoutMs: o.timeoutMs ?? options.defaultTimeoutMs, show: (context) => backend.show(shown, context) });
      return checkAnswer(shown, came);
    },
  };
}
