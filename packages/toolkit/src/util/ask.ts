import { Compile } from 'typebox/compile';
import { AskAnswer, AskRequest, type AskChoice } from '@airlock/contract';
import { schemaProblemLines } from './schema-problems.js';

/**
 * The one place an ask and its answer are checked. Every transport (terminal, JSON-RPC, MCP, the
 * no-op UI) shows what `askToShow` returns and hands whatever came back to `checkAnswer`, so a
 * choice is never matched, and a client's reply never judged, in two different ways.
 */

/** A confirm's answers when the asker does not relabel them. */
export const YES_NO: readonly AskChoice[] = Object.freeze([Object.freeze({ id: 'yes', label: 'Yes' }), Object.freeze({ id: 'no', label: 'No' })]);

/** Words a client sends with its reason for no answer are cut here: they end up in the model's result. */
const MAX_DETAIL_CHARS = 300;

const compile = () => ({ request: Compile(AskRequest), answer: Compile(AskAnswer) });
let checks: ReturnType<typeof compile> | undefined;
/** Compiled on the first ask: most runs never ask anything. */
const compiled = () => (checks ??= compile());

/**
 * What is wrong with an ask, in words, or undefined when it can be put to a person.
 *
 * @example askProblem({ kind: 'choice', title: 'Pick', choices: [] }) // 'a choice ask needs at least one choice'
 */
export function askProblem(request: unknown): string | undefined {
  if (!compiled().request.Check(request)) return schemaProblemLines(AskRequest, request).join('; ');
  const { kind, choices } = request;
  if (kind === 'text') return choices === undefined ? undefined : 'a text ask takes no choices';
  if (kind === 'choice' && (choices === undefined || choices.length === 0)) return 'a choice ask needs at least one choice';
  const ids = new Set<string>();
  for (const choice of choices ?? []) {
    if (ids.has(choice.id)) return `the choice id ${JSON.stringify(choice.id)} appears twice`;
    ids.add(choice.id);
  }
  if (kind === 'confirm' && choices !== undefined && !(ids.size === 2 && ids.has('yes') && ids.has('no'))) {
    return 'a confirm ask\'s choices must be exactly the ids "yes" and "no" (or left out)';
  }
  return undefined;
}

/**
 * The ask as transports show it: checked, and a confirm's choices filled in, so every choice a
 * person can pick is in `choices` (a client that does not know `confirm` can still draw it).
 * Throws a TypeError for a malformed ask: that is a bug in the asker, not a question for a person.
 *
 * @example askToShow({ kind: 'confirm', title: 'Trust it?' }).choices // [{ id: 'yes', label: 'Yes' }, { id: 'no', label: 'No' }]
 */
export function askToShow(request: AskRequest): AskRequest {
  const problem = askProblem(request);
  if (problem !== undefined) throw new TypeError(`This ask cannot be shown: ${problem}.`);
  return request.kind === 'confirm' && request.choices === undefined ? { ...request, choices: YES_NO.map((choice) => ({ ...choice })) } : request;
}

/**
 * What came back (a person's pick, a client's reply, a form's content mapped by its transport) as
 * the answer to `request`: a choice's id, text for a text ask, or the reason there is none, as it
 * came. Anything else counts as no: `{ noAnswer: { kind: 'invalid', detail } }`, the detail saying
 * what came and what would have been taken.
 *
 * @example
 * checkAnswer(ask, { id: 'forever' }) // { noAnswer: { kind: 'invalid', detail: 'got "forever"; the choices are "once", "deny"' } }
 */
export function checkAnswer(request: AskRequest, value: unknown): AskAnswer {
  if (!compiled().answer.Check(value)) return invalid(`got ${preview(value)}, which is not an answer; expected ${expected(request)}`);
  if ('noAnswer' in value) {
    const why = value.noAnswer;
    return 'detail' in why && why.detail !== undefined && why.detail.length > MAX_DETAIL_CHARS ? { noAnswer: { ...why, detail: `${why.detail.slice(0, MAX_DETAIL_CHARS)}…` } } : value;
  }
  if ('text' in value) return request.kind === 'text' ? value : invalid(`got text (${preview(value.text)}) for a question with choices; expected ${expected(request)}`);
  if (request.kind === 'text') return invalid(`got the id ${preview(value.id)} for a question that asks for text; expected ${expected(request)}`);
  const ids = (askToShow(request).choices ?? []).map((choice) => choice.id);
  return ids.includes(value.id) ? value : invalid(`got ${preview(value.id)}; the choices are ${idList(ids)}`);
}

function invalid(detail: string): AskAnswer {
  return { noAnswer: { kind: 'invalid', detail } };
}

function expected(request: AskRequest): string {
  if (request.kind === 'text') return '{"text": "…"} or {"noAnswer": {"kind": …}}';
  return `{"id": ${idList((askToShow(request).choices ?? []).map((choice) => choice.id), ' or ')}} or {"noAnswer": {"kind": …}}`;
}

/** At most ten ids, quoted: the rest are counted. */
function idList(ids: readonly string[], last = ', '): string {
  const quoted = ids.slice(0, 10).map((id) => preview(id));
  const more = ids.length > 10 ? ` and ${ids.length - 10} more` : '';
  return quoted.length <= 1 ? `${quoted.join('')}${more}` : `${quoted.slice(0, -1).join(', ')}${last}${quoted.at(-1)}${more}`;
}

/** A value that came from outside, shortened for a reason (a buggy client could send anything). */
function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}
