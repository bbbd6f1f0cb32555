import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { createExtensionJiti, type Host } from '@airlock/host';
import type { Command } from 'commander';
import { countOf, displayText, displayValue, type Resource, type ToolContext } from '@airlock/kernel';
import type { Policy, PolicyDecision, RuleEntry } from '@airlock/path-policy';
import Value from 'typebox/value';
import { EXIT, UsageError, type IO } from '../io.js';
import { readJsonArgument } from '../json-input.js';
import type { GlobalOptions } from '../main.js';
import { openSession } from '../session.js';
import { reportDiagnostics } from './diagnostics.js';

const PACKAGE = '@airlock/path-policy';
type PathPolicyModule = typeof import('@airlock/path-policy');

/**
 * `airlock policy explain <tool> <json>`: what the rules decide for one call, and why — without
 * running it. Resources come from the real tool's resources(), rules from every settings layer
 * (with their files), so the answer is the one the path-policy extension would give.
 */
export async function policyExplainCommand(a: { tool: string; args: string | undefined }, g: GlobalOptions, io: IO): Promise<number> {
  const input = await readJsonArgument(a.args, io, 'arguments');
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new UsageError('The arguments must be a JSON object.', `e.g. airlock policy explain read '{"path":"README.md"}'`);
  }
  const host = await openSession(g, io);
  try {
    reportDiagnostics(host, io, { verbose: g.verbose === true });
    const { policy, loaded } = await buildPolicy(host, io);
    const call = await toCall(host, a.tool, input as Record<string, unknown>);
    const decision = await policy.decide(call);
    // The hosts the call names are opened for it alone if it is allowed (at once, or by a person).
    const sandbox = call.resources.some((r) => r.kind === 'exec') ? sandboxProfileText(host, decision.effect === 'deny' ? [] : decision.hosts) : undefined;
    if (g.json) {
      io.stdout.write(`${JSON.stringify({ tool: a.tool, args: call.args, loaded, notes: call.notes, ...decision, ...(sandbox === undefined ? {} : { sandbox }) })}\n`);
    } else {
      io.stdout.write(formatExplain(a.tool, call, decision, loaded, sandbox));
    }
    return EXIT.ok;
  } finally {
    await host.close();
  }
}

/**
 * `airlock policy test [FILE]`: every rule's inline examples, and with FILE a replay of recorded
 * calls (JSONL) against the current rules, showing what would be decided differently.
 */
export async function policyTestCommand(a: { file: string | undefined; strict?: boolean }, g: GlobalOptions, io: IO): Promise<number> {
  const lines = a.file === undefined ? undefined : await readLines(a.file, io);
  const host = await openSession(g, io);
  try {
    reportDiagnostics(host, io, { verbose: g.verbose === true });
    let built: { policy: Policy; mod: PathPolicyModule };
    try {
      built = await buildPolicy(host, io);
    } catch (error) {
      if (!(error instanceof RuleProblem)) throw error;
      io.stderr.write(`airlock: ${error.message}\n`);
      return EXIT.outcome;
    }
    const failures = await built.mod.checkExamples(built.policy);
    const withExamples = built.policy.rules.filter((r) => r.examples.match.length + r.examples.notMatch.length > 0).length;
    for (const f of failures) io.stdout.write(`FAIL ${f.message}\n`);
    const summary = [`${countOf(built.policy.rules.length, 'rule')}, ${withExamples} with examples, ${failures.length} failing`];

    let changed = 0;
    const replay: object[] = [];
    if (lines !== undefined) {
      let judged = 0;
      for (const [n, line] of lines) {
        const record = parseRecord(line);
        if (typeof record === 'string') {
          io.stderr.write(`airlock: ${show(a.file ?? '')}:${n}: skipped: ${record}\n`);
          continue;
        }
        judged++;
        const call = await toCall(host, record.tool, record.args);
        const d = await built.policy.decide(call);
        const differs = record.recorded !== undefined && record.recorded !== d.effect;
        if (differs) changed++;
        replay.push({ line: n, tool: record.tool, args: record.args, recorded: record.recorded, effect: d.effect, rule: d.rule, reason: d.reason, changed: differs });
        if (!g.json) {
          const was = record.recorded === undefined ? '' : differs ? ` (was ${record.recorded}) CHANGED` : ` (same as recorded)`;
          io.stdout.write(`${show(a.file ?? '')}:${n} ${show(record.tool)} ${displayValue(record.args)} → ${d.effect}${was}\n    ${show(d.rule)}: ${displayText(d.reason, LONG)}\n`);
        }
      }
      summary.push(`${countOf(judged, 'recorded call')} replayed, ${changed} decided differently`);
    }
    if (g.json) io.stdout.write(`${JSON.stringify({ failures, replay, changed })}\n`);
    else io.stdout.write(`${summary.join('; ')}\n`);
    if (failures.length > 0) return EXIT.outcome;
    return a.strict && changed > 0 ? EXIT.outcome : EXIT.ok;
  } finally {
    await host.close();
  }
}

