/**
 * Turns "this value does not match this schema" into one readable problem per wrong place: the
 * property path, what the schema expects there and what was found. The expectation is derived
 * from the schema itself, so the wording cannot drift from the rules.
 *
 * Why not TypeBox's own errors: they are exact but list every union branch separately
 * ("must be string", "must be object", "must match a schema in anyOf"), which does not tell a
 * user which branch they meant, and an unknown key is "must not have additional properties"
 * with no suggestion. This walker picks the branch the value was aiming at and names the
 * closest known key. It covers the JSON Schema subset the settings schema uses; validate.ts
 * falls back to TypeBox's errors should it ever miss something.
 */
import { closestNames } from '@airlock/kernel';
import type { SettingsProblem } from './errors.js';

/** The JSON Schema keywords the settings schema uses. */
interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  patternProperties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
}

/**
 * Every problem of `value` against `schema`; empty when it fits.
 *
 * @example
 * explain(SettingsSchema, { execution: { maxConcurrency: 0 } });
 * // [{ path: 'execution.maxConcurrency', message: 'expected an integer ≥ 1, got 0' }]
 */
export function explain(schema: object, value: unknown, path = ''): SettingsProblem[] {
  const out: SettingsProblem[] = [];
  walk(schema as Schema, value, path, out);
  return out;
}

/**
 * A property path in the form people write it: `a.b[0].c`, `options["my-key"]`.
 *
 * @example joinPath('permissions.deny', 0) // 'permissions.deny[0]'
 */
export function joinPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  if (!/^[A-Za-z_$][\w$]*$/.test(key)) return `${base}[${JSON.stringify(key)}]`;
  return base ? `${base}.${key}` : key;
}

function walk(schema: Schema, value: unknown, path: string, out: SettingsProblem[]): void {
  if (schema.anyOf) return walkUnion(schema, value, path, out);
  if ('const' in schema) {
    if (value !== schema.const) expected(schema, value, path, out);
    return;
  }
  if (schema.type !== undefined && !fitsType(schema.type, value)) return expected(schema, value, path, out);

  switch (schema.type) {
    case 'object':
      return walkObject(schema, value as Record<string, unknown>, path, out);
    case 'array':
      (value as unknown[]).forEach((item, i) => schema.items && walk(schema.items, item, joinPath(path, i), out));
      return;
    case 'string':
      if (schema.minLength !== undefined && (value as string).length < schema.minLength) expected(schema, value, path, out);
      return;
    case 'integer':
    case 'number': {
      const n = value as number;
      const bad =
        (schema.type === 'integer' && !Number.isInteger(n)) ||
        (schema.minimum !== undefined && n < schema.minimum) ||
        (schema.maximum !== undefined && n > schema.maximum);
      if (bad) expected(schema, value, path, out);
      return;
    }
  }
}

function walkObject(schema: Schema, value: Record<string, unknown>, path: string, out: SettingsProblem[]): void {
  const properties = schema.properties ?? {};
  for (const key of schema.required ?? []) {
    const property = properties[key];
    if (!Object.hasOwn(value, key) && property) {
      out.push({ path: joinPath(path, key), message: `missing; expected ${describe(property)}` });
    }
  }
  const known = Object.keys(properties);
  for (const [key, item] of Object.entries(value)) {
    const property = properties[key] ?? patternFor(schema, key);
    if (property) walk(property, item, joinPath(path, key), out);
    else if (schema.additionalProperties === false) out.push(unknownKey(key, known, path));
  }
}

function patternFor(schema: Schema, key: string): Schema | undefined {
  for (const [pattern, property] of Object.entries(schema.patternProperties ?? {})) {
    if (new RegExp(pattern, 'u').test(key)) return property;
  }
  return undefined;
}

function unknownKey(key: string, known: readonly string[], path: string): SettingsProblem {
  const candidates = closestNames(key, known);
  const hint =
    candidates.length === 0
      ? `Known ${path ? 'keys' : 'settings'}: ${known.join(', ')}.`
      : candidates.length === 1
        ? `Did you mean "${candidates[0]}"?`
        : `Did you mean one of ${candidates.map((c) => `"${c}"`).join(', ')}?`;
  const what = path ? `unknown key "${key}" in ${path}` : `unknown setting "${key}"`;
  return { path: joinPath(path, key), message: `${what}. ${hint}` };
}

