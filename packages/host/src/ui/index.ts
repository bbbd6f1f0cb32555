/**
 * How the host asks a person: one `ask` (ask.ts) over a DialogQueue, with a `show` per transport —
 * the terminal here, JSON-RPC and MCP elicitation in @airlock/serve — or nobody (the kernel's NO_UI).
 */
import { NO_UI } from '@airlock/kernel';
import { type ToolUI } from '@airlock/contract';
import { createTtyUI } from './tty.js';

export { createAskUI } from './ask.js';
export type { AskBackend, AskUIOptions } from './ask.js';
export { DialogQueue, DialogTimeoutError, queueFor } from './dialog-queue.js';
export type { DialogQueueOptions, DialogRequest, DialogShowContext, NoAnswered } from './dialog-queue.js';
export { createTtyUI } from './tty.js';
export type { TtyUIOptions } from './tty.js';

export interface ChooseUIOptions {
  /** Whether a person sits at the terminal (stdin is a TTY). */
  isTTY: boolean;
}

/**
 * The UI for this run: the terminal when there is one, else NO_UI (every ask ends `unavailable`).
 * A server that asks its client (JSON-RPC, MCP) passes its own UI to `openHost` instead.
 *
 * @example
 * const ui = chooseUI({ isTTY: process.stdin.isTTY === true });
 */
export function chooseUI(options: ChooseUIOptions): ToolUI {
  if (options.isTTY) return createTtyUI();
  return NO_UI;
}
