import type { Vote } from '@airlock/contract';
import type { Outcome } from '@airlock/contract';
import { cutForEcho } from '@airlock/toolkit/util';
import { previewJson } from '@airlock/toolkit/util';

/**
 * Every sentence the model reads about a call that did not simply succeed, in one place and in
 * outcome order. Each says what happened, whose doing it was, and what to do next — the model
 * should never have to guess whether to retry, fix its arguments, or ask the user.
 */

// ─── not_found ─────────────────────────────────────────────────────────────────────────────

const MAX_LISTED = 40;
/** A tool name is short; a longer one is shown cut, with its length and hash. */
const MAX_NAME_SHOWN = 80;

export function notFound(name: string, unavailableBecause: string | undefined, closest: readonly string[], enabled: readonly string[]): string {
  // The name comes from the model and may be anything, of any length.
  const shown = name.length === 0 ? '(no name given)' : JSON.stringify(cutForEcho(name, MAX_NAME_SHOWN));
  const lines = [unavailableBecause === undefined ? `Tool ${shown} not found.` : `Tool ${shown} is not available in this session: ${unavailableBecause}`];
  if (closest.length > 0) lines.push(`Did you mean: ${closest.join(', ')}?`);
  if (enabled.length === 0) lines.push('No tools are enabled in this session; answer without tools.');
  else {
    const more = enabled.length > MAX_LISTED ? `, … (${enabled.length - MAX_LISTED} more)` : '';
    lines.push(`Available tools: ${enabled.slice(0, MAX_LISTED).join(', ')}${more}.`);
  }
  return lines.join(' ');
}

// ─── invalid ───────────────────────────────────────────────────────────────────────────────

export function invalidArguments(tool: string, problems: readonly string[], received: unknown): string {
  return [
    `Invalid arguments for tool "${tool}":`,
    ...problems.map((p) => `  - ${cutForEcho(p)}`),
    '',
    'Received arguments:',
    previewJson(received),
    '',
    'Fix the arguments and call the tool again.',
  ].join('\n');
}

export function argumentsNotJson(tool: string, why: string, received: unknown): string {
  return `Invalid arguments for tool "${tool}": they are not valid JSON (${cutForEcho(why)}).\n\nReceived arguments:\n${previewJson(received)}\n\nSend the arguments as a JSON object and call the tool again.`;
}

export function argumentsUnreadable(tool: string, why: string, received: unknown): string {
  return `Invalid arguments for tool "${tool}": they could not be read (${cutForEcho(why)}).\n\nReceived arguments:\n${previewJson(received)}\n\nFix the arguments and call the tool again.`;
}

/** Checked before anything else reads the arguments: no walk over them can run out of stack. */
export function argumentsTooDeep(tool: string, limit: number): string {
  return (
    `Invalid arguments for tool "${tool}": objects and arrays in them nest deeper than ${limit} levels, ` +
    'more than any tool parameter needs. Flatten them (or send deep data as a string) and call the tool again.'
  );
}

/** A transform handler, not the model, produced arguments the schema rejects. */
export function invalidAfterTransform(tool: string, handlers: readonly string[], problems: readonly string[], args: unknown): string {
  const by = handlers.map((h) => `"${h}"`).join(', ');
  return [
    `Invalid arguments for tool "${tool}" after the transform handler(s) ${by} changed them:`,
    ...problems.map((p) => `  - ${cutForEcho(p)}`),
    '',
    'Arguments after the change:',
    previewJson(args),
    '',
    'Your own arguments were valid; the change was made by a handler. Tell the user if the problem persists.',
  ].join('\n');
}

// ─── denied ────────────────────────────────────────────────────────────────────────────────

function who(vote: Vote): string {
  return vote.rule === undefined ? `handler "${vote.handler}"` : `rule "${cutForEcho(vote.rule)}" (${vote.handler})`;
}

/**
 * Reasons come from handlers and often quote the call (a whole command, a path): each is cut to
 * the echo limit, so a huge argument never becomes a huge denial.
 */
function reasonOf(vote: Vote, fallback: string): string {
  return `${cutForEcho(vote.reason ?? fallback)} [${who(vote)}]`;
}

export function deniedByPolicy(tool: string, votes: readonly Vote[]): string {
  const reasons = votes.map((v) => reasonOf(v, 'no reason given'));
  return (
    `Denied by policy: the call to "${tool}" was not run. ${reasons.length === 1 ? `Reason: ${reasons[0]}` : `Reasons: ${reasons.join('; ')}`}. ` +
    'Do not retry the same call; choose another approach, or ask the user to change the policy.'
  );
}

