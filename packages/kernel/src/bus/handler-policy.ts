import { Compile } from 'typebox/compile';
import Type from 'typebox';
import { Content } from '@airlock/contract';
import type { FailureMode, HookName, ResultPatch, Vote } from '@airlock/contract';
import type { CallState, ResultDraft } from '../state/call-state.js';
import { isStopped, stop } from '../state/call-state.js';
import { abortedBeforeStart, handlerFailedClosed, withheld } from '../wording.js';
import { cloneValue, deepFreeze, isPlainObject, isThenable, jsonEqual, MAX_VALUE_DEPTH, nestsDeeperThan } from '@airlock/toolkit/util';
import { errorMessage } from '@airlock/toolkit/util';
import type { DeadlineQueue } from './deadlines.js';
import { PHASES, type Phase } from './phases.js';
import { isEffect } from './votes.js';
import { toolCallView, toolResultView } from './views.js';

/**
 * Per-handler policy, applied in one place: the phase's skip rule, the time limit, the failure
 * mode, the frozen view, and checking and applying what the handler returned. Handlers stay plain
 * functions; everything they may and may not do is enforced here.
 */

export interface ResolvedHandler {
  hook: HookName;
  phase: string;
  /** `hook:phase`, the key of the phase record. */
  key: Phase;
  name: string;
  failure: FailureMode;
  timeoutMs: number;
  fn: (event: never) => unknown;
}

/** tapable's callback for a tapAsync tap: calling it with nothing keeps the waterfall value. */
type Done = (error?: Error | null) => void;
export type PolicedTap = (state: CallState, done: Done) => void;

/** A streamed partial result on its way through the redact handlers. */
export interface UpdateState {
  call: CallState;
  partial: { content: ResultDraft['content']; details: unknown };
  /** A redactor failed on this partial: it must not be forwarded. */
  withheld: boolean;
}
export type PolicedUpdateTap = (state: UpdateState, done: Done) => void;

const ContentArray = Compile(Type.Array(Content));

export function policeHandler(handler: ResolvedHandler, deadlines: DeadlineQueue): PolicedTap {
  const apply = APPLY[handler.key];
  const skip = SKIP[handler.key];
  const mayAbort = PHASES[handler.key].mayAbort;

  return (state, done) => {
    if (skip(state)) return done();
    if (mayAbort && state.abort.current()) {
      stop(state, 'aborted', abortedText(state));
      return done();
    }
    const event = handler.hook === 'tool_call' ? toolCallView(state, handler.key) : toolResultView(state, handler.key);
    let value: unknown;
    try {
      value = (handler.fn as (e: unknown) => unknown)(event);
    } catch (error) {
      fail(handler, state, error, false);
      return done();
    }
    if (!isThenable(value)) {
      settle(handler, state, value, apply);
      return done();
    }
    awaitHandler(handler, state, value, deadlines, mayAbort, (outcome) => {
      if (outcome.kind === 'value') settle(handler, state, outcome.value, apply);
      else if (outcome.kind === 'aborted') stop(state, 'aborted', abortedText(state));
      else if (outcome.kind === 'error') fail(handler, state, outcome.error, false);
      else fail(handler, state, undefined, true);
      done();
    });
  };
}

/** The redact handlers also see every streamed partial, so secrets never leak through updates. */
export function policeUpdateRedactor(handler: ResolvedHandler, deadlines: DeadlineQueue): PolicedUpdateTap {
  return (update, done) => {
    if (update.withheld) return done();
    const state = update.call;
    const draft: ResultDraft = {
      outcome: 'ok',
      content: update.partial.content,
      details: update.partial.details,
      usage: undefined,
      isError: false,
      terminate: false,
      patches: [],
    };
    const view = toolResultView({ ...state, result: draft }, 'tool_result:redact', true);
    const accept = (value: unknown): void => {
      const patch = checkPatch(value, REDACT_FIELDS, false);
      if (typeof patch === 'string') throw new PatchProblem(patch);
      if (patch === undefined) return;
      if ('content' in patch) update.partial.content = deepFreeze(cloneValue(patch.content!));
      if ('details' in patch) update.partial.details = deepFreeze(cloneValue(patch.details));
    };
    const failed = (error: unknown, timedOut: boolean): void => {
      update.withheld = true;
      report(handler, state, error, timedOut);
    };
    let value: unknown;
    try {
      value = (handler.fn as (e: unknown) => unknown)(view);
    } catch (error) {
      failed(error, false);
      return done();
    }
    const finish = (v: unknown): void => {
      try {
        accept(v);
      } catch (error) {
        failed(error, false);
      }
    };
    if (!isThenable(value)) {
      finish(value);
      return done();
    }
    awaitHandler(handler, state, value, deadlines, false, (outcome) => {
      if (outcome.kind === 'value') finish(outcome.value);
      else failed(outcome.kind === 'error' ? outcome.error : undefined, outcome.kind !== 'error');
      done();
    });
  };
}

