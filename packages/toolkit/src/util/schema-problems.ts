import type { TSchema } from 'typebox';
import Value from 'typebox/value';
import { closestNames, didYouMean } from '../suggest.js';
import { linearRegExp } from './linear-regex.js';
import { linearSchema } from './linear-schema.js';

/**
 * The one wording of "this value does not match its TypeBox schema", for tool arguments (stage 3),
 * settings, extension options and command options alike: one problem per wrong place, with the
 * property path as people write it, what the schema expects there and what was found.
 *
 * Why not TypeBox's own errors: they are exact but list every union branch separately ("must be
 * string", "must be object", "must match a schema in anyOf"), which does not tell a reader which
 * branch they meant, and an unknown key is "must not have additional properties" with no
 * suggestion. This walker derives the expectation from the schema (so the wording cannot drift
 * from the rules), picks the branch the value was aiming at and names the closest known key. For
 * keywords it does not know, TypeBox's errors still name the path, so a failing value never comes
 * back without a problem.
 */

/** One thing wrong with a value. */
export interface SchemaProblem {
  /** Where, as people write it: `edits[0].oldText`, `options["my-key"]`; '' is the value itself. */
  readonly path: string;
  /** The keys from the top down to the wrong place (`['edits', 0, 'oldText']`); empty for the value itself. */
  readonly keys: readonly (string | number)[];
  /** What is wrong and what was expected: `expected an integer ≥ 1, got 0`. */
  readonly message: string;
  /** `unknown_key`: a key no schema names; `missing`: a required key is absent; `invalid`: the value is wrong. */
  readonly kind: 'unknown_key' | 'missing' | 'invalid';
}

export interface SchemaProblemOptions {
  /**
   * Report keys an object schema does not name even where it leaves objects open (no
   * `additionalProperties: false`): for options, where a misspelt key would silently do nothing.
   */
  readonly closed?: boolean;
  /** What a top-level key is called in messages (`parameter`, `setting`, `option`); default `key`. */
  readonly keyNoun?: string;
}

/** The JSON Schema keywords the walker reads. */
interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  patternProperties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
}

type Keys = readonly (string | number)[];

interface Walk {
  readonly options: SchemaProblemOptions;
  readonly out: SchemaProblem[];
}

/**
 * Every problem of `value` against `schema`; empty exactly when the value fits (and, with
 * `closed`, has no key its schema does not name).
 *
 * @example
 * schemaProblems(Type.Object({ execution: Type.Object({ maxConcurrency: Type.Integer({ minimum: 1 }) }) }), { execution: { maxConcurrency: 0 } });
 * // [{ path: 'execution.maxConcurrency', keys: ['execution', 'maxConcurrency'], message: 'expected an integer ≥ 1, got 0', kind: 'invalid' }]
 */
export function schemaProblems(schema: TSchema, value: unknown, options: SchemaProblemOptions = {}): SchemaProblem[] {
  const w: Walk = { options, out: [] };
  walk(w, schema as Schema, value, []);
  // TypeBox checks the schema's linear-time form: its patterns may come from outside (linear-schema.ts).
  const safe = linearSchema(schema);
  if (w.out.length > 0 || Value.Check(safe, value)) return w.out;
  // A keyword the walker does not read (a $ref, a format …): TypeBox's own words, at the right path.
  const seen = new Set<string>();
  for (const e of Value.Errors(safe, value)) {
    const keys = pointerKeys(e.instancePath);
    const line = `${propertyPath(keys)}\0${e.message}`;
    if (seen.has(line)) continue;
    seen.add(line);
    w.out.push({ path: propertyPath(keys), keys, message: e.message, kind: 'invalid' });
  }
  return w.out.length > 0 ? w.out : [{ path: '', keys: [], message: 'does not match the schema', kind: 'invalid' }];
}

/**
 * The problems as lines, `path: message`, the value itself as `(root)`.
 *
 * @example
 * schemaProblemLines(Type.Object({ text: Type.String() }), {}); // ['text: missing; expected a string']
 */
export function schemaProblemLines(schema: TSchema, value: unknown, options: SchemaProblemOptions = {}): string[] {
  return schemaProblems(schema, value, options).map(formatSchemaProblem);
}

/** `edits[0].oldText: expected a string, got 42`; the value itself is `(root)`. */
export function formatSchemaProblem(problem: Pick<SchemaProblem, 'path' | 'message'>): string {
  return `${problem.path || '(root)'}: ${problem.message}`;
}

/**
 * A property path as people write it: `a.b[0].c`, `options["my-key"]`.
 *
 * @example propertyPath(['permissions', 'deny', 0]) // 'permissions.deny[0]'
 */
