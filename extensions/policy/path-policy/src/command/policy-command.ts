import { Type } from 'typebox';
import type { CommandDefinition, CommandInput, PreflightReport } from '@airlock/contract';
import { countOf, displayText, displayValue } from '@airlock/toolkit/display';
import { checkExamples } from '../examples.js';
import type { Options } from '../options.js';
import type { Policy, PolicyDecision } from '../policy.js';
import { buildRefusedPolicy, formatPathPolicyDetail, LONG, PATH_POLICY, RuleProblem, show } from './detail.js';
import { parseRecord, readLines } from './policy-records.js';
import { summarize, type PreflightSummary } from './preflight-summary.js';
import { usage } from './usage.js';

/** Exit codes, as the CLI has them: done, a bad outcome (a failing example, a changed decision), a usage problem. */
const EXIT = { ok: 0, outcome: 1, usage: 2 } as const;

/** What the commands get: path-policy's options, and the policy its setup built and returned. */
type PolicyInput = CommandInput<Options, Policy>;

/**
 * `airlock policy explain|test`, which path-policy's manifest declares. They run when path-policy
 * refused its rules at load (`needsSetup: false`): `policy test` is how a person finds the rule or
 * example that made it refuse.
 */
const command = {
  needsSetup: false,
  subcommands: [
    {
      name: 'explain',
      summary: "show what every loaded extension's handlers decide for one call, and why, without running it",
      arguments: [
        { name: 'tool', description: 'the tool name', required: true },
        { name: 'json-args', description: 'the arguments as a JSON object, or - to read them from standard input' },
      ],
      run: (input) => policyExplainCommand({ tool: input.args[0]!, args: input.args[1] }, input),
    },
    {
      name: 'test',
      summary: "check every rule's inline examples; with FILE, replay recorded calls (JSONL or an audit log) and show what would change",
      arguments: [{ name: 'file', description: 'recorded calls, one JSON object per line: {name, arguments}, a ToolCall, or audit-log records (result records are skipped)' }],
      options: Type.Object({ strict: Type.Optional(Type.Boolean({ description: 'exit 1 when a replayed call would be decided differently' })) }),
      run: (input) => policyTestCommand({ file: input.args[0], ...(input.options.strict === true ? { strict: true } : {}) }, input),
    },
  ],
} satisfies CommandDefinition<Options, Policy>;

export default command;

/**
 * `airlock policy explain <tool> <json>`: what the loaded extensions decide for one call, and why,
 * without running it. The host opens as for a real call and the kernel judges the call through
 * its own stages 1–4 (`kernel.preflight`), so every extension's transform and authorize handlers
 * take part and the answer cannot drift from a real run. With path-policy loaded, its reading of
 * the call (resources, shell parse, matched rules, verdicts) follows as a detail section.
 */
export async function policyExplainCommand(a: { tool: string; args: string | undefined }, io: PolicyInput): Promise<number> {
  const input = await io.readJson(a.args, 'arguments');
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw usage('The arguments must be a JSON object.', `e.g. airlock policy explain read '{"path":"README.md"}'`);
  }
  io.reportLoad();
  const report = await io.preflight({ id: 'explain', name: a.tool, arguments: input });
  const summary = summarize(report, io.kernel.registry.get(report.toolName));
  const loaded = io.extension.loaded;
  const detail = io.extension.loaded && report.args !== undefined ? await pathPolicyDetail(io, report, io.extension.fromSetup) : undefined;
  // The hosts the votes name are opened for this call alone if it is allowed (at once, or by a person).
  const sandbox = report.resources.some((r) => r.kind === 'exec') ? sandboxProfileText(io, summary.effect === 'deny' ? [] : summary.hosts) : undefined;
  if (io.json) io.stdout.write(`${JSON.stringify(explainJson(a.tool, input as Record<string, unknown>, report, summary, loaded, detail, sandbox))}\n`);
  else io.stdout.write(formatExplain(a.tool, input as Record<string, unknown>, report, summary, loaded, detail, sandbox));
  return EXIT.ok;
}

