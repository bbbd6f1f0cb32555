/**
 * Airlock's dialogs (the approval prompt above all) asked of the person behind an MCP client, as
 * MCP form elicitations. Only when the client declared the `elicitation` capability: otherwise
 * the UI says it is not interactive, and the approval extension applies the non-interactive rule
 * (deny, naming the rule that would allow the call).
 *
 * One dialog at a time (the host's DialogQueue), so a client never has two approval forms open;
 * no answer, a decline, a cancel, a timeout, an abort or a broken connection all read as "no",
 * and the caller learns which through `DialogOptions.onNoAnswer`.
 *
 * The form's message and descriptions go through `terminalSafe` as the terminal UI shows them (a
 * client may print them to a terminal); the choices go verbatim, since the answer must be one of them.
 */
import { DialogQueue } from '@airlock/host';
import type { DialogOptions, ToolUI } from '@airlock/contract';
import { terminalSafe } from '@airlock/toolkit/display';
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

/** How much later than the dialog's deadline the SDK's own request timeout fires. */
const SDK_MARGIN_MS = 1000;

/** Form fields: flat, primitive, one per dialog kind. */
const FIELD = { confirm: 'approve', select: 'choice', input: 'text' } as const;

/**
 * @example
 * const ui = createElicitationUI();
 * const host = await openHost({ cwd, interactive: false, ui });
 * const mcp = createMcpServer(host, { ui });   // attaches the UI to its server
 */
export function createElicitationUI(options: ElicitationUIOptions = {}): ElicitationUI {
  const log = options.log ?? ((line: string) => void process.stderr.write(`airlock: ${terminalSafe(line, { lineBreaks: false, tabs: false })}\n`));
  const queue = new DialogQueue({ onError: (error) => log(`elicitation: ${error instanceof Error ? error.message : String(error)}`) });
  let server: Elicitor | undefined;

  /**
   * Sends one form and returns its content when the person accepted it with a valid answer
   * (`valid`); undefined for any other end, which the caller is told about through `onNoAnswer`.
   */
  async function ask(message: string, property: Record<string, unknown>, field: string, dialog: DialogOptions, valid: (content: Record<string, unknown>) => boolean): Promise<Record<string, unknown> | undefined> {
    const target = server;
    if (target === undefined) {
      dialog.onNoAnswer?.({ kind: 'unavailable', detail: 'no MCP client is connected' });
      return undefined;
    }
    return queue.run<Record<string, unknown> | undefined>({
      fallback: undefined,
      ...(dialog.signal === undefined ? {} : { signal: dialog.signal }),
      ...(dialog.timeoutMs === undefined ? {} : { timeoutMs: dialog.timeoutMs }),
      ...(dialog.onNoAnswer === undefined ? {} : { onNoAnswer: dialog.onNoAnswer }),
      show: async ({ signal, deadline, noAnswer }) => {
        // The queue's own timer ends the dialog (and says "no answer within N s"); the SDK's limit is
        // a second later, so it never wins the race and reads as a failed dialog.
        const timeout = deadline === undefined ? NO_DEADLINE_MS : Math.min(NO_DEADLINE_MS, Math.max(1, deadline - Date.now()) + SDK_MARGIN_MS);
        let result: Awaited<ReturnType<Elicitor['elicitInput']>>;
        try {
          result = await target.elicitInput(
            { mode: 'form', message: terminalSafe(message, { tabs: false }), requestedSchema: { type: 'object', properties: { [field]: property }, required: [field] } as never },
            { signal, timeout },
          );
        } catch (error) {
          // The SDK checks an accepted form against the schema and throws when it does not fit:
          // an answer came, but not one that could be taken (a value outside the choices).
          if (isSchemaMismatch(error)) return void noAnswer({ kind: 'invalid', detail: 'the MCP client sent a value the form does not allow' });
          throw error;
        }
        if (result.action === 'decline') return void noAnswer({ kind: 'declined' });
        if (result.action !== 'accept') return void noAnswer({ kind: 'cancelled', detail: 'the MCP client cancelled the form' });
        if (result.content === undefined || !valid(result.content)) return void noAnswer({ kind: 'invalid', detail: `the MCP client sent ${preview(result.content?.[field])}` });
        return result.content;
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
      const content = await ask(text, { type: 'boolean', title: 'Approve', description: terminalSafe(title, { tabs: false }) }, FIELD.confirm, dialog, (c) => typeof c[FIELD.confirm] === 'boolean');
      // Only an explicit true is a yes; a client that sends anything else gets the safe answer.
      return content?.[FIELD.confirm] === true;
    },
    async select(title, choices, dialog = {}) {
      // The SDK checks the enum too; this check does not depend on it.
      const content = await ask(title, { type: 'string', title: 'Your answer', enum: [...choices] }, FIELD.select, dialog, (c) => typeof c[FIELD.select] === 'string' && choices.includes(c[FIELD.select] as string));
      const answer = content?.[FIELD.select];
      return typeof answer === 'string' && choices.includes(answer) ? answer : undefined;
    },
    async input(title, dialog = {}) {
      const { placeholder, ...rest } = dialog;
      const property = { type: 'string', title: 'Your answer', ...(placeholder === undefined ? {} : { description: terminalSafe(placeholder, { lineBreaks: false, tabs: false }) }) };
      const content = await ask(title, property, FIELD.input, rest, (c) => typeof c[FIELD.input] === 'string');
      const answer = content?.[FIELD.input];
      return typeof answer === 'string' ? answer : undefined;
    },
  };
}

/** A value a client sent, shortened for a reason (a buggy client could send anything). */
function preview(value: unknown): string {
  if (value === undefined) return 'no answer in the form';
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}

/** The SDK's error for an accepted form whose content does not match the requested schema. */
function isSchemaMismatch(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown };
  return e?.code === -32602 && typeof e.message === 'string' && /does not match requested schema/i.test(e.message);
}