type HandlerOutcome =
  | { kind: 'value'; value: unknown }
  | { kind: 'error'; error: unknown }
  | { kind: 'timeout' }
  | { kind: 'aborted' };

function awaitHandler(
  handler: ResolvedHandler,
  state: CallState,
  pending: PromiseLike<unknown>,
  deadlines: DeadlineQueue,
  mayAbort: boolean,
  finish: (outcome: HandlerOutcome) => void,
): void {
  let settled = false;
  const end = (outcome: HandlerOutcome): void => {
    if (settled) return;
    settled = true;
    deadline?.cancel();
    unwatch?.();
    finish(outcome);
  };
  const deadline = handler.timeoutMs > 0 ? deadlines.after(handler.timeoutMs, () => end({ kind: 'timeout' })) : undefined;
  // A pending approval prompt must give way to an abort at once, not at its time limit.
  const unwatch = mayAbort ? state.abort.watch(() => end({ kind: 'aborted' })) : undefined;
  if (mayAbort && state.abort.current()) end({ kind: 'aborted' });
  pending.then(
    (value) => end({ kind: 'value', value }),
    (error: unknown) => end({ kind: 'error', error }),
  );
}

function settle(handler: ResolvedHandler, state: CallState, value: unknown, apply: Apply): void {
  let problem: string | undefined;
  try {
    problem = apply(state, value, handler);
  } catch (error) {
    // Thrown while applying (a getter in the patch, say): not the kernel's words, so not a PatchProblem.
    fail(handler, state, error, false);
    return;
  }
  if (problem !== undefined) fail(handler, state, new PatchProblem(problem), false);
}

function fail(handler: ResolvedHandler, state: CallState, error: unknown, timedOut: boolean): void {
  const why = report(handler, state, error, timedOut);
  if (handler.failure === 'open') return;
  if (handler.hook === 'tool_call') {
    stop(state, 'denied', handlerFailedClosed(handler.phase, handler.name, why), { kind: 'handler-failure', handler: handler.name, phase: handler.phase });
  } else if (handler.phase === 'redact') {
    withhold(state, handler, why);
  }
}

/** Report a failure as an event and return its one-line description. */
function report(handler: ResolvedHandler, state: CallState, error: unknown, timedOut: boolean): string {
  const why = timedOut
    ? `no answer within ${handler.timeoutMs} ms; a promise that never settles? raise its timeoutMs if it needs longer`
    : handler.phase === 'redact'
      ? redactorError(error)
      : errorMessage(error) + frozenHint(error);
  state.events.emit({
    type: 'hook_failure',
    toolCallId: state.call.id,
    hook: handler.hook,
    phase: handler.phase,
    handler: handler.name,
    failure: handler.failure,
    error: why,
    timedOut,
  });
  return why;
}

/**
 * A redactor's error without its message: one about the text it failed on may quote that text
 * (JSON.parse does), and this line goes to the model and to every event observer. The kernel's
 * own complaints about a patch (which never quote content) are kept.
 */
function redactorError(error: unknown): string {
  if (error instanceof PatchProblem) return error.message;
  const name = error instanceof Error ? error.name : typeof error;
  return `it threw ${name}; the message is not shown, as it may quote the output being redacted — reproduce the call with the handler under a debugger`;
}

/** A handler's return value the kernel refused: its message is the kernel's own words. */
class PatchProblem extends Error {}