/**
 * `airlock policy test [FILE]`: every rule's inline examples, checked on the policy path-policy's
 * setup built, and with FILE a replay of recorded calls (JSONL, or an audit log) through the
 * kernel's preflight, showing what would be decided differently now.
 */
export async function policyTestCommand(a: { file: string | undefined; strict?: boolean }, io: PolicyInput): Promise<number> {
  const lines = a.file === undefined ? undefined : await readLines(a.file, io.cwd);
  io.reportLoad();
  let policy: Policy;
  try {
    policy = io.extension.loaded ? io.extension.fromSetup : await buildRefusedPolicy(io);
  } catch (error) {
    if (!(error instanceof RuleProblem)) throw error;
    io.stderr.write(`airlock: ${error.message}\n`);
    return EXIT.outcome;
  }
  const failures = await checkExamples(policy);
  const withExamples = policy.rules.filter((r) => r.examples.match.length + r.examples.notMatch.length > 0).length;
  for (const f of failures) io.stdout.write(`FAIL ${f.message}\n`);
  const summary = [`${countOf(policy.rules.length, 'rule')}, ${withExamples} with examples, ${failures.length} failing`];

  let changed = 0;
  const replay: object[] = [];
  const badLines: { line: number; problem: string }[] = [];
  if (lines !== undefined) {
    let judged = 0;
    let results = 0;
    for (const [n, line] of lines) {
      const record = parseRecord(line);
      if (record === 'result') {
        results++;
        continue;
      }
      if (typeof record === 'string') {
        io.stderr.write(`airlock: ${show(a.file ?? '')}:${n}: skipped: ${record}\n`);
        continue;
      }
      if ('problem' in record) {
        badLines.push({ line: n, problem: record.problem });
        io.stdout.write(`FAIL ${show(a.file ?? '')}:${n}: ${record.problem}\n`);
        continue;
      }
      judged++;
      const report = await io.preflight({ id: `replay-${n}`, name: record.tool, arguments: record.args });
      const d = summarize(report, io.kernel.registry.get(report.toolName));
      const differs = record.recorded !== undefined && record.recorded !== d.effect;
      if (differs) changed++;
      replay.push({ line: n, tool: record.tool, args: record.args, recorded: record.recorded, effect: d.effect, rule: d.rule, reason: d.reason, changed: differs, handler: d.handler, outcome: d.outcome });
      if (!io.json) {
        const was = record.recorded === undefined ? '' : differs ? ` (was ${record.recorded}) CHANGED` : ` (same as recorded)`;
        io.stdout.write(`${show(a.file ?? '')}:${n} ${show(record.tool)} ${displayValue(record.args)} → ${d.effect}${was}\n    ${decidedBy(d)}: ${displayText(d.reason, LONG)}\n`);
      }
    }
    summary.push(`${countOf(judged, 'recorded call')} replayed, ${changed} decided differently${results > 0 ? ` (${countOf(results, 'audit result record')} skipped: each call is replayed from its decision)` : ''}`);
    if (badLines.length > 0) summary.push(`${countOf(badLines.length, 'line')} with an expected decision that is not allow, ask or deny`);
  }
  if (io.json) io.stdout.write(`${JSON.stringify({ failures, replay, changed, badLines })}\n`);
  else io.stdout.write(`${summary.join('; ')}\n`);
  if (failures.length > 0 || badLines.length > 0) return EXIT.outcome;
  return a.strict && changed > 0 ? EXIT.outcome : EXIT.ok;
}

/** path-policy's reading of the final arguments and resources, exactly what its handler was given, by the policy it votes with. */
async function pathPolicyDetail(io: PolicyInput, report: PreflightReport, policy: Policy): Promise<PolicyDecision | undefined> {
  try {
    const effects = io.kernel.registry.get(report.toolName)?.tool.effects;
    return await policy.decide({ tool: report.toolName, args: report.args as Record<string, unknown>, resources: [...report.resources], cwd: io.kernel.cwd, ...(effects === 'unknown' ? { effects } : {}) });
  } catch (error) {
    // The same policy judged this call in the preflight; failing now is worth a line, not the answer.
    io.stderr.write(`airlock: note: the ${PATH_POLICY} detail is not available: ${(error as Error).message}\n`);
    return undefined;
  }
}

