/**
 * Dialogs bridged to an RPC client (an IDE, a web UI) over a message transport; the CLI wires it
 * to JSONL over stdio. One dialog at a time, like the terminal: the client never has to juggle two.
 *
 * Protocol (Pi's extension_ui_request/response, renamed):
 *   host → client  {type: "ui_request", id, method: "confirm"|"select"|"input", title, message?, choices?, placeholder?, timeoutMs?}
 *   client → host  {type: "ui_response", id, confirmed?: boolean, value?: string, cancelled?: true}
 *   host → client  {type: "ui_cancel", id}   the host stopped waiting (timeout or abort): close the dialog
 * `timeoutMs` in a request is the time left when it is sent (queue wait already deducted), for a
 * countdown. A response with an id the host is not waiting for is ignored (late answers to cancelled
 * dialogs land here); a malformed one is ignored with a log line and the dialog keeps waiting.
 * Answers when nobody answers are those of the dialog queue: confirm → false, select/input → undefined.
 * Titles, messages and placeholders are sent through `terminalSafe` as the terminal UI shows
 * them; choices verbatim (the answer must be one of them).
 */
import { randomUUID } from 'node:crypto';
import type { DialogOptions, Logger, NoAnswer, ToolUI } from '@airlock/contract';
import { queueFor, type DialogQueue, type DialogShowContext } from './dialog-queue.js';
import { terminalSafe } from '@airlock/toolkit/display';

export type UIMethod = 'confirm' | 'select' | 'input';

export interface UIRequestMessage {
  type: 'ui_request';
  id: string;
  method: UIMethod;
  title: string;
  message?: string;
  choices?: string[];
  placeholder?: string;
  timeoutMs?: number;
}

export interface UIResponseMessage {
  type: 'ui_response';
  id: string;
  /** confirm's answer. */
  confirmed?: boolean;
  /** select's choice (one of the choices, verbatim) or input's text; a boolean is accepted for confirm. */
  value?: string | boolean;
  /** The person dismissed the dialog: the answer is "no". */
  cancelled?: boolean;
  /**
   * With `cancelled`, why there is no answer (default `cancelled`): `declined` (the person said
   * no to the dialog), `invalid` (an answer that was not one of the choices), `unavailable`
   * (nobody can answer). Shown to the model as the reason of the denial.
   */
  reason?: 'cancelled' | 'declined' | 'invalid' | 'unavailable';
  /** Words for people with `reason` (the value that came, the error). */
  detail?: string;
}

export interface UICancelMessage {
  type: 'ui_cancel';
  id: string;
}

/** A two-way message channel; the CLI implements it as JSONL over stdio. */
export interface RpcTransport {
  send(message: object): void;
  /** Subscribes to every incoming message (not only ours); returns the unsubscribe function. */
  onMessage(handler: (message: unknown) => void): () => void;
}

export interface RpcUIOptions {
  /** Default: the queue shared by every UI on the same transport (see queueFor). */
  queue?: DialogQueue;
  /** Malformed responses and transport failures. Default: a line on stderr (stdout may be the transport). */
  log?: Pick<Logger, 'warn'>;
}

type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * A ToolUI that asks an RPC client, one dialog at a time.
 *
 * @example
 * const ui = createRpcUI({ send: (m) => process.stdout.write(JSON.stringify(m) + '\n'), onMessage: subscribe });
 * const choice = await ui.select('Which branch?', ['main', 'dev'], { timeoutMs: 30_000 });
 */
