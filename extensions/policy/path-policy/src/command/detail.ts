import type { CommandInput } from '@airlock/contract';
import { displayText, displayValue } from '@airlock/toolkit/display';
import { schemaProblemLines } from '@airlock/toolkit/util';
import Value from 'typebox/value';
import { loadShell } from '../load-shell.js';
import { OptionsSchema, type Options } from '../options.js';
import { createPolicy, type Policy, type PolicyDecision } from '../policy.js';
import type { MatchedRule } from '../items.js';
import type { RuleEntry } from '../rules/types.js';
import { usage } from './usage.js';

/*
 * The path-policy detail of `policy explain` (per-item findings, matched rules, shell parse) and
 * the rule examples of `policy test`. The decision itself comes from the kernel's preflight; the
 * detail and the examples come from the policy path-policy's setup built and returned
 * (`input.extension.fromSetup`), the one its handler votes with, each rule with the settings
 * layer and file it came from. Only when setup refused the rules is there none: then
 * `buildRefusedPolicy` compiles them again, to name the rule or example that made it refuse.
 */

export const PATH_POLICY = '@airlock/path-policy';

/** A rule that does not compile: reported as a failed test, not as bad usage. */
export class RuleProblem extends Error {}

/**
 * For a path-policy that did not load: its rules (the host's one list, each with its layer and
 * file) and the options the settings write for it, compiled as its setup would have, so `policy
 * test` can show what made setup refuse. Throws a RuleProblem naming a rule that does not compile.
 */
export async function buildRefusedPolicy(input: CommandInput): Promise<Policy> {
  const options = Value.Default(OptionsSchema, structuredClone(input.settingsOptions ?? {})) as Record<string, unknown>;
  if (!Value.Check(OptionsSchema, options)) {
    const problems = schemaProblemLines(OptionsSchema, options, { keyNoun: 'option' });
    throw usage(`The options for ${PATH_POLICY} in the settings are invalid: ${problems.join('; ')}.`);
  }
  const opts = options as unknown as Options;
  const rules: RuleEntry[] = input.host.permissions.map((p) => ({
    effect: p.effect,
    rule: p.rule as RuleEntry['rule'],
    layer: p.layer,
    ...(p.file === undefined ? {} : { file: p.file }),
    ...(p.package === undefined ? {} : { package: p.package }),
  }));
  input.stderr.write(`airlock: note: ${PATH_POLICY} is not loaded with these settings; its rule examples are checked as if it were.\n`);
  try {
    const policy = createPolicy({
      rules,
      ...(opts.roots === undefined ? {} : { roots: opts.roots }),
      cwd: input.kernel.cwd,
      defaultEffect: opts.defaultEffect,
      maxCommandLength: opts.maxCommandLength,
      extraSecrets: opts.extraSecrets,
      loadShell,
      protectedPaths: input.host.protectedPaths,
      sandboxed: input.host.sandboxActive,
    });
    return policy;
  } catch (error) {
    if (error instanceof Error && error.name === 'RuleError') throw new RuleProblem(error.message);
    throw error;
  }
}

/**
 * Everything shown about a call came from the model or the filesystem (tool name, arguments,
 * paths, commands, argv) or from settings (rules, reasons): each piece goes through displayText,
 * so the explanation cannot be made to show something other than the call.
 */
export const LONG = { maxChars: 1000 } as const;
export function show(text: string): string {
  return displayText(text, { maxChars: 300 });
}

/** path-policy's reading of the call: its resources (with where each came from), the shell parse, the matched rules and the per-item verdicts. */
export function formatPathPolicyDetail(d: PolicyDecision): string[] {
  const out: string[] = ['', 'resources:'];
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
    const from = ruleSource(m);
    out.push(`  ${m.effect.padEnd(5)} ${show(m.surface)}${m.rule !== m.surface ? ` (id ${show(m.rule)})` : ''}  [${from}]  on ${show(m.subject)}`);
  }
  out.push('', 'verdicts:');
  for (const f of d.findings) out.push(`  ${f.effect.padEnd(5)} ${show(f.subject)}  ← ${show(f.rule)}`);
  return out;
}

/**
 * Where a matched rule was written: `user: ~/.config/airlock/settings.json`, or for a rule a
 * package carried, the package and who named it:
 * `from airlock-company-policy 1.0.0 (named by user settings /home/ana/.config/airlock/settings.json)`.
 */
export function ruleSource(m: Pick<MatchedRule, 'layer' | 'file' | 'package'>): string {
  if (m.package === undefined) return m.file ? `${m.layer ?? 'settings'}: ${show(m.file)}` : (m.layer ?? 'settings');
  const layer = m.layer === 'cli' ? 'the command line' : m.layer === 'code' ? 'settings in code' : `${m.layer ?? ''} settings`.trim();
  return `from ${show(m.package.name)} ${show(m.package.version)} (named by ${layer}${m.file ? ` ${show(m.file)}` : ''})`;
}