/**
 * The JSON report. It starts with the keys a script reading it relies on (tool, args, loaded,
 * notes, path-policy's resources/matched/findings/shell, effect, rule, reason, hosts, sandbox),
 * then outcome, handler, votes, proposedArgs, provenance and declaredResources. Effect, rule,
 * reason and hosts come from the kernel's decision, so the report says what a real call would.
 */
function explainJson(tool: string, input: Record<string, unknown>, report: PreflightReport, s: PreflightSummary, loaded: boolean, detail: PolicyDecision | undefined, sandbox: string | undefined): object {
  return {
    tool,
    // The arguments the tool would get; as given when they never validated.
    args: report.args ?? report.proposedArgs ?? input,
    loaded,
    notes: s.notes,
    ...(detail ?? {}),
    effect: s.effect,
    outcome: s.outcome,
    rule: s.rule,
    reason: s.reason,
    handler: s.handler,
    hosts: s.hosts,
    votes: report.votes,
    proposedArgs: report.proposedArgs,
    provenance: report.provenance,
    declaredResources: report.resources,
    ...(sandbox === undefined ? {} : { sandbox }),
  };
}

/** The OS sandbox profile a command would run under, in words; a profile that cannot be built says why. */
function sandboxProfileText(io: CommandInput, hosts: readonly string[]): string {
  try {
    return io.host.describeSandbox(io.kernel.cwd, hosts);
  } catch (error) {
    return `cannot be built, so the command would not run: ${(error as Error).message}`;
  }
}

function decidedBy(s: PreflightSummary): string {
  return s.handler === undefined || s.handler === s.rule ? show(s.rule) : `${show(s.rule)} by ${show(s.handler)}`;
}

function formatExplain(
  tool: string,
  input: Record<string, unknown>,
  report: PreflightReport,
  s: PreflightSummary,
  loaded: boolean,
  detail: PolicyDecision | undefined,
  sandbox: string | undefined,
): string {
  const out: string[] = [`call: ${show(tool)} ${displayValue(report.proposedArgs ?? input, LONG)}`];
  for (const note of s.notes) out.push(`note: ${displayText(note, LONG)}`);
  if (!loaded) out.push(`note: ${PATH_POLICY} is not loaded with these settings`);
  if (report.provenance.length > 0) {
    out.push('', 'transforms:');
    for (const p of report.provenance) out.push(`  ${show(p.handler)}: ${displayValue(p.before, LONG)} → ${displayValue(p.after, LONG)}`);
  }
  if (detail !== undefined) out.push(...formatPathPolicyDetail(detail));
  else {
    out.push('', 'resources:');
    if (report.resources.length === 0) out.push('  (none)');
    for (const r of report.resources) out.push(`  ${r.kind} ${displayValue(r, LONG)}`);
  }
  if (report.args !== undefined) {
    out.push('', 'votes:');
    if (report.votes.length === 0) out.push('  (none: no handler voted)');
    for (const v of report.votes) {
      const rule = v.rule === undefined ? '' : ` (${show(v.rule)})`;
      out.push(`  ${v.effect.padEnd(5)} ${show(v.handler)}${rule}${v.reason === undefined ? '' : `: ${displayText(v.reason, LONG)}`}`);
    }
  }
  if (sandbox !== undefined) out.push('', 'sandbox (what the OS enforces while it runs):', ...sandbox.split('\n').map((l) => `  ${displayText(l, LONG)}`));
  const by = s.handler === undefined ? '' : `  by ${show(s.handler)}`;
  out.push('', `decision: ${s.effect} (${show(s.rule)})${by}`, `  ${displayText(s.reason, LONG)}`, '');
  return out.join('\n');
}