/** A rule that does not compile: reported as a failed test, not as bad usage. */
class RuleProblem extends Error {}

/**
 * The policy the extension would build: the same package (loaded the way the host loads it, so
 * its command parser finds its own files), every rule with its layer and file, and the options
 * settings give the extension.
 */
async function buildPolicy(host: Host, io: IO): Promise<{ policy: Policy; mod: PathPolicyModule; loaded: boolean }> {
  const mod = await loadPathPolicy();
  const entry = host.settings.extensions.find((e) => e.spec === PACKAGE);
  const options = Value.Default(mod.OptionsSchema, structuredClone(entry?.options ?? {})) as Record<string, unknown>;
  if (!Value.Check(mod.OptionsSchema, options)) {
    const problems = Value.Errors(mod.OptionsSchema, options).map((e) => `${e.instancePath || '/'} ${e.message}`);
    throw new UsageError(`The options for ${PACKAGE} in the settings are invalid: ${problems.join('; ')}.`);
  }
  const opts = options as unknown as import('@airlock/path-policy').Options;
  const rules: RuleEntry[] = host.settings.permissions.map((p) => ({
    effect: p.effect,
    rule: p.rule,
    layer: p.layer,
    ...(p.file === undefined ? {} : { file: p.file }),
  }));
  const loaded = host.extensions.extensions.some((e) => e.name === 'path-policy' && e.status === 'loaded');
  if (!loaded) io.stderr.write(`airlock: note: ${PACKAGE} is not loaded with these settings; this is what it would decide if it were.\n`);
  try {
    const policy = mod.createPolicy({
      rules,
      ...(opts.roots === undefined ? {} : { roots: opts.roots }),
      cwd: host.kernel.cwd,
      defaultEffect: opts.defaultEffect,
      maxCommandLength: opts.maxCommandLength,
      extraSecrets: opts.extraSecrets,
      loadShell: mod.loadShell,
      protectedPaths: host.protectedPaths,
      sandboxed: host.sandbox.service.status.active,
    });
    return { policy, mod, loaded };
  } catch (error) {
    if (error instanceof Error && error.name === 'RuleError') throw new RuleProblem(error.message);
    throw error;
  }
}

/** Through jiti, as the host loads extensions: TypeScript source, from the package's own folder. */
async function loadPathPolicy(): Promise<PathPolicyModule> {
  const require = createRequire(import.meta.url);
  let manifestFile: string;
  try {
    manifestFile = require.resolve(`${PACKAGE}/package.json`);
  } catch {
    throw new UsageError(`${PACKAGE} is not installed next to the airlock command.`, 'Run pnpm install in the Airlock workspace.');
  }
  const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as { airlock?: { extension?: string } };
  const entry = join(dirname(manifestFile), manifest.airlock?.extension ?? 'src/index.ts');
  return (await (await createExtensionJiti()).import(entry)) as PathPolicyModule;
}

interface ExplainCall {
  tool: string;
  args: Record<string, unknown>;
  resources: Resource[];
  cwd: string;
  notes: string[];
}

/**
 * The call as the kernel would hand it to authorize: arguments converted by the tool's schema,
 * resources from the tool's own resources(). Explain never runs the tool.
 */
