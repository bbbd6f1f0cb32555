import { secretDigest } from './digest.js';
import { looksSecretName } from './names.js';
import type { SecretScanner } from './scanner.js';

export interface Redactor {
  /** `text` with every finding replaced by its placeholder; the same string when nothing was found. */
  text(text: string): string;
  /**
   * A deep copy of `value` with every string redacted, and with the string value of a
   * secret-named key redacted whole when it looks random (`{ password: "…" }` has no context in
   * the string itself). Arrays and plain objects are copied; anything else (Date, Map, Buffer,
   * class instances) is passed through untouched.
   */
  value<T>(value: T): T;
  /** Like `value`, and says whether anything was redacted (so callers can skip an unchanged copy). */
  apply<T>(value: T): { value: T; changed: boolean };
  /** Distinct secrets seen so far. */
  readonly count: number;
  /** The SHA-256 of the secret a placeholder this redactor wrote stands for (see digest.ts); never the secret. */
  digestOf(placeholder: string): string | undefined;
}

/** `[REDACTED:github-token#1]`: says what was there and which one, never any of its characters. */
function placeholder(ruleId: string, n: number): string {
  return `[REDACTED:${ruleId}#${n}]`;
}

/** Keys remembered per redactor (see keyInfo), and the longest one remembered. */
const MEMO_KEYS = 1024;
const MEMO_KEY_CHARS = 128;

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A redactor with a memory: the same secret gets the same placeholder for the redactor's
 * lifetime (one per session), so a model can still tell "the token from before" from a new one,
 * and numbering runs per rule id.
 *
 * @example
 * const r = createRedactor(createSecretScanner());
 * r.text('ghp_…'); // '[REDACTED:github-token#1]'
 */
export function createRedactor(scanner: SecretScanner): Redactor {
  const placeholders = new Map<string, string>();
  const perRule = new Map<string, number>();
  const digests = new Map<string, string>();

  const placeholderFor = (secret: string, ruleId: string): string => {
    let p = placeholders.get(secret);
    if (p === undefined) {
      const n = (perRule.get(ruleId) ?? 0) + 1;
      perRule.set(ruleId, n);
      p = placeholder(ruleId, n);
      placeholders.set(secret, p);
      digests.set(p, secretDigest(secret));
    }
    return p;
  };

  const text = (input: string): string => {
    const findings = scanner.scan(input);
    if (findings.length === 0) return input;
    let out = '';
    let at = 0;
    for (const f of findings) {
      out += input.slice(at, f.start) + placeholderFor(input.slice(f.start, f.end), f.ruleId);
      at = f.end;
    }
    return out + input.slice(at);
  };

  /**
   * For `{ password: "s3cr…" }`: the string alone has no context, so ask the scanner about the
   * pair as JSON text. The scanner's own rules (entropy, placeholders, allowlist) then decide,
   * exactly as they would for the same pair in a tool's output.
   */
  const keyedRule = (key: string, value: string): string | undefined => {
    if (!looksSecretName(key) || /["\\\s]/.test(key + value)) return undefined;
    const pair = `"${key}": "${value}"`;
    const start = key.length + 5;
    const hit = scanner.scan(pair).find((f) => f.start === start && f.end === start + value.length);
    return hit?.ruleId;
  };

  /**
   * Object keys are a small vocabulary (path, kind, command, …) met on every call: each key's
   * redacted text and whether it names a secret are kept, so a key is scanned once per session.
   * Both are functions of the key alone (a secret keeps its placeholder for the redactor's life).
   */
  const keys = new Map<string, { text: string; secretName: boolean }>();
  const keyInfo = (key: string): { text: string; secretName: boolean } => {
    let info = keys.get(key);
    if (info === undefined) {
      info = { text: text(key), secretName: looksSecretName(key) };
      if (key.length <= MEMO_KEY_CHARS) {
        if (keys.size >= MEMO_KEYS) keys.clear();
        keys.set(key, info);
      }
    }
    return info;
  };

  const walk = (value: unknown, seen: Map<object, unknown>, state: { changed: boolean }): unknown => {
    if (typeof value === 'string') {
      const out = text(value);
      if (out !== value) state.changed = true;
      return out;
    }
    if (typeof value !== 'object' || value === null) return value;
    const done = seen.get(value);
    if (done !== undefined) return done;
    if (Array.isArray(value)) {
      const copy: unknown[] = [];
      seen.set(value, copy);
      for (const item of value) copy.push(walk(item, seen, state));
      return copy;
    }
    if (!isPlainObject(value)) return value;
    const copy: Record<string, unknown> = Object.getPrototypeOf(value) === null ? Object.create(null) : {};
    seen.set(value, copy);
    for (const [key, item] of Object.entries(value)) {
      const info = keyInfo(key);
      const newKey = info.text;
      if (newKey !== key) state.changed = true;
      const ruleId = typeof item === 'string' && info.secretName ? keyedRule(key, item) : undefined;
      if (ruleId !== undefined) {
        copy[newKey] = placeholderFor(item as string, ruleId);
        state.changed = true;
      } else copy[newKey] = walk(item, seen, state);
    }
    return copy;
  };

  return {
    text,
    value: <T>(value: T): T => walk(value, new Map(), { changed: false }) as T,
    apply<T>(value: T) {
      const state = { changed: false };
      const out = walk(value, new Map(), state) as T;
      return { value: out, changed: state.changed };
    },
    get count() {
      return placeholders.size;
    },
    digestOf: (placeholder) => digests.get(placeholder),
  };
}
