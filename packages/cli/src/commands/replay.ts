import { extensionDifferences, kernelReplayRunner, loadTranscript, replay, SessionError, sessionExtensions, type LoadedTranscript, type ReplayReport, type ReplayRow } from '@airlock/agent';
import { countOf, displayText, displayValue } from '@airlock/toolkit/display';
import { table } from '../format.js';
import { EXIT, UsageError, type IO } from '../io.js';
import type { GlobalOptions } from '../global-options.js';
import { openSession } from '../session.js';
import { reportDiagnostics } from './diagnostics.js';
import { withInterrupt } from './interrupt.js';
import { sessionQuery, transcriptPath } from './session-query.js';

export interface ReplayArgs {
  session: string;
  strict?: boolean;
}

/**
 * `airlock replay <session>`: a recorded session's tool calls judged by today's settings and
 * extensions. Calls of `replay: "safe"` tools the policy allows run again and their results are
 * compared; every other call is only judged (kernel preflight), never run. Prints what would now
 * be denied, asked, allowed where it was refused, or different; `--strict` exits 1 on any change.
 */
export async function replayCommand(a: ReplayArgs, g: GlobalOptions, io: IO): Promise<number> {
  const query = sessionQuery(g, io);
  const path = transcriptPath(a.session, query);
  const transcript = readTranscript(path);
  // Relative paths in the calls resolve against the folder the replay runs in, not the recorded one.
  if (transcript.header.cwd !== query.cwd)
    io.stderr.write(`airlock: this session ran in ${displayText(transcript.header.cwd, { maxChars: 300 })}; its calls are judged as if made in ${displayText(query.cwd, { maxChars: 300 })} (use --cwd to judge them there).\n`);
  for (const warning of transcript.warnings) io.stderr.write(`airlock: ${displayText(warning, { maxChars: 500 })}\n`);
  const withheld = transcript.entries.filter((e) => e.type === 'withheld').length;
  if (withheld > 0)
    io.stderr.write(`airlock: ${countOf(withheld, 'message')} of this session withheld from the transcript (it could not be redacted): tool calls in it are not replayed.\n`);
  const host = await openSession(g, io);
  try {
    reportDiagnostics(host, io, { verbose: g.verbose === true });
    const extensions = extensionWarnings(transcript, host.extensions.extensions);
    for (const warning of extensions) io.stderr.write(`airlock: ${displayText(warning, { maxChars: 500 })}\n`);
    const report = await withInterrupt((signal) => replay(transcript, kernelReplayRunner(host.kernel, { tools: host.selection, signal }), { signal }));
    if (g.json) {
      const out = { session: transcript.header.id, path, calls: report.calls, changed: report.changed, unavailable: report.unavailable, rows: report.rows, warnings: [...transcript.warnings, ...extensions] };
      io.stdout.write(`${JSON.stringify(out)}\n`);
    } else io.stdout.write(humanReport(report, transcript.header.id));
    // A call that could not be judged is not known to be unchanged: --strict does not pass it.
    return a.strict === true && report.changed + report.unavailable > 0 ? EXIT.outcome : EXIT.ok;
  } finally {
    await host.close();
  }
}

/**
 * One sentence per extension that differs between the recording and now, since a changed
 * extension may be why a decision changed. A transcript from before Airlock recorded them gets
 * one sentence saying the comparison cannot be made.
 */
function extensionWarnings(transcript: LoadedTranscript, now: Parameters<typeof sessionExtensions>[0]): string[] {
  const recorded = transcript.header.extensions;
  if (recorded === undefined) return ['this session does not record which extensions it ran with (it was written by an older Airlock), so replay cannot say whether they differ from the ones loaded now.'];
  return extensionDifferences(recorded, sessionExtensions(now)).map((d) => `${d}; decisions may differ because of it.`);
}

/** Not a transcript, or of a newer format: a usage problem, said with its hint. */
function readTranscript(path: string): LoadedTranscript {
  try {
    return loadTranscript(path);
  } catch (error) {
    // One line: it quotes the path the person gave.
    if (error instanceof SessionError) throw new UsageError(displayText(error.message, { maxChars: 2000 }), error.hint);
    throw error;
  }
}

