/**
 * Asks (the approval prompt above all) as JSON-RPC requests from the server to the client. The
 * request `ui/ask` carries the ask itself — kind, title, message, choices with their ids — and the
 * client's result is the answer: `{"id": …}`, `{"text": …}` or `{"noAnswer": {…}}`, checked by the
 * host's one ask path (createAskUI) like an answer picked in a terminal. On top, the server's rules:
 * - asks go out only after the client said `initialize {dialogs: true}`; before that (or without
 *   it) the UI is not interactive, so an "ask" is the non-interactive denial;
 * - every ask has a time limit (its caller's, or the server's when the caller sets none): a client
 *   that never answers gets "no", and the notification `ui/cancel` tells it to close the dialog;
 * - an error response counts as no (`unavailable`), and a result that is not an answer to this ask
 *   (an id that is not one of its choices, a malformed result) as no (`invalid`): the denial quotes
 *   what came and names the choices, and a line on stderr says the same to whoever runs the server;
 * - an answer to an id the server is not waiting for is ignored with a log line;
 * - when input ends, every open ask is "no" at once (nobody is left to answer).
 */
import { randomUUID } from 'node:crypto';
import { createAskUI, type DialogShowContext } from '@airlock/host';
import type { AskRequest, ToolUI } from '@airlock/contract';
import { terminalSafe } from '@airlock/toolkit/display';
import { checkAnswer, describeReceived } from '@airlock/toolkit/util';
import type { RpcResponse } from './protocol.js';
import type { AskParams } from './schemas.js';

export interface DialogBridgeOptions {
  /** Sends one JSON-RPC message to the client; false when the client is gone. */
  send(message: object): boolean;
  /** One line for people (stderr). */
  log(line: string): void;
  /** The time limit of an ask that sets none (a caller's own limit stands: the approval prompt's wording names it). */
  timeoutMs: number;
}

export interface DialogBridge {
  /** The ToolUI to open the host with; interactive only once the client said it answers dialogs. */
  readonly ui: ToolUI;
  /** Whether asks go to the client. */
  readonly enabled: boolean;
  enable(on: boolean): void;
  /** A response from the client to a `ui/ask` request; false when no ask waits for that id. */
  answer(response: RpcResponse): boolean;
  /** Nobody can answer any more: every open ask is "no", later ones are not sent. */
  close(): void;
}

/**
 * @example
 * const dialogs = createDialogBridge({ send: (m) => out.write(m), log, timeoutMs: 120_000 });
 * const host = await openHost({ cwd, interactive: false, ui: dialogs.ui });
 * dialogs.enable(true); // the client called initialize {dialogs: true}
 */
export function createDialogBridge(options: DialogBridgeOptions): DialogBridge {
  let enabled = false;
  let closed = false;
  /** The asks sent and not yet answered or cancelled: each one's request, and how to hand it what came. */
  const pending = new Map<string, { request: AskRequest; finish(came: unknown): void }>();
  const open = (): boolean => enabled && !closed;

  function show(request: AskRequest, shown: DialogShowContext): Promise<unknown> {
    return new Promise((resolve) => {
      const id = randomUUID();
      const finish = (came: unknown): void => {
        if (!pending.delete(id)) return;
        shown.signal.removeEventListener('abort', onCancel);
        resolve(came);
      };
      // The queue stopped waiting (time ran out, the call was aborted); it says which to the asker.
      const onCancel = (): void => {
        finish({ noAnswer: { kind: 'aborted' } });
        options.send({ jsonrpc: '2.0', method: 'ui/cancel', params: { id } });
      };
      const left = shown.deadline === undefined ? undefined : Math.max(0, shown.deadline - Date.now());
      const params: AskParams = { ...forPeople(request), ...(left === undefined ? {} : { timeoutMs: left }) };
      pending.set(id, { request, finish });
      if (!open() || !options.send({ jsonrpc: '2.0', id, method: 'ui/ask', params })) {
        return finish({ noAnswer: { kind: 'unavailable', detail: 'the ask could not be sent: the client is gone' } });
      }
      shown.signal.addEventListener('abort', onCancel, { once: true });
    });
  }

  const ui = createAskUI(
    {
      get interactive() {
        return open();
      },
      nobody: 'the RPC client does not answer dialogs',
      show,
    },
    { defaultTimeoutMs: options.timeoutMs, onError: (error) => options.log(`dialog: ${error instanceof Error ? error.message : String(error)}`) },
  );

  return {
    ui,
    get enabled() {
      return open();
    },
    enable(on) {
      enabled = on;
    },
    answer(response) {
      const id = typeof response.id === 'string' ? response.id : undefined;
      const asked = id === undefined ? undefined : pending.get(id);
      if (id === undefined || asked === undefined) return false;
      if (response.error !== undefined) {
        options.log(`the client answered ui/ask ${id} with an error (${describeReceived(response.error?.message)}): taken as "no"`);
        asked.finish({ noAnswer: { kind: 'unavailable', detail: `the client answered with an error: ${describeReceived(response.error?.message)}` } });
        return true;
      }
      // The ask path checks it again; checking here too lets whoever runs the server see a client's mistake.
      const answer = checkAnswer(asked.request, response.result);
      if ('noAnswer' in answer && answer.noAnswer.kind === 'invalid') options.log(`a malformed answer to ui/ask ${id} (${answer.noAnswer.detail}): taken as "no"`);
      asked.finish(answer);
      return true;
    },
    close() {
      closed = true;
      for (const { finish } of [...pending.values()]) finish({ noAnswer: { kind: 'unavailable', detail: 'the client stopped answering (its input ended)' } });
    },
  };
}

/**
 * The texts of an ask as the terminal shows them (a client may well print them to one): no
 * character a terminal obeys or hides, no tab; a label or a placeholder on one line. Ids go as they
 * are: the answer names one of them.
 */
function forPeople(request: AskRequest): AskRequest {
  const block = (text: string): string => terminalSafe(text, { tabs: false });
  const line = (text: string): string => terminalSafe(text, { lineBreaks: false, tabs: false });
  return {
    ...request,
    title: block(request.title),
    ...(request.message === undefined ? {} : { message: block(request.message) }),
    ...(request.choices === undefined ? {} : { choices: request.choices.map((choice) => ({ id: choice.id, label: line(choice.label) })) }),
    ...(request.placeholder === undefined ? {} : { placeholder: line(request.placeholder) }),
  };
}
