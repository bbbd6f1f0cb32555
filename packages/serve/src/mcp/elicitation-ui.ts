/**
 * Airlock's dialogs (the approval prompt above all) asked of the person behind an MCP client, as
 * MCP form elicitations. Only when the client declared the `elicitation` capability: otherwise
 * the UI says it is not interactive, and the approval extension applies the non-interactive rule
 * (deny, naming the rule that would allow the call).
 *
 * One dialog at a time (the host's DialogQueue), so a client never has two approval forms open;
 * no answer, a decline, a cancel, a timeout, an abort or a broken connection all read as "no".
 */
import { DialogQueue } from '@airlock/host';
import type { DialogOptions, ToolUI } from '@airlock/kernel';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';

type Elicitor = Pick<Server, 'getClientCapabilities' | 'elicitInput'>;

/** A ToolUI that can be handed to `openHost` before the MCP server it asks through exists. */
export interface ElicitationUI extends ToolUI {
  /** Ask through this server from now on (its client's capabilities decide `interactive`). */
  attach(server: Elicitor): void;
}

export interface ElicitationUIOptions {
  /** Problems asking (a client that answers with a bad form); default: a line on stderr. */
  log?: (line: string) => void;
}

/** setTimeout's ceiling: the SDK's request timeout must be a timer value. */
const NO_DEADLINE_MS = 2 ** 31 - 1;

/** Form fields: flat, primitive, one per dialog kind. */
const FIELD = { confirm: 'approve', select: 'choice', input: 'text' } as const;

/**
 * @example
 * const ui = createElicitationUI();
 * const host = await openHost({ cwd, interactive: false, ui });
 * const mcp = createMcpServer(host, { ui });   // attaches the UI to its server
 */
export function createElicitationUI(options: ElicitationUIOptions = {}): ElicitationUI {
  const log = options.log ?? ((line: string) => void process.stderr.write(`airlock: ${line}\n`));
  const queue = new DialogQueue({ onError: (error) => log(`elicitation: ${error instanceof Error ? error.message : String(error)}`) });
  let server: Elicitor | undefined;

  /** Sends one form and returns its content when the person accepted it; undefined for any other end. */
  async function ask(message: string, property: Record<string, unknown>, field: string, dialog: DialogOptions): Promise<Record<string, unknown> | undefined> {
    const target = server;
    if (target === undefined) return undefined;
    return queue.run<Record<string, unknown> | undefined>({
      fallback: undefined,
      ...(dialog.signal === undefined ? {} : { signal: dialog.signal }),
      ...(dialog.timeoutMs === undefined ? {} : { timeoutMs: dialog.timeoutMs }),
      show: async ({ signal, deadline }) => {
        const timeout = deadline === undefined ? NO_DEADLINE_MS : Math.min(NO_DEADLINE_MS, Math.max(1, deadline - Date.now()));
        const result = await target.elicitInput(
          { mode: 'form', message, requestedSchema: { type: 'object', properties: { [field]: property }, required: [field] } as never },
          { signal, timeout },
        );
        return result.action === 'accept' && result.content !== undefined ? result.content : undefined;
      },
    });
  }

  return {
    get interactive(): boolean {
      return server?.getClientCapabilities()?.elicitation?.form !== undefined;
    },
    attach(next) {
      server = next;
    },
    async confirm(title, message, dialog = {}) {
      const text = message === undefined || message === '' ? title : `${title}\n${message}`;
      const content = await ask(text, { type: 'boolean', title: 'Approve', description: title }, FIELD.confirm, dialog);
      // Only an explicit true is a yes; a client that sends anything else gets the safe answer.
      return content?.[FIELD.confirm] === true;
    },
    async select(title, choices, dialog = {}) {
      const content = await ask(title, { type: 'string', title: 'Your answer', enum: [...choices] }, FIELD.select, dialog);
      const answer = content?.[FIELD.select];
      // The SDK checks the enum too; this check does not depend on it.
      return typeof answer === 'string' && choices.includes(answer) ? answer : undefined;
    },
    async input(title, dialog = {}) {
      const { placeholder, ...rest } = dialog;
      const property = { type: 'string', title: 'Your answer', ...(placeholder === undefined ? {} : { description: placeholder }) };
      const content = await ask(title, property, FIELD.input, rest);
      const answer = content?.[FIELD.input];
      return typeof answer === 'string' ? answer : undefined;
    },
  };
}
