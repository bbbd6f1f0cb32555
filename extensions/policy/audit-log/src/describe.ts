import type { ArgsChange, ToolCallEvent, ToolResultEvent, Vote } from '@airlock/contract';
import { boundedCopy, finishCuts } from './bound.js';
import { canonicalJson, sha256Hex } from '@airlock/audit-format';
import { toAuditSource } from './decision-source.js';
import type { AuditRedactor } from './redact.js';
import type { DecisionRecord, ResultRecord } from './record.js';

/**
 * Turns hook events into record bodies. Everything that came from outside (arguments, what
 * transforms made of them, reasons, content) is redacted here, before it can reach the writer.
 */

type DecisionBody = Omit<DecisionRecord, 'v' | 'seq' | 'time' | 'session' | 'prev'>;
type ResultBody = Omit<ResultRecord, 'v' | 'seq' | 'time' | 'session' | 'prev'>;

export function describeDecision(event: ToolCallEvent, redact: AuditRedactor): DecisionBody {
  const decision = event.decision;
  return withDigests(redact, {
    type: 'decision',
    toolCallId: cut(event.toolCallId),
    tool: cut(event.toolName),
    args: kept(event.args, redact),
    provenance: provenance(event.provenance, redact),
    resources: kept(event.resources, redact) as unknown[],
    // The kernel always settles a decision before observe; a missing one would be a kernel bug,
    // and recording it as a deny keeps the log from ever claiming an allow it did not see.
    decision: decision?.effect ?? 'deny',
    // The combined vote only means something when someone voted ("allow" with no votes is the default).
    ...(event.effect === undefined || event.votes.length === 0 ? {} : { vote: event.effect }),
    decision_source: decision === undefined ? { kind: 'kernel', reason: 'error' } : toAuditSource(decision.source),
    votes: (decision?.votes ?? event.votes).map((v) => vote(v, redact)),
    ...(decision?.reason === undefined ? {} : { reason: keptText(decision.reason, redact) }),
    ...(decision?.effect === 'deny' ? { outcome: decision.outcome } : {}),
  });
}

/** The body with `redactions` (placeholder → SHA-256 of what it replaced) when it holds any placeholder. */
function withDigests<B extends DecisionBody | ResultBody>(redact: AuditRedactor, body: B): B {
  const digests = redact.digests(body);
  return Object.keys(digests).length === 0 ? body : { ...body, redactions: digests };
}

export interface ResultOptions {
  storeContent: boolean;
  /** The call had no decision record (it ended before the tool_call hook): carry its arguments here. */
  withArgs: boolean;
}

export function describeResult(event: ToolResultEvent, redact: AuditRedactor, options: ResultOptions): ResultBody {
  // The hash covers what the model got: the content after redaction and transforms.
  const json = canonicalJson(event.content);
  const decision = event.decision;
  // A call whose arguments never validated has no final ones: then what the model sent.
  const args = event.args ?? event.rawArgs;
  return withDigests(redact, {
    type: 'result',
    toolCallId: cut(event.toolCallId),
    tool: cut(event.toolName),
    outcome: event.outcome,
    isError: event.isError,
    durationMs: Math.round(event.durationMs * 1000) / 1000,
    resultBytes: Buffer.byteLength(json),
    resultSha256: sha256Hex(json),
    ...(decision === undefined ? {} : { decision: decision.effect, decision_source: toAuditSource(decision.source) }),
    ...(options.withArgs && args !== undefined ? { args: kept(args, redact) } : {}),
    ...(options.withArgs && event.provenance.length > 0 ? { provenance: provenance(event.provenance, redact) } : {}),
    ...(event.terminate ? { terminate: true } : {}),
    ...(options.storeContent ? { content: kept(event.content, redact) } : {}),
  });
}

function provenance(changes: readonly ArgsChange[], redact: AuditRedactor): DecisionRecord['provenance'] {
  return changes.map((c) => ({ handler: c.handler, before: kept(c.before, redact), after: kept(c.after, redact) }));
}

function vote(v: Vote, redact: AuditRedactor): DecisionRecord['votes'][number] {
  return {
    handler: v.handler,
    effect: v.effect,
    ...(v.rule === undefined ? {} : { rule: keptText(v.rule, redact) }),
    ...(v.reason === undefined ? {} : { reason: keptText(v.reason, redact) }),
  };
}

/**
 * What a record keeps of a value from outside: a JSON copy (events are deep-frozen and may hold
 * values JSON cannot keep) with long strings cut (bound.ts), then redacted.
 */
function kept(value: unknown, redact: AuditRedactor): unknown {
  return finishCuts(redact.value(boundedCopy(value)));
}

/** The same for one string: reasons quote the call (the denial of a 2 MB command names the command). */
function keptText(text: string, redact: AuditRedactor): string {
  return kept(text, redact) as string;
}

/**
 * The tool name and call id come from the model, so they are cut like any other string; they are
 * not redacted, because they join a call's records (a random-looking id is not a secret).
 */
function cut(text: string): string {
  return finishCuts(boundedCopy(text)) as string;
}