export function createRpcUI(transport: RpcTransport, options: RpcUIOptions = {}): ToolUI {
  // A client's malformed message is quoted in these lines: escaped, never interpreted by the terminal.
  const log = options.log ?? { warn: (message: string) => void process.stderr.write(`airlock: ${terminalSafe(message, { lineBreaks: false, tabs: false })}\n`) };
  const queue = options.queue ?? queueFor(transport, { onError: (error) => log.warn(`dialog: ${describe(error)}`) });

  /** Sends one request and waits for its response; on cancel tells the client to close it. */
  function ask<T>(
    shown: DialogShowContext,
    request: Omit<UIRequestMessage, 'type' | 'id' | 'timeoutMs'>,
    fallback: T,
    parse: (response: Record<string, unknown>) => Parsed<T>,
  ): Promise<T> {
    if (shown.signal.aborted) return Promise.resolve(fallback);
    return new Promise<T>((resolve) => {
      const id = randomUUID();
      let finished = false;
      let unsubscribe: (() => void) | undefined;
      const finish = (value: T): void => {
        if (finished) return;
        finished = true;
        unsubscribe?.();
        shown.signal.removeEventListener('abort', onCancel);
        resolve(value);
      };
      const onCancel = (): void => {
        trySend({ type: 'ui_cancel', id } satisfies UICancelMessage);
        finish(fallback);
      };
      // Subscribe before sending: a transport may deliver the response inside send().
      unsubscribe = transport.onMessage((message) => {
        if (finished || !isObject(message) || message['type'] !== 'ui_response') return; // other traffic on the channel
        if (typeof message['id'] !== 'string') return log.warn(`ignored a ui_response without a string id: ${preview(message)}`);
        if (message['id'] !== id) return;
        if ('cancelled' in message && typeof message['cancelled'] !== 'boolean') {
          return log.warn(`ignored a malformed ui_response to ${request.method} ${id}: cancelled must be a boolean: ${preview(message)}`);
        }
        if (message['cancelled'] === true) {
          shown.noAnswer(noAnswerOf(message));
          return finish(fallback);
        }
        const answer = parse(message);
        if (!answer.ok) return log.warn(`ignored a malformed ui_response to ${request.method} ${id}: ${answer.reason}: ${preview(message)}`);
        finish(answer.value);
      });
      const left = shown.deadline === undefined ? undefined : Math.max(0, shown.deadline - Date.now());
      const sent = trySend({ type: 'ui_request', id, ...forPeople(request), ...(left === undefined ? {} : { timeoutMs: left }) } satisfies UIRequestMessage);
      if (!sent) {
        shown.noAnswer({ kind: 'unavailable', detail: 'the dialog could not be sent to the client' });
        return finish(fallback);
      }
      shown.signal.addEventListener('abort', onCancel, { once: true });
    });
  }

  function trySend(message: UIRequestMessage | UICancelMessage): boolean {
    try {
      transport.send(message);
      return true;
    } catch (error) {
      log.warn(`could not send ${message.type} ${message.id}: ${describe(error)}`);
      return false;
    }
  }

  return {
    interactive: true,

    confirm(title: string, message?: string, dialog: DialogOptions = {}): Promise<boolean> {
      return queue.run({
        fallback: false,
        signal: dialog.signal,
        timeoutMs: dialog.timeoutMs,
        onNoAnswer: dialog.onNoAnswer,
        show: (shown) =>
          ask(shown, { method: 'confirm', title, ...(message === undefined ? {} : { message }) }, false, (response) => {
            const answer = response['confirmed'] ?? response['value'];
            return typeof answer === 'boolean' ? { ok: true, value: answer } : { ok: false, reason: 'confirmed must be a boolean' };
          }),
      });
    },

    select(title: string, choices: readonly string[], dialog: DialogOptions = {}): Promise<string | undefined> {
      // Nothing to choose from: no dialog could produce an answer.
      if (choices.length === 0) {
        dialog.onNoAnswer?.({ kind: 'unavailable', detail: 'there are no choices to show' });
        return Promise.resolve(undefined);
      }
      return queue.run<string | undefined>({
        fallback: undefined,
        signal: dialog.signal,
        timeoutMs: dialog.timeoutMs,
        onNoAnswer: dialog.onNoAnswer,
        show: (shown) =>
          ask<string | undefined>(shown, { method: 'select', title, choices: [...choices] }, undefined, (response) => {
            const answer = response['value'];
            // Only a listed choice: a caller switches on these strings and must never see another.
            return typeof answer === 'string' && choices.includes(answer)
              ? { ok: true, value: answer }
              : { ok: false, reason: 'value must be one of the choices' };
          }),
      });
    },

    input(title: string, dialog: DialogOptions & { placeholder?: string } = {}): Promise<string | undefined> {
      const { placeholder } = dialog;
      return queue.run<string | undefined>({
        fallback: undefined,
        signal: dialog.signal,
        timeoutMs: dialog.timeoutMs,
        onNoAnswer: dialog.onNoAnswer,
        show: (shown) =>
          ask<string | undefined>(shown, { method: 'input', title, ...(placeholder === undefined ? {} : { placeholder }) }, undefined, (response) => {
            const answer = response['value'];
            return typeof answer === 'string' ? { ok: true, value: answer } : { ok: false, reason: 'value must be a string' };
          }),
      });
    },
  };
}

/**
 * The texts of a dialog as the terminal UI shows them (a client may well print them to one): no
 * character a terminal obeys or hides, no tab; a placeholder on one line. Choices go as they are,
 * since the answer must be one of them verbatim; Airlock's own (the approval prompt's) are plain words.
 */
function forPeople(request: Omit<UIRequestMessage, 'type' | 'id' | 'timeoutMs'>): Omit<UIRequestMessage, 'type' | 'id' | 'timeoutMs'> {
  return {
    ...request,
    title: terminalSafe(request.title, { tabs: false }),
    ...(request.message === undefined ? {} : { message: terminalSafe(request.message, { tabs: false }) }),
    ...(request.placeholder === undefined ? {} : { placeholder: terminalSafe(request.placeholder, { lineBreaks: false, tabs: false }) }),
  };
}

const REASONS = new Set(['cancelled', 'declined', 'invalid', 'unavailable']);

/** Why a `cancelled` response gives no answer: its `reason` when it is one we know, else a cancel. */
function noAnswerOf(message: Record<string, unknown>): NoAnswer {
  const kind = typeof message['reason'] === 'string' && REASONS.has(message['reason']) ? (message['reason'] as 'cancelled' | 'declined' | 'invalid' | 'unavailable') : 'cancelled';
  const detail = typeof message['detail'] === 'string' && message['detail'] !== '' ? message['detail'].slice(0, 300) : undefined;
  return detail === undefined ? { kind } : { kind, detail };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A response, shortened for a log line (a buggy client could send anything). */
function preview(message: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(message);
  } catch {
    text = String(message);
  }
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
