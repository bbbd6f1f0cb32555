import Type, { type Static } from 'typebox';

/**
 * Asking a person: one request, one answer, whoever carries them — the terminal, an MCP client's
 * form, a JSON-RPC client, an SDK program's own UI, an approver somewhere else. The schemas are the
 * runtime check of answers that arrive as JSON from a program Airlock does not control, and the
 * static types at once.
 *
 * An answer names a choice by its `id`, never by its label: labels are words for people (they may
 * change, be reworded per folder or translated); ids are what the asker switches on.
 *
 * @example
 * const answer = await ctx.ui.ask(
 *   { kind: 'choice', title: 'Deploy where?', choices: [{ id: 'staging', label: 'Staging' }, { id: 'prod', label: 'Production' }] },
 *   { timeoutMs: 60_000, signal },
 * );
 * if ('id' in answer && answer.id === 'prod') deployToProduction();
 * else if ('noAnswer' in answer) log.info(noAnswerText(answer.noAnswer)); // from '@airlock/toolkit/util'
 */

/** One answer a person may pick. */
export const AskChoice = Type.Object({
  id: Type.String({ minLength: 1, description: 'what the answer carries and the asker switches on; unique within the ask' }),
  label: Type.String({ description: 'what the person reads' }),
});
export type AskChoice = Static<typeof AskChoice>;

/**
 * What is asked:
 * - `confirm`: yes or no; answered `{ id: 'yes' }` or `{ id: 'no' }`. Without `choices` they read
 *   "Yes" and "No"; `choices` may relabel them, but must then be exactly the ids `yes` and `no`.
 *   A terminal draws it as a y/N question on which Enter alone says no.
 * - `choice`: one of `choices` (at least one, ids unique); answered `{ id }`.
 * - `text`: a line of text; answered `{ text }`. `placeholder` is a hint drawn where the text goes.
 */
export const AskRequest = Type.Object({
  kind: Type.Union([Type.Literal('confirm'), Type.Literal('choice'), Type.Literal('text')], { description: 'the answer asked for: yes/no, one of the choices, or a line of text' }),
  title: Type.String({ description: 'the question, first line; may span lines' }),
  message: Type.Optional(Type.String({ description: 'more words under the title' })),
  choices: Type.Optional(Type.Array(AskChoice, { description: 'the answers to pick from (confirm: the ids yes and no; text: none)' })),
  placeholder: Type.Optional(Type.String({ description: 'text only: a hint drawn where the text goes, never an answer' })),
  toolCallId: Type.Optional(Type.String({ description: 'the tool call this ask is about (an approval), so an answerer can match it to the call it sees in events' })),
});
export type AskRequest = Static<typeof AskRequest>;

/**
 * Why an ask ended without an answer:
 * - `declined`: the person said no to the dialog itself (an MCP form's "decline");
 * - `invalid`: what came back was not an answer to this ask (an id that is not a choice, text for
 *   a choice, a malformed reply); it counts as no;
 * - `timeout`: nobody answered within `timeoutMs`;
 * - `cancelled`: the person dismissed it (Ctrl-C, Esc, the client's cancel);
 * - `aborted`: the caller's signal was aborted (the run stopped);
 * - `unavailable`: nobody could answer (no UI, the input ended, the client went away, the UI failed).
 * `detail` adds words for people (the value that came, the error).
 */
export const NoAnswer = Type.Union(
  [
    Type.Object({
      kind: Type.Union([Type.Literal('declined'), Type.Literal('invalid'), Type.Literal('cancelled'), Type.Literal('aborted'), Type.Literal('unavailable')]),
      detail: Type.Optional(Type.String({ description: 'words for people: the value that came, the error' })),
    }),
    Type.Object({ kind: Type.Literal('timeout'), timeoutMs: Type.Number({ minimum: 0 }) }),
  ],
  { description: 'why there is no answer; all count as no (a person or client says declined, cancelled or unavailable)' },
);
export type NoAnswer = Static<typeof NoAnswer>;

const exactly = { additionalProperties: false } as const;

/**
 * How an ask ended: exactly one of a choice's `id` (confirm, choice), the `text` typed (text), or
 * why there is `noAnswer`. An ask never rejects for a person's (or a client's) doing; every way of
 * not answering is a `noAnswer`, and callers treat it as "no".
 */
export const AskAnswer = Type.Union([
  Type.Object({ id: Type.String({ description: 'the id of the chosen choice (confirm: yes or no)' }) }, exactly),
  Type.Object({ text: Type.String({ description: 'what the person typed (text asks)' }) }, exactly),
  Type.Object({ noAnswer: NoAnswer }, exactly),
]);
export type AskAnswer = Static<typeof AskAnswer>;

export interface AskOptions {
  /** Aborting it ends the ask at once with `{ noAnswer: { kind: 'aborted' } }` (the run stopped). */
  signal?: AbortSignal;
  /** Gives up this long after the call (time waiting behind other asks included): `{ noAnswer: { kind: 'timeout' } }`. */
  timeoutMs?: number;
}

/**
 * Asking the person behind this run, whatever carries the question. Asks are shown one at a time,
 * in the order they were made. The no-op UI (no terminal, no client that answers) has
 * `interactive: false` and answers every ask `{ noAnswer: { kind: 'unavailable' } }`.
 *
 * An SDK program may pass its own (see `createAskUI` in @airlock/host): anything that answers an
 * AskRequest with an AskAnswer.
 */
export interface ToolUI {
  /** False when there is nobody to ask: every ask then ends `unavailable` at once. */
  readonly interactive: boolean;
  /**
   * Put one question to the person. Resolves with their answer or why there is none; rejects only
   * with a TypeError for a malformed request (no choices, a duplicate id …), a bug in the asker.
   */
  ask(request: AskRequest, options?: AskOptions): Promise<AskAnswer>;
}
