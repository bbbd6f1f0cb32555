import { createHash } from 'node:crypto';

/**
 * What stands beside a placeholder in the audit log: the SHA-256 (hex, of the UTF-8 bytes) of
 * the secret it replaced. An auditor who holds a candidate value can confirm what ran
 * (`printf %s "$value" | sha256sum`); the log never holds the value. A short or guessable
 * secret (a weak password) can be found from its hash by trying candidates: the hash is exactly
 * as secret as such a value is strong.
 *
 * @example secretDigest('hunter2') // 'f52fbd32b2b3b86ff88ef6c490628285f482af15ddcb29541f94bcf526a3f6c7'
 */
export function secretDigest(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** A placeholder as createRedactor writes it: `[REDACTED:github-token#1]`, `[REDACTED:env:DEPLOY_TOKEN#2]`. */
const PLACEHOLDER = /\[REDACTED:[^\]\s#]+#\d+\]/g;

/**
 * How many placeholders each detector wrote into `text`: the rule id up to its first `:`
 * (`env:DEPLOY_TOKEN` counts as `env`, `file:~/.aws/credentials:key` as `file`), so a count never
 * carries a variable or file name. For metrics (redactions by detector).
 *
 * @example placeholderCounts('a [REDACTED:github-token#1] b [REDACTED:env:X#2]') // Map { 'github-token' => 1, 'env' => 1 }
 */
export function placeholderCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const m of text.matchAll(PLACEHOLDER)) {
    const rule = m[0].slice('[REDACTED:'.length, m[0].lastIndexOf('#'));
    const detector = rule.split(':')[0]!;
    counts.set(detector, (counts.get(detector) ?? 0) + 1);
  }
  return counts;
}

/**
 * Every placeholder in the strings of `value` (keys included) that `digestOf` knows, with its
 * digest: the map an audit record keeps beside the placeholders it holds.
 *
 * @example placeholderDigests({ command: 'X=[REDACTED:assignment#1]' }, r.digestOf) // { '[REDACTED:assignment#1]': '…' }
 */
export function placeholderDigests(value: unknown, digestOf: (placeholder: string) => string | undefined): Record<string, string> {
  const found: Record<string, string> = {};
  const seen = new Set<object>();
  const visit = (v: unknown): void => {
    if (typeof v === 'string') {
      // Most strings hold no placeholder: one indexOf instead of a regex iterator each.
      if (!v.includes('[REDACTED:')) return;
      for (const m of v.matchAll(PLACEHOLDER)) {
        const digest = digestOf(m[0]);
        if (digest !== undefined) found[m[0]] = digest;
      }
      return;
    }
    if (typeof v !== 'object' || v === null || seen.has(v)) return;
    seen.add(v);
    for (const [key, item] of Object.entries(v)) {
      visit(key);
      visit(item);
    }
  };
  visit(value);
  return found;
}
