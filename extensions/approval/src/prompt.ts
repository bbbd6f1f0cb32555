import type { ArgsChange, Vote } from '@airlock/kernel';

/** Long values are cut so a prompt fits a terminal; the person can still see what the call is. */
const MAX_VALUE_CHARS = 600;
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
  // Who asks and why always shows; the arguments and the diff are cut to fit a terminal.
  const head = [`Allow ${facts.tool}?`];
  for (const vote of facts.asking) {
    const rule = vote.rule ?? vote.handler;
    head.push(`Asked by ${rule.startsWith('default:') ? 'the default' : 'rule'} ${rule}${vote.reason ? `: ${oneLine(vote.reason)}` : ''}`);
  }
  const body = argLines(facts.args);
  if (facts.provenance.length > 0) {
    const who = [...new Set(facts.provenance.map((change) => change.handler))].join(', ');
    body.push(`Changed by ${who} from what the model proposed:`);
    body.push(...diffLines(facts.proposedArgs, facts.args));
  }
  return [...head, ...clip(body)].join('\n');
}

function argLines(args: unknown): string[] {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return [`  ${show(args)}`];
  return Object.entries(args as Record<string, unknown>).map(([key, value]) => `  ${key}: ${show(value)}`);
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
    if (key in a) out.push(`  - ${key}: ${show(a[key])}`);
    if (key in b) out.push(`  + ${key}: ${show(b[key])}`);
  }
  return out.length > 0 ? out : ['  (no visible difference)'];
}

function show(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  // Control characters could rewrite the terminal (clear the line, move the cursor): show them escaped.
  const safe = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const indented = safe.replace(/\n/g, '\n    ');
  return indented.length > MAX_VALUE_CHARS ? `${indented.slice(0, MAX_VALUE_CHARS)}… (${text.length} characters in all)` : indented;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function clip(lines: string[]): string[] {
  const flat = lines.flatMap((line) => line.split('\n'));
  if (flat.length <= MAX_LINES) return flat;
  return [...flat.slice(0, MAX_LINES - 1), `  … ${flat.length - MAX_LINES + 1} more lines`];
}
