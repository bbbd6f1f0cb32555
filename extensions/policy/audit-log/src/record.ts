import Type, { type Static } from 'typebox';
import { HASH_PATTERN } from '@airlock/audit-format';

/**
 * The record format (version 1): one JSON object per line. The schemas are the types; verify
 * checks every line against `AuditRecord`.
 */

export const FORMAT_VERSION = 1;

const Hash = Type.String({ pattern: HASH_PATTERN });
const Outcome = Type.Union([
  Type.Literal('ok'),
  Type.Literal('error'),
  Type.Literal('not_found'),
  Type.Literal('invalid'),
  Type.Literal('denied'),
  Type.Literal('aborted'),
  Type.Literal('timeout'),
]);

/** Who decided, flattened from the kernel's DecisionSource so a grep finds it. */
export const DecisionSource = Type.Union([
  /** No vote: allowed because nothing objected. */
  Type.Object({ kind: Type.Literal('default') }),
  /** A vote that named its rule (the rule id is what people search for). */
  Type.Object({ kind: Type.Literal('rule'), rule: Type.String(), handler: Type.String() }),
  /** A vote without a rule id. */
  Type.Object({ kind: Type.Literal('handler'), handler: Type.String() }),
  /** A person answered an ask (`by: "user"`), for this call, the session or as a saved rule. */
  Type.Object({ kind: Type.Literal('user'), handler: Type.String(), scope: Type.Optional(Type.String()) }),
  /** Another approver answered (an RPC client, a rule engine …). */
  Type.Object({ kind: Type.Literal('approver'), handler: Type.String(), by: Type.Optional(Type.String()), scope: Type.Optional(Type.String()) }),
  /** An ask nobody could answer (non-interactive): denied. */
  Type.Object({ kind: Type.Literal('no-approver') }),
  /** A handler failed and its phase fails closed. */
  Type.Object({ kind: Type.Literal('handler-failure'), handler: Type.String(), phase: Type.String() }),
  /** The kernel itself: invalid arguments, an abort, a tool whose resources() failed. */
  Type.Object({ kind: Type.Literal('kernel'), reason: Type.String() }),
]);
export type DecisionSource = Static<typeof DecisionSource>;

export const Change = Type.Object({ handler: Type.String(), before: Type.Unknown(), after: Type.Unknown() });
export const VoteEntry = Type.Object({
  handler: Type.String(),
  effect: Type.Union([Type.Literal('allow'), Type.Literal('ask'), Type.Literal('deny')]),
  rule: Type.Optional(Type.String()),
  reason: Type.Optional(Type.String()),
});

/**
 * Beside each placeholder in the record (`[REDACTED:env:DEPLOY_TOKEN#1]`), the SHA-256 of the
 * secret it replaced: an auditor holding a candidate value confirms what ran; the value itself is
 * never written.
 */
const Redactions = Type.Optional(Type.Record(Type.String(), Hash));

const Common = {
  v: Type.Literal(FORMAT_VERSION),
  /** Counts records across the whole chain (all files, all runs), from 0: a gap is a deletion. */
  seq: Type.Integer({ minimum: 0 }),
  time: Type.String(),
  session: Type.String(),
  /** SHA-256 of the previous line's bytes (or GENESIS for the first record). */
  prev: Hash,
  /**
   * Set when the record was written without holding `<log>.lock`: what was wrong with the lock
   * (planted, left behind, held too long). The record is kept rather than lost; verify notes it.
   */
  lock: Type.Optional(Type.String()),
};

/** tool_call observe: the final decision on a call, before it runs. */
export const DecisionRecord = Type.Object({
  ...Common,
  type: Type.Literal('decision'),
  toolCallId: Type.String(),
  tool: Type.String(),
  args: Type.Unknown(),
  provenance: Type.Array(Change),
  resources: Type.Array(Type.Unknown()),
  decision: Type.Union([Type.Literal('allow'), Type.Literal('deny')]),
  /** The combined vote before approval; "ask" means an approver decided. */
  vote: Type.Optional(Type.Union([Type.Literal('allow'), Type.Literal('ask'), Type.Literal('deny')])),
  decision_source: DecisionSource,
  votes: Type.Array(VoteEntry),
  reason: Type.Optional(Type.String()),
  redactions: Redactions,
  /** The outcome a deny gives the call (denied, invalid, aborted, error). */
  outcome: Type.Optional(Outcome),
});
export type DecisionRecord = Static<typeof DecisionRecord>;

/** tool_result observe: how the call ended, what the model got (size and hash). */
export const ResultRecord = Type.Object({
  ...Common,
  type: Type.Literal('result'),
  toolCallId: Type.String(),
  tool: Type.String(),
  outcome: Outcome,
  isError: Type.Boolean(),
  durationMs: Type.Number({ minimum: 0 }),
  resultBytes: Type.Integer({ minimum: 0 }),
  resultSha256: Hash,
  decision: Type.Optional(Type.Union([Type.Literal('allow'), Type.Literal('deny')])),
  decision_source: Type.Optional(DecisionSource),
  /** Only for calls that never reached a decision (not found, invalid): what the model sent. */
  args: Type.Optional(Type.Unknown()),
  provenance: Type.Optional(Type.Array(Change)),
  terminate: Type.Optional(Type.Boolean()),
  /** With `storeContent: true` only. */
  content: Type.Optional(Type.Unknown()),
  redactions: Redactions,
});
export type ResultRecord = Static<typeof ResultRecord>;

/** Written at start-up after a crash cut the last line short; it names the torn bytes. */
export const RecoveryRecord = Type.Object({
  ...Common,
  type: Type.Literal('recovery'),
  torn: Type.Object({ bytes: Type.Integer({ minimum: 0 }), sha256: Hash }),
});
export type RecoveryRecord = Static<typeof RecoveryRecord>;

/** A point in the chain: a seq and the hash of that record's line. */
const ChainPoint = Type.Object({ seq: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]), hash: Hash });

/**
 * Written when a run found the log did not end where its head (kept outside the log, head.ts)
 * said: records were removed from the end, the log was deleted or replaced, or the head was
 * deleted. The chain goes on from what the log now holds, and this record keeps the evidence;
 * verify reports it as long as it is in the log.
 */
export const HeadMismatchRecord = Type.Object({
  ...Common,
  type: Type.Literal('head-mismatch'),
  /** What the head said (null: there was no head, although the log has records). */
  head: Type.Union([ChainPoint, Type.Null()]),
  /** Where the log ended (null: no records at all). `seq` is null when the last line is not a record. */
  found: Type.Union([ChainPoint, Type.Null()]),
  /** The head file. */
  headFile: Type.String(),
});
export type HeadMismatchRecord = Static<typeof HeadMismatchRecord>;

export const AuditRecord = Type.Union([DecisionRecord, ResultRecord, RecoveryRecord, HeadMismatchRecord]);
export type AuditRecord = Static<typeof AuditRecord>;

/** A record before the writer stamps it: the chain fields are the writer's job alone. */
export type RecordBody =
  | Omit<DecisionRecord, keyof typeof Common>
  | Omit<ResultRecord, keyof typeof Common>
  | Omit<RecoveryRecord, keyof typeof Common>
  | Omit<HeadMismatchRecord, keyof typeof Common>;