async function toCall(host: Host, tool: string, args: Record<string, unknown>): Promise<ExplainCall> {
  const cwd = host.kernel.cwd;
  const notes: string[] = [];
  const registered = host.kernel.registry.get(tool);
  if (registered === undefined) {
    notes.push(`no tool "${tool}" is registered: the kernel would answer not_found; judged with no resources`);
    return { tool, args, resources: [], cwd, notes };
  }
  const t = registered.tool;
  let value: unknown = structuredClone(args);
  if (t.prepareArguments) value = t.prepareArguments(value);
  value = Value.Convert(t.parameters, value);
  if (!Value.Check(t.parameters, value)) {
    const problems = Value.Errors(t.parameters, value).map((e) => `${e.instancePath || '/'} ${e.message}`);
    notes.push(`the arguments do not fit ${tool}'s schema (${problems.join('; ')}): the kernel would answer invalid`);
    return { tool, args, resources: [], cwd, notes };
  }
  if (t.resources === undefined) {
    // Said for every such tool: "(none)" alone reads as "touches nothing", which nobody checked.
    notes.push(`${tool} declares no resources(): its calls are judged by tool name only (path rules such as fs.read(...) never match them)`);
    return { tool, args: value as Record<string, unknown>, resources: [], cwd, notes };
  }
  try {
    const resources = t.resources(value as never, explainContext(cwd));
    return { tool, args: value as Record<string, unknown>, resources: [...resources], cwd, notes };
  } catch (error) {
    notes.push(`${tool}'s resources() failed (${(error as Error).message}): the kernel would end the call as an error`);
    return { tool, args: value as Record<string, unknown>, resources: [], cwd, notes };
  }
}

/**
 * resources() gets a context to read `cwd` from; explain runs nothing, so any other use of the
 * context is answered with an error that says so instead of a half-working service.
 */
function explainContext(cwd: string): ToolContext {
  return new Proxy({ cwd } as ToolContext, {
    get(target, key) {
      if (key === 'cwd') return target.cwd;
      if (key === 'then' || typeof key === 'symbol') return undefined;
      throw new Error(`policy explain gives resources() only ctx.cwd, not ctx.${String(key)}`);
    },
  });
}