export function propertyPath(keys: Keys): string {
  let out = '';
  for (const key of keys) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (!/^[A-Za-z_$][\w$]*$/.test(key)) out += `[${JSON.stringify(key)}]`;
    else out += out === '' ? key : `.${key}`;
  }
  return out;
}

/** `/edits/0/oldText` (a JSON pointer, as TypeBox reports paths) → `['edits', 0, 'oldText']`. */
export function pointerKeys(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .split('/')
    .slice(1)
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

function walk(w: Walk, schema: Schema, value: unknown, keys: Keys): void {
  if (schema.allOf) for (const part of schema.allOf) walk(w, part, value, keys);
  if (schema.anyOf) return walkUnion(w, schema, value, keys);
  if ('const' in schema) {
    if (value !== schema.const) expected(w, schema, value, keys);
    return;
  }
  if (schema.enum) {
    if (!schema.enum.includes(value as never)) expected(w, schema, value, keys);
    return;
  }
  const types = typesOf(schema);
  if (types.length > 0 && !types.some((t) => fitsType(t, value))) return expected(w, schema, value, keys);

  if (isObject(value) && (schema.properties || schema.type === 'object')) return walkObject(w, schema, value, keys);
  if (Array.isArray(value)) {
    const n = value.length;
    if ((schema.minItems !== undefined && n < schema.minItems) || (schema.maxItems !== undefined && n > schema.maxItems)) expected(w, schema, value, keys);
    if (schema.items) value.forEach((item, i) => walk(w, schema.items!, item, [...keys, i]));
    return;
  }
  if (typeof value === 'string') {
    const bad =
      (schema.minLength !== undefined && value.length < schema.minLength) ||
      (schema.maxLength !== undefined && value.length > schema.maxLength) ||
      (schema.pattern !== undefined && !linearRegExp(schema.pattern, 'u').test(value));
    if (bad) expected(w, schema, value, keys);
    return;
  }
  if (typeof value === 'number') {
    const bad =
      (types.includes('integer') && !types.includes('number') && !Number.isInteger(value)) ||
      (schema.minimum !== undefined && value < schema.minimum) ||
      (schema.maximum !== undefined && value > schema.maximum) ||
      (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum) ||
      (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum);
    if (bad) expected(w, schema, value, keys);
  }
}

function walkObject(w: Walk, schema: Schema, value: Record<string, unknown>, keys: Keys): void {
  const properties = schema.properties ?? {};
  for (const key of schema.required ?? []) {
    const property = properties[key];
    if (!Object.hasOwn(value, key)) {
      w.out.push(problem([...keys, key], property ? `missing; expected ${describeSchema(property)}` : 'missing', 'missing'));
    }
  }
  const known = Object.keys(properties);
  const extra = schema.additionalProperties;
  for (const [key, item] of Object.entries(value)) {
    const property = Object.hasOwn(properties, key) ? properties[key] : patternFor(schema, key);
    if (property) walk(w, property, item, [...keys, key]);
    else if (typeof extra === 'object') walk(w, extra, item, [...keys, key]);
    else if (extra === false || (w.options.closed && extra === undefined && schema.patternProperties === undefined)) w.out.push(unknownKey(w, key, known, keys));
  }
}

function patternFor(schema: Schema, key: string): Schema | undefined {
  for (const [pattern, property] of Object.entries(schema.patternProperties ?? {})) {
    if (linearRegExp(pattern, 'u').test(key)) return property;
  }
  return undefined;
}

function unknownKey(w: Walk, key: string, known: readonly string[], keys: Keys): SchemaProblem {
  const noun = keys.length === 0 ? (w.options.keyNoun ?? 'key') : 'key';
  const hint = didYouMean(closestNames(key, known)) || (known.length === 0 ? 'None are taken here.' : `Known ${noun}s: ${known.join(', ')}.`);
  const what = keys.length === 0 ? `unknown ${noun} "${key}"` : `unknown key "${key}" in ${propertyPath(keys)}`;
  return problem([...keys, key], `${what}. ${hint}`, 'unknown_key');
}

/**
 * A union: an enum of literals, or branches of different types. The branch the value was aiming at
 * is the one of its JSON type; among several object branches, the one whose required keys it has.
 */
function walkUnion(w: Walk, schema: Schema, value: unknown, keys: Keys): void {
  const branches = schema.anyOf ?? [];
  if (branches.every((b) => 'const' in b)) {
    if (!branches.some((b) => b.const === value)) expected(w, schema, value, keys);
    return;
  }
  const fitting = branches.filter((b) => typesOf(b).length === 0 || typesOf(b).some((t) => fitsType(t, value)));
  if (fitting.length === 0) return expected(w, schema, value, keys);
  if (fitting.length === 1) return walk(w, fitting[0]!, value, keys);
  // Several branches take this JSON type: a value one of them accepts is fine.
  const before = w.out.length;
  const ok = fitting.find((b) => {
    const trial: Walk = { options: w.options, out: [] };
    walk(trial, b, value, keys);
    return trial.out.length === 0;
  });
  if (ok !== undefined || w.out.length !== before) return;
  // Object branches are told apart by their required keys (`name` vs `path`).
  const present = (b: Schema) => isObject(value) && (b.required ?? []).every((k) => Object.hasOwn(value, k));
  const candidates = fitting.filter(present);
  if (candidates.length === 1) return walk(w, candidates[0]!, value, keys);
  if (candidates.length === 0) return expected(w, { anyOf: fitting }, value, keys);
  const required = [...new Set(candidates.flatMap((b) => b.required ?? []))].map((k) => `"${k}"`);
  w.out.push(problem(keys, `${required.join(' and ')} cannot go together; expected exactly one of them`));
}

function expected(w: Walk, schema: Schema, value: unknown, keys: Keys): void {
  w.out.push(problem(keys, `expected ${describeSchema(schema)}, got ${describeReceived(value)}`));
}

function problem(keys: Keys, message: string, kind: SchemaProblem['kind'] = 'invalid'): SchemaProblem {
  return { path: propertyPath(keys), keys: [...keys], message, kind };
}

function typesOf(schema: Schema): string[] {
  if (schema.type === undefined) return [];
  return Array.isArray(schema.type) ? schema.type : [schema.type];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fitsType(type: string, value: unknown): boolean {
  switch (type) {
    case 'object':
      return isObject(value);
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
 *
 * @example describeSchema(Type.Integer({ minimum: 1 })) // 'an integer ≥ 1'
 */
export function describeSchema(schema: object): string {
  const s = schema as Schema;
  if ('const' in s) return JSON.stringify(s.const);
  if (s.enum) return alternatives(s.enum.map((v) => JSON.stringify(v)));
  if (s.anyOf) {
    if (s.anyOf.every((b) => 'const' in b)) return alternatives(s.anyOf.map((b) => JSON.stringify(b.const)));
    const objects = s.anyOf.filter((b) => b.type === 'object');
    const others = s.anyOf.filter((b) => b.type !== 'object').map(describeSchema);
    const required = [...new Set(objects.flatMap((b) => b.required ?? []))].map((k) => `"${k}"`);
    const object = objects.length === 0 ? [] : [required.length > 0 ? `an object with ${required.join(' or ')}` : 'an object'];
    return [...new Set([...others, ...object])].join(' or ');
  }
  const types = typesOf(s);
  if (types.length > 1) return types.map((t) => describeSchema({ ...s, type: t })).join(' or ');
  switch (types[0]) {
    case 'string':
      return `${s.minLength ? 'a non-empty string' : 'a string'}${s.maxLength !== undefined ? ` of at most ${s.maxLength} characters` : ''}${s.pattern !== undefined ? ` matching /${s.pattern}/` : ''}`;
    case 'integer':
      return `an integer${range(s)}`;
    case 'number':
      return `a number${range(s)}`;
    case 'boolean':
      return 'true or false';
    case 'null':
      return 'null';
    case 'array': {
      const of = s.items?.type === 'string' ? 'a list of strings' : 'a list';
      if (s.minItems !== undefined && s.maxItems !== undefined) return `${of} of ${s.minItems} to ${s.maxItems} items`;
      if (s.minItems !== undefined) return `${of} of at least ${s.minItems} item${s.minItems === 1 ? '' : 's'}`;
      if (s.maxItems !== undefined) return `${of} of at most ${s.maxItems} item${s.maxItems === 1 ? '' : 's'}`;
      return of;
    }
    case 'object':
      return 'an object';
    default:
      return 'a valid value';
  }
}

function range(s: Schema): string {
  const low = s.minimum !== undefined ? `≥ ${s.minimum}` : s.exclusiveMinimum !== undefined ? `> ${s.exclusiveMinimum}` : undefined;
  const high = s.maximum !== undefined ? `≤ ${s.maximum}` : s.exclusiveMaximum !== undefined ? `< ${s.exclusiveMaximum}` : undefined;
  if (s.minimum !== undefined && s.maximum !== undefined) return ` from ${s.minimum} to ${s.maximum}`;
  if (low !== undefined && high !== undefined) return ` ${low} and ${high}`;
  if (low !== undefined) return ` ${low}`;
  if (high !== undefined) return ` ${high}`;
  return '';
}

function alternatives(items: readonly string[]): string {
  if (items.length === 1) return items[0]!;
  if (items.length === 2) return `${items[0]} or ${items[1]}`;
  return `one of ${items.join(', ')}`;
}

/**
 * The found value, short: `0`, `"x"`, `a list`, `an object`, `a function`, `nothing`.
 *
 * @example describeReceived([1, 2]) // 'a list'
 */
export function describeReceived(value: unknown): string {
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
