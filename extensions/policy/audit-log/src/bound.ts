import { ECHO_KEEP_CHARS } from '@airlock/toolkit/util';
import { sha256Hex } from '@airlock/audit-format';

/**
 * A record keeps at most this many characters of any one string (a file's content in write's
 * arguments, a long command): as much as the kernel echoes to the model (`cutForEcho`). The rest is summed up by its length and SHA-256, so the log still
 * proves which content went where, and the work per call stays proportional to what is kept:
 * before this, a 10 MB write spent ~0.2 s scanning and storing its content in the audit log.
 */
export const KEEP_CHARS = ECHO_KEEP_CHARS;
/**
 * How much of a cut string is scanned for secrets before it is cut: a secret that begins inside
 * the kept part must be whole to be recognised (a private key block runs to a few KiB).
 */
const SCAN_CHARS = 64 * 1024;
const CUT = '\u0000airlock-audit-cut\u0000';
const MAX_DEPTH = 64;

/**
 * A JSON copy of `value` (what its record line will hold: undefined and functions dropped,
 * non-finite numbers as null, toJSON honoured) in which every string longer than KEEP_CHARS is
 * cut to SCAN_CHARS with a marker. Redact the copy, then pass it to {@link finishCuts}.
 *
 * @example finishCuts(redactor.value(boundedCopy(event.args)))
 */
export function boundedCopy(value: unknown): unknown {
  return copy(value, 0) ?? null;
}

function copy(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
      return value.length > KEEP_CHARS ? `${value.slice(0, SCAN_CHARS)}${CUT}${value.length}:${sha256Hex(value)}` : value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'boolean':
      return value;
    case 'bigint':
      return String(value);
    case 'object': {
      if (value === null) return null;
      if (depth >= MAX_DEPTH) return '[nested too deep for the audit log]';
      const withJson = value as { toJSON?: () => unknown };
      if (typeof withJson.toJSON === 'function') return copy(withJson.toJSON(), depth + 1);
      if (Array.isArray(value)) return value.map((item) => copy(item, depth + 1) ?? null);
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        const copied = copy(item, depth + 1);
        if (copied !== undefined) out[key] = copied;
      }
      return out;
    }
    default:
      return undefined; // undefined, functions, symbols: JSON leaves them out
  }
}

/** Replace each cut marker (after redaction) with the kept part and a note of what was cut. */
export function finishCuts<T>(value: T): T {
  return finish(value) as T;
}

function finish(value: unknown): unknown {
  if (typeof value === 'string') {
    const at = value.indexOf(CUT);
    if (at === -1) return value;
    const [length, hash] = value.slice(at + CUT.length).split(':');
    return `${value.slice(0, Math.min(at, KEEP_CHARS))}… [cut by the audit log: ${length} characters in all, sha256 ${hash}]`;
  }
  if (Array.isArray(value)) return value.map(finish);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = finish(item);
    return out;
  }
  return value;
}
