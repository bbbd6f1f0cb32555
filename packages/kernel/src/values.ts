import { createHash } from 'node:crypto';

/**
 * Small helpers for the JSON-like values that cross the kernel boundary: arguments from a model,
 * results from a tool. Tool arguments are plain JSON, so a hand-written clone is ~10× cheaper
 * than structuredClone (about 1 µs for a two-field object) and the per-call budget is 10 µs.
 */

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function';
}

/** Deep copy of plain objects and arrays; anything else (Date, Map, class instances) via structuredClone. */
export function cloneValue<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(cloneValue) as T;
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) out[key] = cloneValue(value[key]);
    return out as T;
  }
  return structuredClone(value);
}

/** Freeze a value and everything reachable from it, so read-only handlers cannot change it. */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (const item of value) deepFreeze(item);
  } else if (!ArrayBuffer.isView(value)) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

/** Structural equality for JSON-like values (used to tell a real argument change from a copy). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((item, i) => jsonEqual(item, bb[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * How much of one string a text for the model (a denial, an invalid-arguments message) may echo.
 * The audit log keeps the same amount of each string it records (extensions/audit-log/src/bound.ts):
 * a 2 MB command must not become a 2 MB result, yet the model must still recognise its call.
 */
export const ECHO_KEEP_CHARS = 2048;

/**
 * `text` itself when it is short, else its first `keep` characters and a note with the full
 * length and the SHA-256 of the whole, so the cut text still identifies what was sent.
 *
 * @example cutForEcho('x'.repeat(5000)) // the first 2,048 x, then '… [cut: 5000 characters in all, sha256 <64 hex digits>]'
 */
export function cutForEcho(text: string, keep = ECHO_KEEP_CHARS): string {
  if (text.length <= keep) return text;
  return `${text.slice(0, keep)}… [cut: ${text.length} characters in all, sha256 ${createHash('sha256').update(text).digest('hex')}]`;
}

/**
 * JSON for messages: never throws, never huge. Each long string is cut first (so the other
 * arguments stay visible and the work stays proportional to what is shown), then the whole text
 * if it is still longer than `maxChars`; every cut names the length and SHA-256 of what it cut.
 */
export function previewJson(value: unknown, maxChars = 2 * ECHO_KEEP_CHARS): string {
  let text: string;
  try {
    text = JSON.stringify(value, (_key, item: unknown) => (typeof item === 'string' ? cutForEcho(item) : item), 2) ?? String(value);
  } catch {
    text = String(value);
  }
  return cutForEcho(text, maxChars);
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
