import { LinearRegExp } from '@airlock/toolkit/util';
import { findAssignments } from './assignments.js';
import { base64Blocks } from './base64-blocks.js';
import { encodedSecrets } from './encoded.js';
import { envSecrets, type EnvSecret } from './env-values.js';
import { foldedSecrets } from './folded.js';
import { FORMAT_RULES, SCAN_RULES, type FormatRule } from './formats.js';
import { keyBodies } from './key-body.js';
import { ScanContext } from './scan-context.js';

export interface SecretFinding {
  ruleId: string;
  /** UTF-16 offsets into the scanned text; `end` is exclusive. */
  start: number;
  end: number;
}

export interface SecretScannerOptions {
  /** Values of secret-looking variables in it are secrets (min length 8, so "1" or "true" never are). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Never reported: a string is an exact secret value; a RegExp is tested against each found value. */
  allow?: readonly (string | RegExp)[];
}

export interface SecretScanner {
  /** Findings in `text`: non-overlapping, sorted by start. */
  scan(text: string): SecretFinding[];
}

/**
 * When findings overlap, the more specific wins: an environment variable's exact value, then a
 * known format, then a secret-named assignment. So `DATABASE_URL=postgres://u:p@h` gives up only
 * its password, and `TOKEN=ghp_…` is reported as a github-token.
 */
const RANK_ENV = 0;
const RANK_FORMAT = 1;
const RANK_ASSIGNMENT = 2;
/** Found only in fixed-width lines joined: fills gaps, never displaces what a line showed by itself. */
const RANK_FOLDED = 3;

interface Candidate extends SecretFinding {
  rank: number;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** One alternation of every rule's trigger literals, longest first so `sk-ant-` wins over `sk-`. */
function triggerIndex(rules: readonly FormatRule[]): { re: RegExp; byTrigger: Map<string, FormatRule[]> } {
  const byTrigger = new Map<string, FormatRule[]>();
  for (const rule of rules) {
    for (const t of rule.triggers) {
      const list = byTrigger.get(t) ?? [];
      list.push(rule);
      byTrigger.set(t, list);
    }
  }
  const literals = [...byTrigger.keys()].sort((a, b) => b.length - a.length);
  return { re: new RegExp(literals.map(escapeRegExp).join('|'), 'g'), byTrigger };
}

function findFormats(ctx: ScanContext, re: RegExp, byTrigger: Map<string, FormatRule[]>, out: Candidate[]): void {
  const { text } = ctx;
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    // Resume one character on unless a rule matched, so a trigger inside a trigger (`sk-SG.…`) is still seen.
    let next = m.index + 1;
    for (const rule of byTrigger.get(m[0])!) {
      const span = rule.match(text, m.index, ctx);
      if (span === undefined) continue;
      out.push({ ruleId: rule.id, start: span.start, end: span.end, rank: RANK_FORMAT });
      // Jump past the token: a key block's body must not trigger rules of its own.
      next = Math.max(next, span.end);
      break;
    }
    re.lastIndex = next;
  }
  for (const rule of SCAN_RULES) {
    for (const span of rule.scan(text, ctx)) out.push({ ruleId: rule.id, ...span, rank: RANK_FORMAT });
  }
}

function findEnvValues(text: string, secrets: readonly EnvSecret[], out: Candidate[]): void {
  for (const { name, value } of secrets) {
    for (let i = text.indexOf(value); i !== -1; i = text.indexOf(value, i + value.length)) {
      out.push({ ruleId: `env:${name}`, start: i, end: i + value.length, rank: RANK_ENV });
    }
  }
}

/**
 * Keep the best of overlapping candidates (by rank, then earlier, then longer); sort by start.
 * One sweep per rank against the (sorted, disjoint) winners of the better ranks, so a result
 * with a hundred thousand tokens costs n log n, not n².
 */
