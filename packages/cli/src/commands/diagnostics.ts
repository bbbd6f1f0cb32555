import type { Host, Diagnostic } from '@airlock/host';
import { countOf, displayText } from '@airlock/toolkit/display';
import type { IO } from '../io.js';

/**
 * Tell the user, on stderr, what went wrong while loading — before any call runs. Said once each:
 * - extensions of the default set that are not installed yet: one line rather than eleven;
 * - the same warning about several extensions (an untrusted project naming seven): one summary;
 * - a failed policy extension: its problem, then one `Fix:` line (the block's, which says it all).
 * With `verbose`, the stack of the error behind each diagnostic (a throwing `setup`) follows it.
 */
export function reportDiagnostics(host: Host, io: IO, options: { verbose?: boolean } = {}): void {
  const write = (text: string): void => void io.stderr.write(text);
  const notInstalled = host.diagnostics.filter((d) => d.code === 'AIRLOCK_EXTENSION_NOT_INSTALLED');
  if (notInstalled.length > 0) {
    const names = notInstalled.map((d) => d.extension).filter((n): n is string => n !== undefined);
    write(`airlock: ${notInstalled.length} default extension${notInstalled.length === 1 ? ' is' : 's are'} not installed yet (${names.map(one).join(', ')}); running without them.\n`);
  }
  const blocked = host.blocked;
  const blocking = (d: Diagnostic): boolean => blocks(host, d);
  const rest = host.diagnostics.filter((d) => d.code !== 'AIRLOCK_EXTENSION_NOT_INSTALLED' && !blocking(d));
  for (const group of groupByCodeAndFix(rest)) write(describeGroup(group, options.verbose === true));
  if (blocked === undefined) return;
  // The host refuses every call then; say why once, up front, rather than only in each result.
  // Each failed extension's problem, then the block's fix, which already holds each one's own.
  write(`airlock: error: ${showWorded(blockedHeadline(blocked))}\n`);
  for (const d of host.diagnostics.filter(blocking)) write(`  ${showWorded(withoutFix(d)).replace(/\n/g, '\n  ')}\n${stackOf(d, options.verbose === true)}`);
  write(`Fix: ${showWorded(blocked.fix)}\n`);
}

/** The diagnostic of an extension whose failure blocks every tool: the block's `Fix:` line covers its fix. */
export function blocks(host: Host, d: Diagnostic): boolean {
  return host.blocked !== undefined && d.severity === 'error' && d.extension !== undefined && host.blocked.extensions.includes(d.extension);
}

/** `No tool may run: a policy extension failed to load, …`: the block's first line, without the per-extension lines and the fix. */
export function blockedHeadline(blocked: NonNullable<Host['blocked']>): string {
  return blocked.message.split('\n')[0] ?? blocked.message;
}

/** Diagnostics that share a code and a fix, in first-seen order. */
function groupByCodeAndFix(diagnostics: readonly Diagnostic[]): Diagnostic[][] {
  const groups = new Map<string, Diagnostic[]>();
  for (const d of diagnostics) {
    const key = `${d.code}\u0000${d.fix ?? d.message}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [d]);
    else group.push(d);
  }
  return [...groups.values()];
}

function describeGroup(group: readonly Diagnostic[], verbose: boolean): string {
  const first = group[0]!;
  if (group.length === 1) return `airlock: ${first.severity}: ${showWorded(withFixLine(first))}\n${stackOf(first, verbose)}`;
  if (first.code === 'AIRLOCK_EXTENSION_UNTRUSTED') return untrustedSummary(group);
  // Any other repeated diagnostic: each problem, then the fix they share once.
  const problems = group.map((d) => `airlock: ${d.severity}: ${showWorded(withoutFix(d))}\n${stackOf(d, verbose)}`).join('');
  return first.fix === undefined ? problems : `${problems}Fix: ${showWorded(first.fix)}\n`;
}

/**
 * One warning for every extension an untrusted project names: which ones, why none loaded, which
 * policy is therefore not in force, and the one fix.
 */
function untrustedSummary(group: readonly Diagnostic[]): string {
  const names = group.map((d) => one(d.extension ?? '?'));
  const projectDir = group[0]!.details?.projectDir;
  const folder = typeof projectDir === 'string' ? `the project folder ${one(projectDir)}` : 'the project folder';
  const policy = group.filter((d) => d.details?.policy === true && d.details?.fallback === undefined).map((d) => one(d.extension ?? '?'));
  const replaced = group.filter((d) => d.details?.fallback !== undefined).map((d) => one(d.extension ?? '?'));
  const lines = [
    `airlock: warning: ${countOf(group.length, 'project extension')} ${group.length === 1 ? 'was' : 'were'} not loaded, because ${folder} is not trusted and an extension is code that runs with your permissions: ${names.join(', ')}.`,
    ...(policy.length > 0 ? [`The policy ${policy.length === 1 ? 'it' : 'they'} would enforce is NOT in force in this run: ${policy.join(', ')}.`] : []),
    ...(replaced.length > 0 ? [`Your own entries are used instead, with their options, for: ${replaced.join(', ')}.`] : []),
    ...(group[0]!.fix === undefined ? [] : [`Fix: ${group[0]!.fix}`]),
  ];
  return `${showWorded(lines.join('\n'))}\n`;
}

/** The message as the host words it ends with its `Fix:` line; add one if it does not. */
export function withFixLine(d: Diagnostic): string {
  return d.fix === undefined || d.message.includes(d.fix) ? d.message : `${d.message}\nFix: ${d.fix}`;
}

/** The message without its trailing `Fix: …` line, for when the fix is said once for several. */
export function withoutFix(d: Diagnostic): string {
  if (d.fix === undefined) return d.message;
  const line = `\nFix: ${d.fix}`;
  return d.message.endsWith(line) ? d.message.slice(0, -line.length) : d.message;
}

function stackOf(d: Diagnostic, verbose: boolean): string {
  if (d.stack === undefined) return '';
  if (!verbose) return '  (run again with --verbose to see where it was thrown)\n';
  return `${showWorded(d.stack).replace(/^/gm, '    ')}\n`;
}

/**
 * A diagnostic may quote a project's settings (extension names, paths, tool names): each value was
 * shown on one line where the message was worded, so it is not escaped twice here; the message
 * keeps its own lines.
 */
export function showWorded(text: string): string {
  return displayText(text, { multiline: true, maxChars: 4000, escaped: true });
}

/** A name or a path the CLI puts into a line itself: one line, escaped. */
function one(text: string): string {
  return displayText(text, { maxChars: 300 });
}