/**
 * A union: an enum of literals, or branches of different types. The branch the value was aiming at
 * is the one of its JSON type; among several object branches, the one whose required keys it has.
 */
function walkUnion(schema: Schema, value: unknown, path: string, out: SettingsProblem[]): void {
  const branches = schema.anyOf ?? [];
  if (branches.every((b) => 'const' in b)) {
    if (!branches.some((b) => b.const === value)) expected(schema, value, path, out);
    return;
  }
  const fitting = branches.filter((b) => b.type === undefined || fitsType(b.type, value));
  if (fitting.length === 0) return expected(schema, value, path, out);
  if (fitting.length === 1) return walk(fitting[0]!, value, path, out);

  // Several object branches: they are told apart by their required keys (`name` vs `path`).
  const present = (b: Schema) => (b.required ?? []).every((k) => Object.hasOwn(value as object, k));
  const candidates = fitting.filter(present);
  if (candidates.length === 1) return walk(candidates[0]!, value, path, out);
  if (candidates.length === 0) return expected({ anyOf: fitting }, value, path, out);
  const keys = [...new Set(candidates.flatMap((b) => b.required ?? []))].map((k) => `"${k}"`);
  out.push({ path, message: `${keys.join(' and ')} cannot go together; expected exactly one of them` });
}

function expected(schema: Schema, value: unknown, path: string, out: SettingsProblem[]): void {
  out.push({ path, message: `expected ${describe(schema)}, got ${received(value)}` });
}

function fitsType(type: string, value: unknown): boolean {
  switch (type) {
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'null':
      return value === null;
    default:
      return typeof value === type;
  }
}

/**
 * What a schema accepts, in words: `an integer ≥ 1`, `"parallel" or "sequential"`,
 * `a non-empty string or an object with "name" or "path"`.
 */
export function describe(schema: object): string {
  const s = schema as Schema;
  if ('const' in s) return JSON.stringify(s.const);
  if (s.anyOf) {
    if (s.anyOf.every((b) => 'const' in b)) return alternatives(s.anyOf.map((b) => JSON.stringify(b.const)));
    const objects = s.anyOf.filter((b) => b.type === 'object');
    const others = s.anyOf.filter((b) => b.type !== 'object').map(describe);
    const keys = [...new Set(objects.flatMap((b) => b.required ?? []))].map((k) => `"${k}"`);
    const object = objects.length === 0 ? [] : [keys.length > 0 ? `an object with ${keys.join(' or ')}` : 'an object'];
    return [...others, ...object].join(' or ');
  }
  switch (s.type) {
    case 'string':
      return s.minLength ? 'a non-empty string' : 'a string';
    case 'integer':
      return `an integer${range(s)}`;
    case 'number':
      return `a number${range(s)}`;
    case 'boolean':
      return 'true or false';
    case 'array':
      return s.items?.type === 'string' ? 'a list of strings' : 'a list';
    case 'object':
      return 'an object';
    default:
      return 'a valid value';
  }
}

function range(s: Schema): string {
  if (s.minimum !== undefined && s.maximum !== undefined) return ` from ${s.minimum} to ${s.maximum}`;
  if (s.minimum !== undefined) return ` ≥ ${s.minimum}`;
  if (s.maximum !== undefined) return ` ≤ ${s.maximum}`;
  return '';
}

function alternatives(items: readonly string[]): string {
  if (items.length === 2) return `${items[0]} or ${items[1]}`;
  return `one of ${items.join(', ')}`;
}

/** The found value, short: `0`, `"x"`, `a list`, `an object`, `a function`. */
export function received(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return value.length > 40 ? `${JSON.stringify(value.slice(0, 37))}…` : JSON.stringify(value);
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
    case 'function':
      return 'a function';
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}