export function noApprover(tool: string, asks: readonly Vote[]): string {
  const reasons = asks.map((v) => reasonOf(v, 'approval required')).join('; ');
  return (
    `Not run: the call to "${tool}" needs approval (${reasons}), and no approver is available (non-interactive mode). ` +
    'Ask the user to allow it (for example with an allow rule in the settings), or choose another approach.'
  );
}

/**
 * A call that was allowed at first and stopped when judged again, just before it ran, because an
 * earlier call of its batch may have changed the filesystem. Prefixes the usual sentence.
 */
export function stoppedOnRecheck(after: { toolCallId: string; toolName: string }, text: string): string {
  return (
    `The batch changed the filesystem: earlier calls of this batch may have changed files (the last of them: "${after.toolName}", ${after.toolCallId}), ` +
    `so this call was judged again just before it ran. ${text}`
  );
}

export function deniedByApprover(by: string | undefined, reason: string | undefined): string {
  const whom = by === undefined ? 'the approver' : by === 'user' ? 'the user' : by;
  return `Denied by ${cutForEcho(whom)}${reason ? `: ${cutForEcho(reason)}` : '.'} Do not retry this call unchanged; adjust your approach or ask the user.`;
}

/** The host refuses every call (a policy extension failed to load): nothing the model does helps. */
export function refusedAll(tool: string, refusal: { reason: string; fix: string }): string {
  return (
    `Not run: no tool may run in this session, so the call to "${tool}" was refused: ${refusal.reason}. ` +
    `Retrying or choosing another tool will not help; tell the user. How to fix it: ${refusal.fix}`
  );
}

export function handlerFailedClosed(phase: string, handler: string, why: string): string {
  return (
    `Not run: the ${phase} handler "${handler}" failed (${cutForEcho(why)}), and it fails closed, so the call was blocked. ` +
    'Retrying will not help until that handler is fixed; tell the user.'
  );
}

// ─── aborted and timeout ───────────────────────────────────────────────────────────────────

export function abortedBeforeStart(tool: string): string {
  return `Not run: the batch was aborted before "${tool}" could start.`;
}

export function abortedWhileRunning(tool: string, toolMessage: string): string {
  return `Aborted: the call to "${tool}" was cancelled before it finished. ${toolMessage}`.trimEnd();
}

export function timedOut(tool: string, ms: number, toolMessage: string): string {
  return `Timed out: the call to "${tool}" ran longer than ${ms} ms and was stopped. ${toolMessage}`.trimEnd();
}

/** The tool ignored its signal: the call ends anyway, and says the work may go on. */
export function didNotStop(outcome: Extract<Outcome, 'aborted' | 'timeout'>, tool: string, limitMs: number, graceMs: number): string {
  return outcome === 'timeout'
    ? `Timed out: the call to "${tool}" ran longer than ${limitMs} ms and did not stop within ${graceMs} ms of being cancelled; it may still be running.`
    : `Aborted: the call to "${tool}" was cancelled and did not stop within ${graceMs} ms; it may still be running.`;
}

// ─── error ─────────────────────────────────────────────────────────────────────────────────

export function malformedResult(tool: string, what: string): string {
  return `The tool "${tool}" returned a malformed result (${what}); this is a bug in the tool, not in your call. Tell the user.`;
}

export function resourcesThrew(why: string): string {
  return `Not run: could not work out what the call touches (the tool's resources() threw: ${cutForEcho(why)}).`;
}

export function resourcesMalformed(tool: string, problem: string): string {
  return `Not run: the tool "${tool}" declared its resources in a shape policy cannot read (${cutForEcho(problem)}); this is a bug in the tool, not in your call. Tell the user.`;
}

export function withheld(outcome: Outcome, handler: string, why: string): string {
  const ran = outcome === 'ok' ? 'The call ran, but its' : `The call ended as "${outcome}" and its`;
  return (
    `${ran} output is withheld: the redaction handler "${handler}" failed (${cutForEcho(why)}), so nothing from the output may be shown. ` +
    'Do not retry the call to see it; tell the user that redaction failed.'
  );
}

export function internalError(doing: string, tool: string, why: string): string {
  return `Internal error in Airlock while ${doing} the call to "${tool}": ${cutForEcho(why)}. This is a bug in Airlock or a host component, not in your call; tell the user.`;
}
