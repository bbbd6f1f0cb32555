/**
 * Airlock's asks (the approval prompt above all) put to the person behind an MCP client, as MCP
 * form elicitations. Only when the client declared the `elicitation` capability: otherwise the UI
 * says it is not interactive, and the approval extension applies the non-interactive rule (deny,
 * naming the rule that would allow the call).
 *
 * This file only draws the form and reads it back; the host's ask path (createAskUI) does the rest,
 * as for every transport: one form at a time, the time limit, the abort, and the check of the
 * answer against the ask's choices. A decline, a cancel, a timeout, an abort or a broken connection
 * all read as "no", and the asker learns which from the answer's `noAnswer`.
 *
 * One form per ask, with one field:
 * - confirm: a boolean (`approve`), true is yes;
 * - choice: a string (`choice`) whose values are the choices' ids, each titled with its label;
 * - text: a string (`text`), the placeholder as its description.
 * The form is sent with the SDK's plain `request`, not `elicitInput`: `elicitInput` checks the
 * content against the form itself and throws an error that says only "does not match", where the
 * ask path's check says what came and names the choices.
 *
 * The form's message, descriptions and labels go through `terminalSafe` as the terminal UI shows
 * them (a client may print them to a terminal); the ids go verbatim, since the answer names one.
 */
import { createAskUI, type DialogShowContext } from '@airlock/host';
import type { AskAnswer, AskRequest, ToolUI } from '@airlock/contract';
import { terminalSafe } from '@airlock/toolkit/display';
import { describeReceived } from '@airlock/toolkit/util';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';

type Elicitor = Pick<Server, 'getClientCapabilities' | 'request'>;

/** A ToolUI that can be handed to `openHost` before the MCP server it asks through exists. */
export interface ElicitationUI extends ToolUI {
  /** Ask through this server from now on (its client's capabilities decide `interactive`). */
  attach(server: Elicitor): void;
}

export interface ElicitationUIOptions {
  /** Problems asking (a form the client fails to answer); default: a line on stderr. */
  log?: (line: string) => void;
}

/** setTimeout's ceiling: the SDK's request timeout must be a timer value. */
const NO_DEADLINE_MS = 2 ** 31 - 1;

/** How much later than the ask's deadline the SDK's own request timeout fires. */
const SDK_MARGIN_MS = 1000;

/** The form's one field, per kind of ask. */
const FIELD = { confirm: 'approve', choice: 'choice', text: 'text' } as const;

/**
 * @example
 * const ui = createElicitationUI();
 * const host = await openHost({ cwd, interactive: false, ui });
 * const mcp = createMcpServer(host, { ui });   // attaches the UI to its server
 */
export function createElicitationUI(options: ElicitationUIOptions = {}): ElicitationUI {
  const log = options.log ?? ((line: string) => void process.stderr.write(`airlock: ${terminalSafe(line, { lineBreaks: false, tabs: false })}\n`));
  let server: Elicitor | undefined;

  async function show(request: AskRequest, { signal, deadline }: DialogShowContext): Promise<AskAnswer> {
    const target = server;
    if (target === undefined) return { noAnswer: { kind: 'unavailable', detail: 'no MCP client is connected' } };
    const field = FIELD[request.kind];
    const message = terminalSafe(request.message ? `${request.title}\n${request.message}` : request.title, { tabs: false });
    // The ask path's timer ends the ask (and says "no answer within N s"); the SDK's limit is a
    // second later, so it never wins the race and reads as a failed dialog.
    const timeout = deadline === undefined ? NO_DEADLINE_MS : Math.min(NO_DEADLINE_MS, Math.max(1, deadline - Date.now()) + SDK_MARGIN_MS);
    const result = await target.request(
      { method: 'elicitation/create', params: { mode: 'form', message, requestedSchema: { type: 'object', properties: { [field]: property(request) }, required: [field] } } },
      ElicitResultSchema,
      { signal, timeout },
    );
    if (result.action === 'decline') return { noAnswer: { kind: 'declined' } };
    if (result.action !== 'accept') return { noAnswer: { kind: 'cancelled', detail: 'the MCP client cancelled the form' } };
    const value = result.content?.[field];
    if (request.kind === 'confirm' && typeof value === 'boolean') return { id: value ? 'yes' : 'no' };
    if (request.kind === 'choice' && typeof value === 'string') return { id: value };
    if (request.kind === 'text' && typeof value === 'string') return { text: value };
    return { noAnswer: { kind: 'invalid', detail: `the MCP client sent ${describeReceived(value)} in the form's ${field} field` } };
  }

  const ui = createAskUI(
    {
      get interactive() {
        return server?.getClientCapabilities()?.elicitation?.form !== undefined;
      },
      get nobody() {
        return server === undefined ? 'no MCP client is connected' : 'the MCP client cannot show forms (it did not declare the elicitation capability)';
      },
      show,
    },
    { onError: (error) => log(`elicitation: ${error instanceof Error ? error.message : String(error)}`) },
  );

  return {
    get interactive() {
      return ui.interactive;
    },
    ask: (request, o) => ui.ask(request, o),
    attach(next) {
      server = next;
    },
  };
}

/** The form field that asks `request`. */
function property(request: AskRequest): Record<string, unknown> {
  const line = (text: string): string => terminalSafe(text, { lineBreaks: false, tabs: false });
  switch (request.kind) {
    case 'confirm':
      return { type: 'boolean', title: 'Approve', description: terminalSafe(request.title, { tabs: false }) };
    case 'choice': {
      const choices = request.choices ?? [];
      // `enum` with `enumNames`: the titled form every client version of the spec accepts.
      return { type: 'string', title: 'Your answer', enum: choices.map((choice) => choice.id), enumNames: choices.map((choice) => line(choice.label)) };
    }
    case 'text':
      return { type: 'string', title: 'Your answer', ...(request.placeholder === undefined ? {} : { description: line(request.placeholder) }) };
  }
}
