/**
 * The host's ToolUI implementations — terminal, RPC bridge, or nobody (the kernel's NO_UI) — all
 * showing one dialog at a time through a DialogQueue.
 */
import { NO_UI } from '@airlock/kernel';
import { type ToolUI } from '@airlock/contract';
import { createRpcUI, type RpcTransport, type RpcUIOptions } from './rpc.js';
import { createTtyUI, type TtyUIOptions } from './tty.js';

export { DialogQueue, DialogTimeoutError, queueFor } from './dialog-queue.js';
export type { DialogQueueOptions, DialogRequest, DialogShowContext } from './dialog-queue.js';
export { createRpcUI } from './rpc.js';
export type { RpcTransport, RpcUIOptions, UICancelMessage, UIMethod, UIRequestMessage, UIResponseMessage } from './rpc.js';
export { createTtyUI } from './tty.js';
export type { TtyUIOptions } from './tty.js';

export interface ChooseUIOptions {
  /** Whether a person sits at the terminal (stdin is a TTY). */
  isTTY: boolean;
  /** A connected RPC client; wins over the terminal, whose stdin then carries the protocol. */
  rpc?: RpcTransport | undefined;
  /** Options for the terminal UI (streams, log). */
  tty?: TtyUIOptions;
  /** Options for the RPC UI (log). */
  rpcOptions?: RpcUIOptions;
}

/**
 * The UI for this run: the RPC bridge when a client is connected, else the terminal when there is
 * one, else NO_UI (every dialog answers "no").
 *
 * @example
 * const ui = chooseUI({ isTTY: process.stdin.isTTY === true });
 */
export function chooseUI(options: ChooseUIOptions): ToolUI {
  if (options.rpc) return createRpcUI(options.rpc, options.rpcOptions);
  if (options.isTTY) return createTtyUI(options.tty);
  return NO_UI;
}
