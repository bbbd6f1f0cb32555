import { closestNames } from '@airlock/kernel';
import type { TSchema } from 'typebox';

/**
 * Keys nobody reads are mistakes: an option spelled `mode` where the schema says `executionMode`
 * does nothing, silently. JSON Schema leaves objects open unless told otherwise, and most option
 * schemas are written without `additionalProperties: false`, so the host closes them itself:
 * every key an object schema does not name is reported, with the closest name it does.
 */

/**
 * One line per key in `value` that `schema` does not name, e.g.
 * `/mode is not an option here. Did you mean "executionMode"?`. Objects that say what extra keys
 * they take (`additionalProperties` as a schema, `patternProperties`, a Record) are left alone.
 *
 * @example
 * unknownKeys(Type.Object({ executionMode: Type.String() }), { mode: 'x' })
 * // ['/mode is not a known key. Did you mean "executionMode"?']
 */
export function unknownKeys(schema: TSchema, value: unknown, path = ''): string[] {
  const s = schema as Record<string, unknown>;
  if (Array.isArray(value)) {
    const items = s.items;
    return isSchema(items) ? value.flatMap((item, i) => unknownKeys(items, item, `${path}/${i}`)) : [];
  }
  if (!isPlainObject(value) || s.type !== 'object' || !isPlainObject(s.properties)) return [];
  const properties = s.properties as Record<string, TSchema>;
  const open = s.additionalProperties !== undefined && s.additionalProperties !== false;
  const problems: string[] = [];
  for (const [key, inner] of Object.entries(value)) {
    const known = properties[key];
    if (known !== undefined) {
      problems.push(...unknownKeys(known, inner, `${path}/${escape(key)}`));
      continue;
    }
    if (open || s.patternProperties !== undefined) continue;
    problems.push(`${path}/${escape(key)} is not a known key${suggest(key, Object.keys(properties))}`);
  }
  return problems;
}

/** `. Did you mean "executionMode"?`, or the known keys when none is close. */
export function suggest(key: string, known: readonly string[]): string {
  const near = closestNames(key, known);
  if (near.length > 0) return `. Did you mean ${near.map((n) => `"${n}"`).join(' or ')}?`;
  return known.length === 0 ? '; this takes no keys' : `; the known keys are ${known.map((n) => `"${n}"`).join(', ')}`;
}

function escape(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function isSchema(value: unknown): value is TSchema {
  return isPlainObject(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
