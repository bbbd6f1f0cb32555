import type { NoAnswer } from '../contract/ask.js';

/**
 * Why a dialog ended without an answer, in words for the model and for people; `undefined` (a UI
 * that does not say) gets a neutral wording, never a guess.
 *
 * @example
 * noAnswerText({ kind: 'declined' })              // 'the person declined the dialog'
 * noAnswerText({ kind: 'timeout', timeoutMs: 300_000 }) // 'no answer within 300 s'
 * noAnswerText(undefined)                          // 'the dialog ended without an answer (the UI did not say why)'
 */
export function noAnswerText(why: NoAnswer | undefined): string {
  const detail = why !== undefined && 'detail' in why && why.detail ? ` (${why.detail})` : '';
  switch (why?.kind) {
    case 'declined':
      return `the person declined the dialog${detail}`;
    case 'invalid':
      return `the answer was not one of the choices, so it counts as no${detail}`;
    case 'timeout':
      return `no answer within ${Math.round(why.timeoutMs / 1000)} s`;
    case 'cancelled':
      return `the dialog was cancelled${detail}`;
    case 'aborted':
      return 'the run was aborted while the dialog was open';
    case 'unavailable':
      return `nobody could answer${detail}`;
    default:
      return 'the dialog ended without an answer (the UI did not say why)';
  }
}
