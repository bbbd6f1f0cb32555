import type { Content, Outcome, PreflightReport, ToolCall, ToolResultMessage } from '@airlock/contract';
import { toolCallsOf, type AssistantToolCall, type Message } from '../messages.js';
import { recordedOrigin } from '../session/extensions.js';
import type { SessionExtension } from '../session/records.js';
import type { ReplayRunner } from './runner.js';

/**
 * What the current policy and tools make of one recorded call:
 * - `allow` the call would run (its tool is not `replay: "safe"`, so it was only judged);
 * - `ask`   a person or an approver would be asked first;
 * - `deny`  it would be refused (see `outcomeNow`, `handler`, `rule`, `reason`);
 * - `same`  a `replay: "safe"` tool ran again and gave the recorded result;
 * - `different` it ran again and its text or its outcome differs (see `difference`);
 * - `unavailable` its tool is not here, and the session's header says which extension brought it
 *   (see `origin`): the call cannot be judged, which is not the same as a decision that changed.
 */
export type ReplayVerdict = 'allow' | 'ask' | 'deny' | 'same' | 'different' | 'unavailable';

export interface ReplayRow {
  /** Position among the transcript's tool calls, from 1. */
  readonly index: number;
  readonly toolCallId: string;
  readonly tool: string;
  /** The recorded arguments (as the transcript holds them: redacted). */
  readonly args: unknown;
  /** What the recorded call ended with; `none` when the transcript holds no result for it. */
  readonly recorded: Outcome | 'none';
  readonly now: ReplayVerdict;
  /** The outcome the call gets now (`ok` for allow and ask). */
  readonly outcomeNow: Outcome;
  /** The decision differs from the recorded one (what `--strict` fails on). */
  readonly changed: boolean;
  /** The call ran again (only `replay: "safe"` tools the policy allows). */
  readonly executed: boolean;
  /** Who decided a deny or an allow, or asked: the handler and its rule. */
  readonly handler?: string;
  readonly rule?: string;
  readonly reason?: string;
  /** For `different`: which part differs. */
  readonly difference?: { readonly outcome: boolean; readonly text: boolean };
  /** For `unavailable`: the recorded extension that registered the tool. */
  readonly origin?: SessionExtension;
}

export interface ReplayReport {
  readonly calls: number;
  readonly changed: number;
  /** Calls whose tool is not loaded now although the recording names its extension (`unavailable`). */
  readonly unavailable: number;
  readonly rows: readonly ReplayRow[];
}

export interface ReplayOptions {
  /** Stops between calls; the rows so far are returned. */
  signal?: AbortSignal;
}

/** What replay reads of a transcript: its messages, and its header when there is one. */
export interface ReplaySource {
  readonly messages: readonly Message[];
  readonly header?: { readonly id: string; readonly extensions?: readonly SessionExtension[] };
}

/**
 * The id a call runs again under: the recorded id, marked as a replay of that session, so the
 * audit records the run writes are never taken for the recorded call's own.
 *
 * @example replayCallId('20261202T011500123Z-3f9a1c', 'call_1') // 'replay:20261202T011500123Z-3f9a1c:call_1'
 */
export function replayCallId(session: string | undefined, id: string): string {
  return `replay:${session === undefined ? '' : `${session}:`}${id}`;
}

/** Outcomes of calls that got past the policy (the tool ran, whatever it returned). */
const RAN: ReadonlySet<string> = new Set(['ok', 'error', 'timeout', 'aborted']);

/**
 * Run a transcript's recorded tool calls through the current extensions. Every call is judged
 * again by the current policy through the kernel's preflight (nothing runs, nobody is asked);
 * a call whose tool declares `replay: "safe"` and that the policy now allows runs again, and its
 * result is compared with the recorded one. Nothing else is executed.
 *
 * A call counts as changed when the policy's decision differs from what happened then: it ran
 * then and would now be denied or asked; it was refused then and would now run; it was refused
 * then for another reason; or it ran again and its result differs. An ask that nobody answers is
 * a deny, so a call denied then and asked now is not a change.
 *
 * @example
 * const report = await replay(loadTranscript(path), kernelReplayRunner(host.kernel, { tools: host.selection }));
 * for (const row of report.rows.filter((r) => r.changed)) console.log(row.tool, row.now, row.reason);
 */
