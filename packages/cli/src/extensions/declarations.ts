import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { POLICY_PHASES, readManifest } from '@airlock/host';
import { displayText } from '@airlock/toolkit/display';

/**
 * What a package says it will do once added, read from its package.json before any of its code
 * runs: what `extensions add` asks consent for and `extensions update` compares. These are the
 * package's own declarations; the policy and the OS sandbox enforce, whatever they say.
 */
export interface Declarations {
  name: string;
  version: string;
  /** Tools it registers (`airlock.provides.tools`). */
  tools: string[];
  /** Hooks and phases it joins; those in a policy phase judge or change calls. */
  hooks: string[];
  /** `airlock <word>` commands it brings. */
  commands: string[];
  /** Install scripts (preinstall, install, postinstall): a package manager runs them when it installs the package. */
  installScripts: string[];
  /** Programs it puts on PATH (`bin`). */
  bin: string[];
  /** What it says it reaches beyond its tools' calls (`airlock.uses`: processes, network). */
  uses: string[];
  /** Its own dependencies, by name. */
  dependencies: string[];
  /** Permission rules it carries (`airlock.rules`), as `deny bash(rm *)`: they apply with the trust of the settings that name it. */
  rules: string[];
  /** Settings keys it sets defaults for (`airlock.settings`). */
  settings: string[];
}

/**
 * A package folder's declarations.
 *
 * @example declarationsOf('/tmp/stage/node_modules/@acme/guard').hooks // ['tool_call:authorize']
 */
export function declarationsOf(dir: string): Declarations {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    name?: string;
    version?: string;
    scripts?: Record<string, unknown>;
    bin?: string | Record<string, unknown>;
    dependencies?: Record<string, unknown>;
  };
  const manifest = existsSync(join(dir, 'package.json')) ? readManifest(dir, {}) : undefined;
  const name = pkg.name ?? '(unnamed)';
  const bin = typeof pkg.bin === 'string' ? [name.replace(/^@[^/]+\//, '')] : Object.keys(pkg.bin ?? {});
  return {
    name,
    version: pkg.version ?? '0.0.0',
    tools: manifest?.ok === true ? [...manifest.provides.tools] : [],
    hooks: manifest?.ok === true ? [...manifest.provides.hooks] : [],
    commands: manifest?.ok === true ? (manifest.manifest.commands ?? []).map((c) => c.name) : [],
    installScripts: ['preinstall', 'install', 'postinstall'].filter((s) => typeof pkg.scripts?.[s] === 'string'),
    bin,
    uses: manifest?.ok === true ? [...(manifest.manifest.uses ?? [])] : [],
    dependencies: Object.keys(pkg.dependencies ?? {}).sort(),
    rules: manifest?.ok === true ? ruleLines(manifest.carries?.rules) : [],
    settings: manifest?.ok === true ? Object.keys(manifest.carries?.settings ?? {}).sort() : [],
  };
}

/** The declarations as the lines a person reads before saying yes. */
export function describeDeclarations(d: Declarations): string[] {
  const policy = d.hooks.filter((h) => POLICY_PHASES.includes(h));
  const other = d.hooks.filter((h) => !POLICY_PHASES.includes(h));
  const list = (items: readonly string[]) => (items.length === 0 ? 'none' : items.map((i) => displayText(i, { maxChars: 80 })).join(', '));
  return [
    `${displayText(d.name)} ${displayText(d.version)} declares:`,
    `  tools it adds:          ${list(d.tools)}`,
    `  policy phases it joins: ${list(policy)}${policy.length > 0 ? ' (it judges or changes calls)' : ''}`,
    ...(other.length > 0 ? [`  other hooks:            ${list(other)}`] : []),
    `  commands it brings:     ${list(d.commands.map((c) => `airlock ${c}`))}`,
    ...(d.rules.length > 0 ? [`  rules it carries:       ${list(d.rules)}`] : []),
    ...(d.settings.length > 0 ? [`  settings it sets:       ${list(d.settings)}`] : []),
    `  processes, network:     ${d.uses.length === 0 ? 'none declared' : list(d.uses)}`,
    `  install scripts:        ${d.installScripts.length === 0 ? 'none' : `${list(d.installScripts)} (run by the package manager as you, outside any sandbox)`}`,
    ...(d.bin.length > 0 ? [`  programs on PATH:       ${list(d.bin)}`] : []),
    `  dependencies:           ${list(d.dependencies)}`,
  ];
}

/**
 * What changed between two releases' declarations, one line each (`+ tool x`, `- hook y`); empty
 * when nothing a person consented to changed.
 *
 * @example diffDeclarations(before, after) // ['+ policy phase tool_call:authorize', '+ install script postinstall']
 */
export function diffDeclarations(before: Declarations, after: Declarations): string[] {
  const lines: string[] = [];
  const compare = (label: string, a: readonly string[], b: readonly string[]) => {
    for (const item of b) if (!a.includes(item)) lines.push(`+ ${label} ${displayText(item, { maxChars: 80 })}`);
    for (const item of a) if (!b.includes(item)) lines.push(`- ${label} ${displayText(item, { maxChars: 80 })}`);
  };
  const phase = (hooks: readonly string[], policy: boolean) => hooks.filter((h) => POLICY_PHASES.includes(h) === policy);
  compare('tool', before.tools, after.tools);
  compare('policy phase', phase(before.hooks, true), phase(after.hooks, true));
  compare('hook', phase(before.hooks, false), phase(after.hooks, false));
  compare('command', before.commands.map((c) => `airlock ${c}`), after.commands.map((c) => `airlock ${c}`));
  compare('rule', before.rules, after.rules);
  compare('setting', before.settings, after.settings);
  compare('uses', before.uses, after.uses);
  compare('install script', before.installScripts, after.installScripts);
  compare('program on PATH', before.bin, after.bin);
  compare('dependency', before.dependencies, after.dependencies);
  return lines;
}

/** `{ deny: ['bash(rm *)', { match: 'read(~/.ssh/**)', id: 'no-keys' }] }` → `['deny bash(rm *)', 'deny no-keys: read(~/.ssh/**)']`. */
function ruleLines(rules: Readonly<Record<string, unknown>> | undefined): string[] {
  const lines: string[] = [];
  for (const effect of ['deny', 'ask', 'allow']) {
    const list = rules?.[effect];
    if (!Array.isArray(list)) continue;
    for (const rule of list) {
      if (typeof rule === 'string') lines.push(`${effect} ${rule}`);
      else if (typeof rule === 'object' && rule !== null) {
        const r = rule as { match?: unknown; id?: unknown };
        lines.push(`${effect} ${typeof r.id === 'string' ? `${r.id}: ` : ''}${String(r.match)}`);
      }
    }
  }
  return lines;
}