const NOW: Record<ReplayRow['now'], string> = { allow: 'allowed', ask: 'asks', deny: 'DENIED', same: 'same', different: 'DIFFERENT', unavailable: 'NOT HERE' };

function humanReport(report: ReplayReport, id: string): string {
  const reran = report.rows.filter((r) => r.executed).length;
  const ran = reran === 0 ? '' : ` (${countOf(reran, 'call')} of replay-safe tools ran again)`;
  // The id is the transcript's own, and a transcript may be any file the person named.
  const shown = displayText(id, { maxChars: 80 });
  const unjudged = unavailableText(report);
  if (report.changed === 0 && report.unavailable === 0) return `Session ${shown}: all ${countOf(report.calls, 'recorded call')} would be decided as recorded${ran}.\n`;
  const rows = [['#', 'TOOL', 'ARGUMENTS', 'RECORDED', 'NOW', 'BY', 'WHY']];
  for (const r of report.rows.filter((row) => row.changed || row.now === 'unavailable')) {
    // A different result, allowed both times: what differs matters, not the rule that allowed it again.
    const differs = r.now === 'different';
    rows.push([String(r.index), r.tool, displayValue(r.args ?? null, { maxChars: 60 }), r.recorded, nowText(r), differs ? '' : by(r), differs ? differenceText(r) : (r.reason ?? '')]);
  }
  return `${table(rows)}\nSession ${shown}: ${report.changed} of ${countOf(report.calls, 'recorded call')} would now be decided differently${ran}.\n${unjudged}`;
}

/**
 * The calls whose tool is not here, grouped by the extension the recording says brought it, with
 * what to do: a tool passed in code exists only in the program that recorded the session.
 */
function unavailableText(report: ReplayReport): string {
  const byExtension = new Map<string, ReplayRow[]>();
  for (const r of report.rows) if (r.now === 'unavailable' && r.origin !== undefined) byExtension.set(r.origin.name, [...(byExtension.get(r.origin.name) ?? []), r]);
  let out = '';
  for (const [name, rows] of byExtension) {
    const origin = rows[0]!.origin!;
    const tools = [...new Set(rows.map((r) => r.tool))].map((t) => `"${displayText(t, { maxChars: 80 })}"`).join(', ');
    const shown = displayText(name, { maxChars: 80 });
    out +=
      origin.from === 'code'
        ? `Not judged: ${countOf(rows.length, 'call')} of ${tools}, a tool the program that recorded the session passed in code (extension "${shown}"); the CLI does not have that code. Replay it from that program (replay() with airlock.host.kernel, see docs/sdk.md), or load the extension here from a package.\n`
        : `Not judged: ${countOf(rows.length, 'call')} of ${tools}, from the extension "${shown}", which is not loaded here. Add it to the settings (airlock extensions add) and replay again.\n`;
  }
  return out;
}

function nowText(r: ReplayRow): string {
  if (r.now === 'deny' && r.outcomeNow !== 'denied') return `${NOW.deny} (${r.outcomeNow})`;
  if (r.now === 'different' && r.difference !== undefined) {
    const parts = [r.difference.outcome ? `outcome ${r.outcomeNow}` : '', r.difference.text ? 'text' : ''].filter((p) => p !== '');
    return `${NOW.different} (${parts.join(', ')})`;
  }
  return NOW[r.now];
}

function differenceText(r: ReplayRow): string {
  const outcome = r.difference?.outcome === true ? `it ended ${r.outcomeNow}, recorded ${r.recorded}` : '';
  const text = r.difference?.text === true ? 'its result text differs from the recorded one' : '';
  return `ran again: ${[outcome, text].filter((p) => p !== '').join('; ')}`;
}

function by(r: ReplayRow): string {
  if (r.now === 'unavailable') return r.origin === undefined ? '' : `${r.origin.from === 'code' ? 'code' : 'extension'} "${r.origin.name}"`;
  if (r.handler === undefined) return '';
  return r.rule === undefined ? r.handler : `${r.handler} (${r.rule})`;
}