function frozenHint(error: unknown): string {
  return error instanceof TypeError && /read[- ]only|not extensible|frozen/i.test(error.message)
    ? ' — handlers get frozen values: return new arguments or a patch instead of changing them in place'
    : '';
}

/**
 * A redactor failed: nothing it was meant to scrub may go on, so content and details go. A call
 * that ran becomes `error` (the model must not take "withheld" for a success); any other outcome
 * already says the call did not succeed, and stays.
 */
function withhold(state: CallState, handler: ResolvedHandler, why: string): void {
  const result = state.result!;
  result.content = deepFreeze([{ type: 'text', text: withheld(result.outcome, handler.name, why) }]);
  result.details = undefined;
  result.isError = true;
  if (result.outcome === 'ok') result.outcome = 'error';
  result.patches.push({ handler: handler.name, phase: 'redact', fields: ['content', 'details', 'isError', 'outcome'] });
}

function abortedText(state: CallState): string {
  return abortedBeforeStart(state.call.name);
}

/** Apply a handler's return value; return a problem description if it is not allowed. */
type Apply = (state: CallState, value: unknown, handler: ResolvedHandler) => string | undefined;

const NO_VALUE_EXPECTED: Apply = () => undefined;

const REDACT_FIELDS = ['content', 'details'] as const;
const TRANSFORM_FIELDS = ['content', 'details', 'isError', 'terminate'] as const;

const APPLY: Record<Phase, Apply> = {
  'tool_call:transform'(state, value, handler) {
    if (value === undefined) return undefined;
    if (!isPlainObject(value)) {
      return `it returned ${describe(value)}; a transform handler returns ${PHASES['tool_call:transform'].returns}`;
    }
    if (nestsDeeperThan(value, MAX_VALUE_DEPTH)) return `it returned arguments nested deeper than ${MAX_VALUE_DEPTH} levels`;
    const before = state.args!;
    if (value === before || jsonEqual(before, value)) return undefined;
    const after = deepFreeze(cloneValue(value));
    state.provenance.push(Object.freeze({ handler: handler.name, before, after }));
    state.args = after;
    return undefined;
  },
  'tool_call:authorize'(state, value, handler) {
    if (value === undefined) return undefined;
    if (!isPlainObject(value) || !isEffect(value.effect) || !optionalString(value.reason) || !optionalString(value.rule)) {
      return `it returned ${describe(value)}; an authorize handler returns ${PHASES['tool_call:authorize'].returns}`;
    }
    const hosts = value.hosts === undefined ? undefined : voteHosts(value.hosts);
    if (typeof hosts === 'string') return hosts;
    const vote: Vote = { effect: value.effect, handler: handler.name };
    if (typeof value.reason === 'string') vote.reason = value.reason;
    if (typeof value.rule === 'string') vote.rule = value.rule;
    if (hosts !== undefined && hosts.length > 0) vote.hosts = hosts;
    state.votes.push(Object.freeze(vote));
    return undefined;
  },
  'tool_call:approve'(state, value, handler) {
    if (value === undefined) return undefined;
    if (!isPlainObject(value) || (value.effect !== 'allow' && value.effect !== 'deny') || !optionalString(value.reason) || !optionalString(value.by)) {
      return `it returned ${describe(value)}; an approve handler returns ${PHASES['tool_call:approve'].returns}`;
    }
    const scope = value.scope;
    if (scope !== undefined && scope !== 'once' && scope !== 'session' && scope !== 'persisted') {
      return `its scope ${describe(scope)} is not one of "once", "session", "persisted"`;
    }
    state.approval = Object.freeze({ ...(value as object), handler: handler.name }) as CallState['approval'];
    return undefined;
  },
  'tool_call:observe': NO_VALUE_EXPECTED,
  'tool_result:redact': (state, value, handler) => applyPatch(state, value, handler, REDACT_FIELDS),
  'tool_result:transform': (state, value, handler) => applyPatch(state, value, handler, TRANSFORM_FIELDS),
  'tool_result:observe': NO_VALUE_EXPECTED,
};

