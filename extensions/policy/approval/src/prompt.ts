import type { ArgsChange, Vote } from '@airlock/kernel';
import { countOf, displayText, displayValue } from '@airlock/kernel/display';

/**
 * Long values are cut so a prompt fits a terminal, always keeping their start and their end
 * (the end of a command is where an attack hides); the person can still see what the call is.
 */
const MAX_VALUE_CHARS = 600;
const MAX_NAME_CHARS = 80;
const MAX_REASON_CHARS = 400;
const MAX_LINES = 40;

export interface PromptFacts {
  tool: string;
  args: unknown;
  proposedArgs: unknown;
  provenance: readonly ArgsChange[];
  /** The votes that asked (a rule and its reason each). */
  asking: readonly Vote[];
}

/**
 * The text of an approval prompt: the tool and its arguments, every rule that asked with its
 * reason, and — when a transform changed the arguments — what the model proposed and who
 * changed it, so a person never approves something other than what they think.
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
  const body = argLines(facts.args);
  if (facts.provenance.length > 0) {
    const who = [...new Set(facts.provenance.map((change) => name(change.handler)))].join(', ');
    body.push(`Changed by ${who} from what the model proposed:`);
    body.push(...diffLines(facts.proposedArgs, facts.args));
  }
  return [...head, ...clip(body)].join('\n');
}

function argLines(args: unknown): string[] {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return [`  ${show(args)}`];
  return Object.entries(args as Record<string, unknown>).map(([key, value]) => `  ${name(key)}: ${show(value)}`);
}

/** Key by key: `- key: before` / `+ key: after` for each top-level argument that differs. */
function diffLines(before: unknown, after: unknown): string[] {
  const a = (before ?? {}) as Record<string, unknown>;
  const b = (after ?? {}) as Record<string, unknown>;
  const out: string[] = [];
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const was = JSON.stringify(a[key]);
    const now = JSON.stringify(b[key]);
    if (was === now) continue;
    if (key in a) out.push(`  - ${name(key)}: ${show(a[key])}`);
    if (key in b) out.push(`  + ${name(key)}: ${show(b[key])}`);
  }
  return out.length > 0 ? out : ['  (no visible difference)'];
}

/** A tool name, argument key or handler: one short line. */
export function name(text: string): string {
  return displayText(text, { maxChars: MAX_NAME_CHARS });
}

function show(value: unknown): string {
  // Line breaks stay (a person reads a multi-line command or file as lines), indented under the key.
  return displayValue(value, { multiline: true, maxChars: MAX_VALUE_CHARS }).replace(/\n/g, '\n    ');
}

/** Too many lines: the first and the last ones, so the end of the last argument stays in view. */
function clip(lines: string[]): string[] {
  const flat = lines.flatMap((line) => line.split('\n'));
  if (flat.length <= MAX_LINES) return flat;
  const keepHead = Math.ceil((MAX_LINES - 1) / 2);
  const keepTail = MAX_LINES - 1 - keepHead;
  return [...flat.slice(0, keepHead), `  \u27EA… ${countOf(flat.length - keepHead - keepTail, 'line')} left out …\u27EB`, ...flat.slice(flat.length - keepTail)];
}