export async function replay(transcript: ReplaySource, runner: ReplayRunner, options: ReplayOptions = {}): Promise<ReplayReport> {
  const results = new Map<string, ToolResultMessage>();
  for (const m of transcript.messages) if (m.role === 'toolResult') results.set(m.toolCallId, m);
  const calls = transcript.messages.flatMap((m) => (m.role === 'assistant' ? toolCallsOf(m) : []));
  const rows: ReplayRow[] = [];
  for (const [i, call] of calls.entries()) {
    if (options.signal?.aborted) break;
    rows.push(await replayCall(i + 1, call, results.get(call.id), runner, transcript.header));
  }
  return { calls: calls.length, changed: rows.filter((r) => r.changed).length, unavailable: rows.filter((r) => r.now === 'unavailable').length, rows };
}

async function replayCall(index: number, call: AssistantToolCall, recordedResult: ToolResultMessage | undefined, runner: ReplayRunner, header: ReplaySource['header']): Promise<ReplayRow> {
  const toolCall: ToolCall = { id: replayCallId(header?.id, call.id), name: call.name, arguments: call.arguments };
  const recorded: Outcome | 'none' = recordedResult?.outcome ?? 'none';
  const ranThen = recorded === 'none' || RAN.has(recorded);
  const report = await runner.preflight(toolCall);
  const base = { index, toolCallId: call.id, tool: report.toolName, args: call.arguments, recorded, ...decider(report) };
  const origin = report.outcome === 'not_found' && recorded !== 'not_found' ? recordedOrigin(header?.extensions, call.name) : undefined;
  if (origin !== undefined) {
    const where = origin.from === 'code' ? 'code passed to createAirlock by the program that recorded the session' : 'a settings entry';
    const reason = `the tool came from the extension "${origin.name}" (${where}), which is not loaded here`;
    return { ...base, now: 'unavailable', outcomeNow: 'not_found', changed: false, executed: false, origin, reason };
  }
  if (report.effect === 'deny') {
    return { ...base, now: 'deny', outcomeNow: report.outcome, changed: ranThen || recorded !== report.outcome, executed: false };
  }
  if (report.effect === 'ask') return { ...base, now: 'ask', outcomeNow: 'ok', changed: ranThen, executed: false };
  if (runner.tool(report.toolName)?.replay !== 'safe') return { ...base, now: 'allow', outcomeNow: 'ok', changed: !ranThen, executed: false };

  const result = await runner.execute(toolCall);
  const now = { ...base, outcomeNow: result.outcome, executed: true };
  // Refused then, allowed now: the change is the decision; there is no recorded result to compare.
  if (recordedResult === undefined || !ranThen) return { ...now, now: 'allow', changed: !ranThen };
  const normalize = runner.normalize ?? ((text: string) => text);
  const difference = {
    outcome: result.outcome !== recordedResult.outcome,
    text: comparable(result.content, normalize) !== comparable(recordedResult.content, normalize),
  };
  const differs = difference.outcome || difference.text;
  return differs ? { ...now, now: 'different', changed: true, difference } : { ...now, now: 'same', changed: false };
}

/**
 * The handler, rule and reason behind a report: the deciding vote (its own reason, not the text
 * the model would read), or the first vote that asked; for a kernel decision, its reason.
 */
function decider(report: PreflightReport): { handler?: string; rule?: string; reason?: string } {
  const source = report.source;
  const vote =
    report.effect === 'ask'
      ? report.asks[0]
      : source?.kind === 'vote'
        ? report.votes.find((v) => v.handler === source.handler && v.rule === source.rule && v.effect === report.effect)
        : undefined;
  const handler = vote?.handler ?? (source !== undefined && 'handler' in source ? source.handler : source?.kind);
  const rule = vote?.rule ?? (source?.kind === 'vote' ? source.rule : undefined);
  const reason = vote?.reason ?? report.reason;
  return { ...(handler === undefined ? {} : { handler }), ...(rule === undefined ? {} : { rule }), ...(reason === undefined ? {} : { reason }) };
}

/**
 * A result's content as compared: text as the model read it, images by their bytes. A redaction
 * placeholder (`[REDACTED:github-token#2]`, `[REDACTED:env:DEPLOY_TOKEN#1]`) counts as "a secret
 * was withheld here", whatever found it: the number is the order a run first met each secret in,
 * which a replay of part of a session does not repeat, and the detector depends on the environment
 * (a token that was also the value of a secret variable then is named by its format now).
 */
function comparable(content: readonly Content[], normalize: (text: string) => string): string {
  return JSON.stringify(
    content.map((block) =>
      block.type === 'text' ? { text: normalize(block.text).replace(/\[REDACTED:[^\]\s]+#\d+\]/g, '[REDACTED]') } : { image: block.mimeType, data: block.data },
    ),
  );
}