const SKIP: Record<Phase, (state: CallState) => boolean> = {
  // A re-check judges the arguments that were already approved; transforms do not run twice.
  'tool_call:transform': (state) => isStopped(state) || state.recheck !== undefined,
  'tool_call:authorize': isStopped,
  // A dry run reports the ask instead of asking, and no observer hears of a call that never runs.
  'tool_call:approve': (state) => isStopped(state) || state.effect !== 'ask' || state.approval !== undefined || state.dryRun,
  'tool_call:observe': (state) => state.dryRun,
  'tool_result:redact': () => false,
  'tool_result:transform': () => false,
  'tool_result:observe': () => false,
};

function applyPatch(state: CallState, value: unknown, handler: ResolvedHandler, fields: readonly string[]): string | undefined {
  const patch = checkPatch(value, fields, handler.phase !== 'redact');
  if (typeof patch === 'string') return patch;
  if (patch === undefined) return undefined;
  const result = state.result!;
  const changed: string[] = [];
  if ('content' in patch) {
    result.content = deepFreeze(cloneValue(patch.content!));
    changed.push('content');
  }
  // `in`, not `??`: a handler may clear details by returning {details: undefined}.
  if ('details' in patch) {
    result.details = deepFreeze(cloneValue(patch.details));
    changed.push('details');
  }
  if ('isError' in patch) {
    result.isError = patch.isError!;
    changed.push('isError');
  }
  if ('terminate' in patch) {
    result.terminate = patch.terminate!;
    changed.push('terminate');
  }
  if (changed.length > 0) result.patches.push({ handler: handler.name, phase: handler.phase, fields: changed });
  return undefined;
}

/** `quote: false` for redactors: a string they returned may be the very output they were to scrub. */
function checkPatch(value: unknown, fields: readonly string[], quote = true): ResultPatch | string | undefined {
  if (value === undefined) return undefined;
  const expected = `{${fields.map((f) => `${f}?`).join(', ')}}, or undefined to keep the result`;
  if (!isPlainObject(value)) return `it returned ${describe(value, quote)}; expected ${expected}`;
  if (nestsDeeperThan(value, MAX_VALUE_DEPTH)) return `it returned a patch nested deeper than ${MAX_VALUE_DEPTH} levels`;
  const extra = Object.keys(value).filter((k) => !fields.includes(k));
  if (extra.length > 0) return `it returned the field(s) ${extra.join(', ')}, which this phase may not change; expected ${expected}`;
  if ('content' in value && !ContentArray.Check(value.content)) {
    return 'its content is not an array of {type: "text", text} and {type: "image", data, mimeType} blocks';
  }
  for (const flag of ['isError', 'terminate']) {
    if (flag in value && typeof value[flag] !== 'boolean') return `its ${flag} is ${describe(value[flag], quote)}, not a boolean`;
  }
  return value as ResultPatch;
}

/** At most this many hosts per vote: a command naming more is one a person should read anyway. */
const MAX_VOTE_HOSTS = 64;
/** A host name or an IP address (v6 without brackets), as the sandbox's proxy compares them. */
const HOST = /^(?:[a-z0-9_](?:[a-z0-9_-]{0,62})(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}))*\.?|[0-9a-f:.]+)$/;

/**
 * A vote's hosts, lower-cased and deduplicated, or why they are refused. Patterns are refused: a
 * vote opens exactly the hosts it judged, and a wildcard is a rule's job.
 */
function voteHosts(value: unknown): readonly string[] | string {
  if (!Array.isArray(value) || value.length > MAX_VOTE_HOSTS) return `its hosts ${describe(value)} is not a list of at most ${MAX_VOTE_HOSTS} host names`;
  const out = new Set<string>();
  for (const item of value) {
    const host = typeof item === 'string' ? item.toLowerCase() : undefined;
    if (host === undefined || host.length > 253 || !HOST.test(host)) return `its hosts list holds ${describe(item)}, which is not a host name or IP address (no patterns, ports or URLs)`;
    out.add(host.endsWith('.') ? host.slice(0, -1) : host);
  }
  return Object.freeze([...out]);
}

function optionalString(value: unknown): boolean {
  return value === undefined || typeof value === 'string';
}

function describe(value: unknown, quote = true): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string' && !quote) return `a string of ${value.length} characters`;
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'object') return `an object with keys ${Object.keys(value).join(', ') || '(none)'}`;
  return `${typeof value} ${String(value)}`;
}