function resolve(candidates: Candidate[]): SecretFinding[] {
  candidates.sort((a, b) => a.rank - b.rank || a.start - b.start || b.end - a.end);
  let kept: SecretFinding[] = [];
  for (let i = 0; i < candidates.length; ) {
    const rank = candidates[i]!.rank;
    const won: SecretFinding[] = [];
    let k = 0;
    let lastEnd = -1;
    for (; i < candidates.length && candidates[i]!.rank === rank; i++) {
      const c = candidates[i]!;
      while (k < kept.length && kept[k]!.end <= c.start) k++;
      if (c.start < lastEnd || (k < kept.length && kept[k]!.start < c.end)) continue;
      won.push({ ruleId: c.ruleId, start: c.start, end: c.end });
      lastEnd = c.end;
    }
    kept = mergeByStart(kept, won);
  }
  return kept;
}

function mergeByStart(a: SecretFinding[], b: SecretFinding[]): SecretFinding[] {
  if (b.length === 0) return a;
  const out: SecretFinding[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]!.start <= b[j]!.start)) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  return out;
}

export function allowFilter(allow: readonly (string | RegExp)[]): (value: string) => boolean {
  const exact = new Set<string>();
  // Copies without g/y: a shared lastIndex would make `test` skip matches on alternate calls.
  // Linear-time copies: an allow pattern is the user's text, tested against every secret found.
  const patterns: RegExp[] = [];
  for (const a of allow) {
    if (typeof a === 'string') exact.add(a);
    else patterns.push(new LinearRegExp(a.source, a.flags.replace(/[gy]/g, '')));
  }
  return (value) => exact.has(value) || patterns.some((p) => p.test(value));
}

/**
 * A scanner for known token formats, private-key bodies with or without their header, secrets
 * inside base64, secret-named assignments and the values of `env`'s secret variables.
 * Synchronous and linear in the text on any input: two regex passes, one character pass for
 * base64 runs, and one `indexOf` per environment secret, whatever the number of rules.
 *
 * @example
 * const scanner = createSecretScanner({ env: process.env, allow: ['ghp_' + '0'.repeat(36)] });
 * scanner.scan('token ghp_…'); // [{ ruleId: 'github-token', start: 6, end: 46 }]
 */
export function createSecretScanner(options: SecretScannerOptions = {}): SecretScanner {
  const { re, byTrigger } = triggerIndex(FORMAT_RULES);
  const secrets = options.env ? envSecrets(options.env) : [];
  const allowed = options.allow && options.allow.length > 0 ? allowFilter(options.allow) : undefined;
  /**
   * `depth` 2: also look across fixed-width lines, whose joined text is scanned at depth 1;
   * depth 1: also inside base64, whose decoded text is scanned at depth 0. So `base64 .env |
   * fold -w 70` is found, and no input makes the scan recurse further.
   */
  const scan = (text: string, depth: number): SecretFinding[] => {
    const ctx = new ScanContext(text);
    const candidates: Candidate[] = [];
    findFormats(ctx, re, byTrigger, candidates);
    const blocks = base64Blocks(text);
    // Before key bodies: a 70-wide `base64 .env | fold -w 70` is better named by what it holds (ties keep the first).
    if (depth >= 1) for (const f of encodedSecrets(text, blocks, (decoded) => scan(decoded, 0))) candidates.push({ ...f, rank: RANK_FORMAT });
    for (const span of keyBodies(text, blocks, ctx)) candidates.push({ ruleId: 'private-key', ...span, rank: RANK_FORMAT });
    if (depth >= 2) for (const f of foldedSecrets(text, (joined) => scan(joined, 1))) candidates.push({ ...f, rank: RANK_FOLDED });
    for (const a of findAssignments(text, ctx)) candidates.push({ ...a, rank: RANK_ASSIGNMENT });
    findEnvValues(text, secrets, candidates);
    const visible = allowed ? candidates.filter((c) => !allowed(text.slice(c.start, c.end))) : candidates;
    return visible.length === 0 ? [] : resolve(visible);
  };
  return { scan: (text) => scan(text, 2) };
}
