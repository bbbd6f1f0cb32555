import { valueKindOf } from '@airlock/host';

/**
 * An extension's options, read from its TypeBox schema, as rows a person can scan: the dotted
 * key, its type in TypeScript-like words, its default, whether settings must give it, and its
 * description. Shared by `airlock extensions info` and the catalog, so both say the same.
 */

/** One option of an extension. `default` is absent when the schema names none. */
export interface OptionRow {
  /** Dotted for nested objects: `limits.maxBytes`. */
  key: string;
  type: string;
  default?: unknown;
  /** Settings must give it: the schema requires it and has no default. */
  required: boolean;
  description?: string;
  /** What the value names (`path`, `program`, `credential`, …): such values count only from trusted settings (docs/settings.md). */
  valueKind?: string;
}

interface Schema {
  type?: unknown;
  const?: unknown;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
  additionalProperties?: unknown;
  required?: string[];
  default?: unknown;
  description?: string;
}

/**
 * The rows of an options schema (an object schema); nested objects with named properties are
 * opened one level at a time, so `limits.maxBytes` is a row of its own.
 *
 * @example
 * optionRows(Type.Object({ greeting: Type.String({ default: 'Hello' }) }))
 * // [{ key: 'greeting', type: 'string', default: 'Hello', required: false }]
 */
export function optionRows(schema: unknown, prefix = ''): OptionRow[] {
  const s = schema as Schema | undefined;
  if (s === undefined || s === null || typeof s !== 'object' || s.properties === undefined) return [];
  const required = new Set(s.required ?? []);
  const rows: OptionRow[] = [];
  for (const [name, property] of Object.entries(s.properties)) {
    const key = `${prefix}${name}`;
    rows.push({
      key,
      type: typeText(property),
      ...(property.default === undefined ? {} : { default: property.default }),
      required: required.has(name) && property.default === undefined,
      ...(typeof property.description === 'string' ? { description: property.description } : {}),
      ...(valueKindOf(property) === undefined ? {} : { valueKind: valueKindOf(property) }),
    });
    if (property.properties !== undefined && Object.keys(property.properties).length > 0) rows.push(...optionRows(property, `${key}.`));
  }
  return rows;
}

/**
 * A schema's type in the words of TypeScript: `string`, `1 | 2`, `string[]`,
 * `Record<string, number>`, `"ask" | "deny"`.
 *
 * @example typeText(Type.Array(Type.Union([Type.Literal('a'), Type.Literal('b')]))) // '("a" | "b")[]'
 */
export function typeText(schema: unknown): string {
  const s = schema as Schema | undefined;
  if (s === undefined || s === null || typeof s !== 'object') return 'unknown';
  if ('const' in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  const union = s.anyOf ?? s.oneOf;
  if (Array.isArray(union)) return [...new Set(union.map(typeText))].join(' | ');
  if (Array.isArray(s.type)) return s.type.map(String).join(' | ');
  if (s.type === 'array') {
    const item = typeText(s.items);
    return item.includes(' | ') ? `(${item})[]` : `${item}[]`;
  }
  if (s.type === 'object') {
    const values = s.patternProperties === undefined ? undefined : Object.values(s.patternProperties)[0];
    if (values !== undefined) return `Record<string, ${typeText(values)}>`;
    if (typeof s.additionalProperties === 'object' && s.additionalProperties !== null && s.properties === undefined) {
      return `Record<string, ${typeText(s.additionalProperties)}>`;
    }
    return 'object';
  }
  return typeof s.type === 'string' ? s.type : 'unknown';
}