async function readLines(file: string, io: IO): Promise<[number, string][]> {
  let text: string;
  try {
    text = await readFile(resolve(io.cwd, file), 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read ${file}: ${(error as Error).message}.`, 'Give a JSONL file with one recorded call per line.');
  }
  return text
    .split('\n')
    .map((line, i): [number, string] => [i + 1, line.trim()])
    .filter(([, line]) => line !== '');
}

/**
 * One recorded call, from any of the shapes a recording may have: `{name, arguments}` (a model's
 * tool call, arguments as an object or a JSON string), `{tool|toolName, args}`, or an audit-log
 * decision record (`decision` as a string or `{effect}`). Returns why a line is skipped otherwise.
 */
function parseRecord(line: string): { tool: string; args: Record<string, unknown>; recorded?: string } | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'not JSON';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const r = value as Record<string, unknown>;
  const inner = typeof r.call === 'object' && r.call !== null ? (r.call as Record<string, unknown>) : r;
  const tool = [inner.name, inner.tool, inner.toolName].find((x): x is string => typeof x === 'string' && x !== '');
  if (tool === undefined) return 'no tool name (name, tool or toolName)';
  let args = inner.arguments ?? inner.args ?? {};
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      return 'the arguments are a string that is not JSON';
    }
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return 'the arguments are not an object';
  const d = r.decision ?? r.effect;
  const recorded = typeof d === 'string' ? d : typeof d === 'object' && d !== null && typeof (d as { effect?: unknown }).effect === 'string' ? (d as { effect: string }).effect : undefined;
  return { tool, args: args as Record<string, unknown>, ...(recorded === undefined ? {} : { recorded }) };
}

/** The OS sandbox profile a command would run under, in words; a profile that cannot be built says why. */
function sandboxProfileText(host: Host, hosts: readonly string[]): string {
  try {
    return host.sandbox.describe(host.kernel.cwd, hosts);
  } catch (error) {
    return `cannot be built, so the command would not run: ${(error as Error).message}`;
  }
}

/**
 * Everything explain prints about a call came from the model or the filesystem (tool name,
 * arguments, paths, commands, argv) or from settings (rules, reasons): each piece is shown
 * through displayText, so the explanation cannot be made to show something other than the call.
 */
const LONG = { maxChars: 1000 } as const;
function show(text: string): string {
  return displayText(text, { maxChars: 300 });
}

function formatExplain(tool: string, call: ExplainCall, d: PolicyDecision, loaded: boolean, sandbox?: string): string {
  const out: string[] = [`call: ${show(tool)} ${displayValue(call.args, LONG)}`];
  for (const note of call.notes) out.push(`note: ${displayText(note, LONG)}`);
  if (!loaded) out.push(`note: ${PACKAGE} is not loaded with these settings`);
  out.push('', 'resources:');
  if (d.resources.length === 0) out.push('  (none)');
  for (const r of d.resources) {
    if (r.kind === 'fs.read' || r.kind === 'fs.write') {
      const more = r.paths.filter((p) => p !== r.path);
      out.push(`  ${r.kind} ${show(r.path)}  [${show(r.from)}]${more.length > 0 ? `\n      compared as: ${more.map(show).join(', ')}` : ''}`);
    } else if (r.kind === 'exec') out.push(`  exec ${displayText(r.command, LONG)}  [${show(r.from)}]`);
    else if (r.kind === 'net') out.push(`  net ${show(r.host)}  [${show(r.from)}]`);
  }
  if (d.shell) {
    out.push('', 'shell parse:');
    for (const s of d.shell) {
      if (!s.analysis.ok) {
        out.push(`  ${displayValue(s.command, LONG)}: not analysed (${displayText(s.analysis.reason, LONG)})`);
        continue;
      }
      for (const c of s.analysis.commands) {
        const parts = [`  ${displayValue(c.argv, LONG)}`];
        if (c.wrappers.length > 0) parts.push(`wrappers ${c.wrappers.map(show).join(' | ')}`);
        if (c.reads.length + c.dynamicReads.length > 0) parts.push(`reads ${[...c.reads, ...c.dynamicReads].map(show).join(', ')}`);
        if (c.writes.length + c.dynamicWrites.length > 0) parts.push(`writes ${[...c.writes, ...c.dynamicWrites].map(show).join(', ')}`);
        if (c.hosts.length + c.dynamicHosts.length > 0) parts.push(`connects to ${[...c.hosts, ...c.dynamicHosts].map(show).join(', ')}`);
        if (c.context.length > 0) parts.push(`in ${c.context.map(show).join(' > ')}`);
        out.push(parts.join('  '));
      }
    }
  }
  out.push('', 'matched rules:');
  if (d.matched.length === 0) out.push('  (none: the defaults decide)');
  for (const m of d.matched) {
    const from = m.file ? `${m.layer ?? 'settings'}: ${show(m.file)}` : (m.layer ?? 'settings');
    out.push(`  ${m.effect.padEnd(5)} ${show(m.surface)}${m.rule !== m.surface ? ` (id ${show(m.rule)})` : ''}  [${from}]  on ${show(m.subject)}`);
  }
  out.push('', 'verdicts:');
  for (const f of d.findings) out.push(`  ${f.effect.padEnd(5)} ${show(f.subject)}  ← ${show(f.rule)}`);
  if (sandbox !== undefined) out.push('', 'sandbox (what the OS enforces while it runs):', ...sandbox.split('\n').map((l) => `  ${displayText(l, LONG)}`));
  out.push('', `decision: ${d.effect} (${show(d.rule)})`, `  ${displayText(d.reason, LONG)}`, '');
  return out.join('\n');
}

/**
 * Add `policy explain` and `policy test` to the program (one call in main.ts keeps the
 * registration next to the commands it registers).
 */
export function registerPolicy(program: Command, io: IO, done: (code: number) => void): void {
  const globals = (cmd: Command): GlobalOptions => cmd.optsWithGlobals() as GlobalOptions;
  const policy = program.command('policy').description('explain and test the permission rules (the path-policy extension)');
  policy
    .command('explain')
    .description('show what the rules decide for one call, and why, without running it')
    .argument('<tool>', 'the tool name')
    .argument('[json-args]', 'the arguments as a JSON object, or - to read them from standard input')
    .action(async (tool: string, args: string | undefined, _opts: unknown, cmd: Command) => done(await policyExplainCommand({ tool, args }, globals(cmd), io)));
  policy
    .command('test')
    .description("check every rule's inline examples; with FILE, replay recorded calls (JSONL) and show what would change")
    .argument('[file]', 'recorded calls, one JSON object per line: {name, arguments}, a ToolCall, or an audit-log decision record')
    .option('--strict', 'exit 1 when a replayed call would be decided differently')
    .action(async (file: string | undefined, opts: { strict?: boolean }, cmd: Command) =>
      done(await policyTestCommand({ file, ...(opts.strict ? { strict: true } : {}) }, globals(cmd), io)),
    );
}
