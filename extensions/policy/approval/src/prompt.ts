import type { ArgsChange, Resource, Vote } from '@airlock/contract';
import { countOf, displayText, displayValue } from '@airlock/toolkit/display';

/**
 * Long values are cut so a prompt fits a terminal, always keeping their start and their end
 * (the end of a command is where an attack hides); the person can still see what the call is.
 */
const MAX_VALUE_CHARS = 600;
const MAX_NAME_CHARS = 80;
const MAX_REASON_CHARS = 400;
const MAX_LINES = 40;
/**
 * Drawn before every line of a value that spans lines. Airlock draws it, never the value, so no
 * line of an argument can pass for another argument, a rule's line or a choice.
 */
const GUTTER = '    \u2502 ';

export interface PromptFacts {
  tool: string;
  args: unknown;
  proposedArgs: unknown;
  provenance: readonly ArgsChange[];
  /** The votes that asked (a rule and its reason each). */
  asking: readonly Vote[];
  /**
   * What the call touches. An argument that names one of these files or hosts is a name, not
   * text: it is always shown on one line, a line break in it as `\n`.
   */
  resources?: readonly Resource[];
}

/**
 * The text of an approval prompt: the tool and its arguments, every rule that asked with its
 * reason, and — when a transform changed the arguments — what the model proposed and who
 * changed it, so a person never approves something other than what they think.
 *
 * Every line is one Airlock drew: a name, a rule or a reason is one line whatever it holds; a
 * value that spans lines (a script, a file's content) goes under its key with a gutter (`│`) on
 * each of its lines; a file or host the call touches is one line (`path: a\nb`).
 *
 * @example
 * promptText({ tool: 'bash', args: { command: 'npm publish' }, proposedArgs: …, provenance: [], asking: [vote] })
 * // "Allow bash?\nAsked by rule npm-publish: publishing needs a person\n  command: npm publish"
 */
export function promptText(facts: PromptFacts): string {
  // Who asks and why always shows; the arguments and the diff are cut to fit a terminal. Every
  // piece that a model, a file, a tool or a rule wrote is shown through displayText: nothing in
  // it can move the cursor, hide text, reorder the line or push the rest off the screen.
  const head = [`Allow ${name(facts.tool)}?`];
  for (const vote of facts.asking) {
    const rule = vote.rule ?? vote.handler;
    const reason = vote.reason ? `: ${displayText(vote.reason, { maxChars: MAX_REASON_CHARS })}` : '';
    // The id itself says "default:"; the word before it says what kind of thing asked.
    const kind = vote.rule === undefined ? 'handler' : rule.startsWith('default:') ? 'built-in rule' : 'rule';
    head.push(`Asked by ${kind} ${displayText(rule, { maxChars: MAX_REASON_CHARS })}${reason}`);
  }
  const names = namedTargets(facts.resources ?? []);
  const body = argLines(facts.args, names);
  if (facts.provenance.length > 0) {
    const who = [...new Set(facts.provenance.map((change) => name(change.handler)))].join(', ');
    body.push(`Changed by ${who} from what the model proposed:`);
    body.push(...diffLines(facts.proposedArgs, facts.args, names));
  }
  return [...head, ...clip(body)].join('\n');
}

/** The strings that name a file or host the call touches, as the arguments spell them. */
function namedTargets(resources: readonly Resource[]): ReadonlySet<string> {
  const names = new Set<string>();
  for (const r of resources) {
    if (r.kind === 'fs.read' || r.kind === 'fs.write') {
      names.add(r.path);
      if (r.written !== undefined) names.add(r.written);
    } else if (r.kind === 'net') {
      names.add(r.host);
      if (r.url !== undefined) names.add(r.url);
    }
  }
  return names;
}

function argLines(args: unknown, names: ReadonlySet<string>): string[] {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return field('  ', undefined, args, names);
  return Object.entries(args as Record<string, unknown>).flatMap(([key, value]) => field('  ', key, value, names));
}

/**
 * `  key: value` when the value shows as one line; else `  key:` and the value's lines under it,
 * each behind the gutter.
 */
function field(prefix: string, key: string | undefined, value: unknown, names: ReadonlySet<string>): string[] {
  const label = key === undefined ? prefix : `${prefix}${name(key)}:`;
  const oneLine = typeof value === 'string' && names.has(value);
  const shown = displayValue(value, { multiline: !oneLine, maxChars: MAX_VALUE_CHARS });
  if (!shown.includes('\n')) return [key === undefined ? `${label}${shown}` : `${label} ${shown}`];
  return [label.trimEnd(), ...shown.split('\n').map((line) => `${GUTTER}${line}`.trimEnd())];
}

/** Key by key: `- key: before` / `+ key: after` for each top-level argument that differs. */
function diffLines(before: unknown, after: unknown, names: ReadonlySet<string>): string[] {
  const a = (before ?? {}) as Record<string, unknown>;
  const b = (after ?? {}) as Record<string, unknown>;
  const out: string[] = [];
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const was = JSON.stringify(a[key]);
    const now = JSON.stringify(b[key]);
    if (was === now) continue;
    if (key in a) out.push(...field('  - ', key, a[key], names));
    if (key in b) out.push(...field('  + ', key, b[key], names));
  }
  return out.length > 0 ? out : ['  (no visible difference)'];
}

/** A tool name, argument key or handler: one short line. */
export function name(text: string): string {
  return displayText(text, { maxChars: MAX_NAME_CHARS });
}

/** Too many lines: the first and the last ones, so the end of the last argument stays in view. */
function clip(lines: string[]): string[] {
  const flat = lines.flatMap((line) => line.split('\n'));
  if (flat.length <= MAX_LINES) return flat;
  const keepHead = Math.ceil((MAX_LINES - 1) / 2);
  const keepTail = MAX_LINES - 1 - keepHead;
  return [...flat.slice(0, keepHead), `  \u27EA… ${countOf(flat.length - keepHead - keepTail, 'line')} left out …\u27EB`, ...flat.slice(flat.length - keepTail)];
}
