/**
 * Approval prompts (and every other dialog an extension opens) as JSON-RPC requests from the
 * server to the client: `ui/confirm`, `ui/select`, `ui/input`, and the `ui/cancel` notification
 * when the server stops waiting. Built on the host's RPC dialog bridge (createRpcUI): it keeps one
 * dialog at a time, counts the timeout and answers "no" when nobody answers; this module only
 * translates its messages to JSON-RPC and back, and adds the server's rules:
 * - dialogs go out only after the client said `initialize {dialogs: true}`; before that (or
 *   without it) the UI is not interactive, so an "ask" is the non-interactive denial;
 * - every dialog has a time limit (its caller's, or the server's when the caller sets none): a
 *   client that never answers gets "no";
 * - an answer to an id the server is not waiting for is ignored with a log line; a malformed answer
 *   or an error response counts as "no" (with a log line), never as "yes";
 * - when input ends, every open dialog is answered "no" at once (nobody is left to answer).
 */
import { Compile } from 'typebox/compile';
import { createRpcUI, type RpcTransport, type UICancelMessage, type UIMethod, type UIRequestMessage } from '@airlock/host';
import type { DialogOptions, ToolUI } from '@airlock/contract';
import type { RpcResponse } from './protocol.js';
import { ConfirmResult, InputResult, SelectResult } from './schemas.js';

const RESULT_CHECKS = { confirm: Compile(ConfirmResult), select: Compile(SelectResult), input: Compile(InputResult) } as const;

export interface DialogBridgeOptions {
  /** Sends one JSON-RPC message to the client; false when the client is gone. */
  send(message: object): boolean;
  /** One line for people (stderr). */
  log(line: string): void;
  /** The time limit of a dialog that sets none of its own (a caller's own limit stands: the approval prompt's wording names it). */
  timeoutMs: number;
}

export interface DialogBridge {
  /** The ToolUI to open the host with; interactive only once the client said it answers dialogs. */
  readonly ui: ToolUI;
  /** Whether dialogs go to the client. */
  readonly enabled: boolean;
  enable(on: boolean): void;
  /** A response from the client to a ui/* request; false when no dialog waits for that id. */
  answer(response: RpcResponse): boolean;
  /** Nobody can answer any more: every open dialog is "no", later ones are not sent. */
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
  /** The dialogs sent and not yet answered or cancelled, with their method and choices. */
  const pending = new Map<string, { method: UIMethod; choices?: readonly string[] }>();
  const handlers = new Set<(message: unknown) => void>();
  const deliver = (message: object): void => {
    for (const handler of [...handlers]) handler(message);
  };

  const transport: RpcTransport = {
    send(message) {
      const m = message as UIRequestMessage | UICancelMessage;
      if (m.type === 'ui_request') {
        if (closed || !enabled) throw new Error('the client cannot answer dialogs');
        const { type: _type, id, method, ...params } = m;
        pending.set(id, { method, ...(m.choices === undefined ? {} : { choices: m.choices }) });
        if (!options.send({ jsonrpc: '2.0', id, method: `ui/${method}`, params })) {
          pending.delete(id);
          throw new Error('the client is gone');
        }
      } else if (m.type === 'ui_cancel') {
        pending.delete(m.id);
        options.send({ jsonrpc: '2.0', method: 'ui/cancel', params: { id: m.id } });
      }
    },
    onMessage(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
  };
  const rpcUI = createRpcUI(transport, { log: { warn: (m) => options.log(m) } });
  const limited = <T extends DialogOptions>(dialog: T | undefined): T => ({ ...(dialog ?? ({} as T)), timeoutMs: dialog?.timeoutMs ?? options.timeoutMs });
  const open = (): boolean => enabled && !closed;

  const ui: ToolUI = {
    get interactive() {
      return open();
    },
    confirm: (title, message, dialog) => (open() ? rpcUI.confirm(title, message, limited(dialog)) : Promise.resolve(nobody(dialog, false))),
    select: (title, choices, dialog) => (open() ? rpcUI.select(title, choices, limited(dialog)) : Promise.resolve(nobody(dialog, undefined))),
    input: (title, dialog) => (open() ? rpcUI.input(title, limited(dialog)) : Promise.resolve(nobody(dialog, undefined))),
  };

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
      const dialog = id === undefined ? undefined : pending.get(id);
      if (id === undefined || dialog === undefined) return false;
      pending.delete(id);
      if (response.error !== undefined) {
        options.log(`the client answered ui/${dialog.method} ${id} with an error (${String(response.error?.message)}): taken as "no"`);
        deliver({ type: 'ui_response', id, cancelled: true, reason: 'unavailable', detail: `the client answered with an error: ${preview(response.error?.message)}` });
        return true;
      }
      const result = response.result;
      const valid = RESULT_CHECKS[dialog.method].Check(result) && (dialog.method !== 'select' || isChoice(result, dialog.choices));
      if (!valid) {
        options.log(`ignored a malformed answer to ui/${dialog.method} ${id} (${preview(result)}); expected ${EXPECTED[dialog.method]}: taken as "no"`);
        deliver({ type: 'ui_response', id, cancelled: true, reason: 'invalid', detail: `the client answered ${preview(result)}` });
        return true;
      }
      deliver({ type: 'ui_response', id, ...(result as object) });
      return true;
    },
    close() {
      closed = true;
      for (const id of [...pending.keys()]) {
        pending.delete(id);
        deliver({ type: 'ui_response', id, cancelled: true, reason: 'unavailable', detail: 'the client stopped answering (its input ended)' });
      }
    },
  };
}

const EXPECTED: Record<UIMethod, string> = {
  confirm: '{"confirmed": true|false} or {"cancelled": true}',
  select: '{"value": <one of the choices>} or {"cancelled": true}',
  input: '{"value": "<text>"} or {"cancelled": true}',
};

/** No client to ask (dialogs not enabled, or the client is gone): no, and the caller is told why. */
function nobody<T>(dialog: DialogOptions | undefined, answer: T): T {
  dialog?.onNoAnswer?.({ kind: 'unavailable', detail: 'the RPC client does not answer dialogs' });
  return answer;
}

function isChoice(result: unknown, choices: readonly string[] | undefined): boolean {
  const value = (result as { value?: unknown }).value;
  return value === undefined || (typeof value === 'string' && (choices ?? []).includes(value));
}

function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
