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

/**
 * How deeply objects and arrays may nest in a value that crosses the kernel boundary: a model's
 * arguments, a tool's result. Real tool parameters nest a handful of levels (the deepest built-in
 * schema has 3), so 100 is generous; it is also far below the ~2,000 levels at which the
 * recursive walks behind the boundary (clone, freeze, equality, JSON.stringify in events, audit
 * records and redaction) would run out of stack, even several walks deep.
 */
export const MAX_VALUE_DEPTH = 100;

/**
 * True when objects and arrays in `value` nest more than `limit` levels deep (`{}` is one level,
 * `{a: []}` two), or refer to themselves. Iterative, so it is safe on any value: it is the check
 * that lets every recursive walk behind it assume a bounded depth. A shared object is walked again
 * only when reached at a greater depth, so a value built from shared parts costs at most
 * `limit` visits per object.
 *
 * @example
 * nestsDeeperThan(JSON.parse('[[[1]]]'), 2) // true
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  // Pairs (node, depth) on one array, and for-in rather than Object.values: no allocation per
  // object, which halves the cost on the hot path (~0.1 µs for a typical call's arguments).
  const stack: unknown[] = [value, 1];
  let deepest: Map<object, number> | undefined;
  let visits = 0;
  while (stack.length > 0) {
    const depth = stack.pop() as number;
    const node = stack.pop() as Record<string, unknown>;
    if (depth > limit) return true;
    // A tree (all JSON is one) never meets an object twice; only a big value pays for the map,
    // which keeps a value made of shared parts from costing 2^limit visits.
    if (++visits > 1024) {
      deepest ??= new Map();
      const seen = deepest.get(node);
      if (seen !== undefined && seen >= depth) continue;
      deepest.set(node, depth);
    }
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const child: unknown = node[i];
        if (child !== null && typeof child === 'object') stack.push(child, depth + 1);
      }
    } else if (!ArrayBuffer.isView(node)) {
      for (const key in node) {
        if (!Object.hasOwn(node, key)) continue;
        const child = node[key];
        if (child !== null && typeof child === 'object') stack.push(child, depth + 1);
      }
    }
  }
  return false;
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
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) freezeTree(value, 0);
  return value;
}

// Children first, then the parent, and leaves tested before any call: V8 freezes this way about
// twice as fast, and freezing was a tenth of the kernel's time per tool call. Past the depth the
// kernel accepts, it goes parent first, which stops at a cycle (a frozen parent is not entered again).
function freezeTree(value: object, depth: number): void {
  if (depth > MAX_VALUE_DEPTH) {
    freezeParentFirst(value);
    return;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (item !== null && typeof item === 'object' && !Object.isFrozen(item)) freezeTree(item, depth + 1);
    }
  } else if (!ArrayBuffer.isView(value)) {
    const keys = Object.keys(value);
    for (let i = 0; i < keys.length; i++) {
      const item = (value as Record<string, unknown>)[keys[i]!];
      if (item !== null && typeof item === 'object' && !Object.isFrozen(item)) freezeTree(item, depth + 1);
    }
  }
  Object.freeze(value);
}

function freezeParentFirst(value: object): void {
  Object.freeze(value);
  const items = Array.isArray(value) ? value : ArrayBuffer.isView(value) ? [] : Object.values(value);
  for (const item of items) if (item !== null && typeof item === 'object' && !Object.isFrozen(item)) freezeParentFirst(item);
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
 * The audit log keeps the same amount of each string it records (extensions/policy/audit-log/src/bound.ts):
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
  if (nestsDeeperThan(value, MAX_VALUE_DEPTH)) return `(not shown: nests deeper than ${MAX_VALUE_DEPTH} levels)`;
  let text: string;
  try {
    text = JSON.stringify(value, (_key, item: unknown) => (typeof item === 'string' ? cutForEcho(item) : item), 2) ?? String(value);
  } catch {
    text = String(value);
  }
  return cutForEcho(text, maxChars);
}

/**
 * The words of anything thrown: an Error's message (its name when the message is empty), a
 * string as it is, anything else as JSON.
 *
 * @example errorMessage(new Error('disk full')) // "disk full"
 */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
