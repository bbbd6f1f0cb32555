import { createHash } from 'node:crypto';

/**
 * Canonical JSON: object keys sorted, no whitespace, JSON.stringify's rules for everything else
 * (undefined members dropped, undefined in arrays becomes null). Two results with the same content
 * hash the same however their objects were built, so `resultSha256` can be recomputed by anyone
 * who holds the content.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  // toJSON first (Dates, Buffers), as JSON.stringify would, so sorting sees the serialised shape.
  const maybeJson = value as { toJSON?: () => unknown };
  if (typeof maybeJson.toJSON === 'function') return sortKeys(maybeJson.toJSON());
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
  return out;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
