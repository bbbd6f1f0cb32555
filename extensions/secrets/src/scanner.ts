import { findAssignments } from './assignments.js';
import { envSecrets, type EnvSecret } from './env-values.js';
import { FORMAT_RULES, SCAN_RULES, type FormatRule } from './formats.js';

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

function findFormats(text: string, re: RegExp, byTrigger: Map<string, FormatRule[]>, out: Candidate[]): void {
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    // Resume one character on unless a rule matched, so a trigger inside a trigger (`sk-SG.…`) is still seen.
    let next = m.index + 1;
    for (const rule of byTrigger.get(m[0])!) {
      const span = rule.match(text, m.index);
      if (span === undefined) continue;
      out.push({ ruleId: rule.id, start: span.start, end: span.end, rank: RANK_FORMAT });
      // Jump past the token: a key block's body must not trigger rules of its own.
      next = Math.max(next, span.end);
      break;
    }
    re.lastIndex = next;
  }
  for (const rule of SCAN_RULES) {
    for (const span of rule.scan(text)) out.push({ ruleId: rule.id, ...span, rank: RANK_FORMAT });
  }
}

function findEnvValues(text: string, secrets: readonly EnvSecret[], out: Candidate[]): void {
  for (const { name, value } of secrets) {
    for (let i = text.indexOf(value); i !== -1; i = text.indexOf(value, i + value.length)) {
      out.push({ ruleId: `env:${name}`, start: i, end: i + value.length, rank: RANK_ENV });
    }
  }
}

/** Keep the best of overlapping candidates (by rank, then earlier, then longer); sort by start. */
function resolve(candidates: Candidate[]): SecretFinding[] {
  candidates.sort((a, b) => a.rank - b.rank || a.start - b.start || b.end - a.end);
  const kept: SecretFinding[] = [];
  for (const c of candidates) {
    if (kept.some((k) => c.start < k.end && k.start < c.end)) continue;
    kept.push({ ruleId: c.ruleId, start: c.start, end: c.end });
  }
  return kept.sort((a, b) => a.start - b.start);
}

export function allowFilter(allow: readonly (string | RegExp)[]): (value: string) => boolean {
  const exact = new Set<string>();
  // Copies without g/y: a shared lastIndex would make `test` skip matches on alternate calls.
  const patterns: RegExp[] = [];
  for (const a of allow) {
    if (typeof a === 'string') exact.add(a);
    else patterns.push(new RegExp(a.source, a.flags.replace(/[gy]/g, '')));
  }
  return (value) => exact.has(value) || patterns.some((p) => p.test(value));
}

/**
 * A scanner for known token formats, secret-named assignments and the values of `env`'s secret
 * variables. Synchronous and allocation-light: two regex passes plus one `indexOf` per
 * environment secret, whatever the number of rules.
 *
 * @example
 * const scanner = createSecretScanner({ env: process.env, allow: ['ghp_' + '0'.repeat(36)] });
 * scanner.scan('token ghp_…'); // [{ ruleId: 'github-token', start: 6, end: 46 }]
 */
export function createSecretScanner(options: SecretScannerOptions = {}): SecretScanner {
  const { re, byTrigger } = triggerIndex(FORMAT_RULES);
  const secrets = options.env ? envSecrets(options.env) : [];
  const allowed = options.allow && options.allow.length > 0 ? allowFilter(options.allow) : undefined;
  return {
    scan(text) {
      const candidates: Candidate[] = [];
      findFormats(text, re, byTrigger, candidates);
      for (const a of findAssignments(text)) candidates.push({ ...a, rank: RANK_ASSIGNMENT });
      findEnvValues(text, secrets, candidates);
      const visible = allowed ? candidates.filter((c) => !allowed(text.slice(c.start, c.end))) : candidates;
      return visible.length === 0 ? [] : resolve(visible);
    },
  };
}
