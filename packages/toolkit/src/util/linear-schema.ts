import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { LinearRegExp, LinearRegExpError } from './linear-regex.js';

/**
 * A JSON Schema made safe to check against any value: every regular expression in it that TypeBox
 * would otherwise hand to JavaScript's backtracking engine is matched by RE2 in linear time
 * (see linear-regex.ts). A tool's schema comes from its extension or an upstream MCP server, and
 * `"pattern": "^(a+)+$"` checked on the main thread against 40 a's and a "!" once froze the host
 * past every time limit.
 *
 * What TypeBox 1.x makes into a RegExp, and what this does with it:
 * - `pattern` (also under `propertyNames`): a string becomes a LinearRegExp, which TypeBox's
 *   compiled and dynamic checks call like any RegExp.
 * - `patternProperties` keys: TypeBox always compiles these strings natively (and joins them
 *   into one regex for `additionalProperties`), so the keyword and its `additionalProperties`
 *   move into a TypeBox refinement that matches the keys with RE2 and checks each value with
 *   its own compiled sub-schema. TypeBox's own record keys (`Type.Record(Type.String(), …)`)
 *   stay as they are: they are fixed and linear.
 * - `Value.Convert` turns the names of a TypeBox-built object's properties into regexes: a node
 *   whose names hold regex syntax loses its TypeBox kind, so conversion passes over it (the
 *   check still runs).
 * A pattern RE2 cannot run (a lookaround, a backreference) is refused, with its place in the
 * schema: SchemaRegexError. So is `patternProperties` in a schema that also uses
 * `unevaluatedProperties`, or whose sub-schemas use `$ref` (they are checked apart from the root).
 *
 * A schema with nothing to change is returned as it is, so ordinary schemas cost one walk, once.
 */

/** A schema regex that cannot be checked in linear time, and where it is. */
export class SchemaRegexError extends Error {
  constructor(
    /** A JSON pointer into the schema: `#/properties/q/pattern`. */
    readonly at: string,
    /** Why, in words. */
    readonly reason: string,
  ) {
    super(`${at}: ${reason}`);
    this.name = 'SchemaRegexError';
  }
}

/** TypeBox's own record-key patterns (string, integer, number, bigint keys): fixed and linear. */
const TYPEBOX_KEYS = new Set(['^.*$', '^-?(?:0|[1-9][0-9]*)$', '^-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?$', '^-?(?:0|[1-9][0-9]*)n$']);

/** Regex syntax in a property name: Value.Convert would compile the name as a pattern. */
const REGEX_NAME = /[()[\]{}*+?|\\]/;

const SINGLE = ['additionalProperties', 'additionalItems', 'contains', 'propertyNames', 'not', 'if', 'then', 'else', 'unevaluatedItems', 'unevaluatedProperties', 'items'];
const LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];
const MAPS = ['properties', 'dependentSchemas', 'dependencies', '$defs', 'definitions'];
const MAX_DEPTH = 200;

const prepared = new WeakMap<object, object | SchemaRegexError>();

/**
 * The schema to give TypeBox (Compile, Value.Check, Errors, Default, Convert) instead of
 * `schema`; the same object when it has no regex from outside. Prepared once per schema object.
 *
 * @throws SchemaRegexError when a pattern cannot be matched in linear time.
 * @example
 * const safe = linearSchema({ type: 'object', properties: { q: { type: 'string', pattern: '^(a+)+$' } } });
 * Compile(safe).Check({ q: 'a'.repeat(50_000) + '!' }); // false, at once
 */
export function linearSchema<T extends TSchema>(schema: T): T {
  if (typeof schema !== 'object' || schema === null) return schema;
  let out = prepared.get(schema);
  if (out === undefined) {
    try {
      const ctx: Context = { stack: new Set(), refined: undefined, unevaluated: undefined };
      out = prepare(schema, '#', ctx, 0) as object;
      if (ctx.refined !== undefined && ctx.unevaluated !== undefined) {
        out = new SchemaRegexError(ctx.refined, `patternProperties cannot be checked in a schema that also uses unevaluatedProperties (${ctx.unevaluated}); list the keys in properties, or drop unevaluatedProperties`);
      }
    } catch (error) {
      if (!(error instanceof SchemaRegexError)) throw error;
      out = error;
    }
    prepared.set(schema, out);
  }
  if (out instanceof SchemaRegexError) throw out;
  return out as T;
}

/**
 * Why `schema` cannot be checked in linear time (`#/properties/q/pattern: … uses a lookahead …`),
 * or undefined when it can.
 *
 * @example schemaRegexProblem({ type: 'string', pattern: '(?=a)' }) // '#/pattern: /(?=a)/ cannot be matched in linear time: …'
 */
export function schemaRegexProblem(schema: unknown): string | undefined {
  try {
    linearSchema(schema as TSchema);
    return undefined;
  } catch (error) {
    if (error instanceof SchemaRegexError) return error.message;
    throw error;
  }
}

interface Context {
  stack: Set<object>;
  /** Where patternProperties first moved into a refinement. */
  refined: string | undefined;
  /** Where unevaluatedProperties first appeared. */
  unevaluated: string | undefined;
}

type Node = Record<string, unknown>;

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);
const pointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

function prepare(value: unknown, at: string, ctx: Context, depth: number): unknown {
  if (!isNode(value)) return value;
  if (depth > MAX_DEPTH) throw new SchemaRegexError(at, `the schema nests deeper than ${MAX_DEPTH} levels`);
  if (ctx.stack.has(value)) throw new SchemaRegexError(at, 'the schema contains itself');
  ctx.stack.add(value);
  try {
    return prepareNode(value, at, ctx, depth);
  } finally {
    ctx.stack.delete(value);
  }
}

function prepareNode(node: Node, at: string, ctx: Context, depth: number): Node {
  let copy: Node | undefined;
  // The copy keeps TypeBox's hidden (non-enumerable) keys, ~kind and ~optional.
  const edit = (): Node => (copy ??= Object.create(Object.getPrototypeOf(node), Object.getOwnPropertyDescriptors(node)) as Node);
  const child = (v: unknown, where: string) => prepare(v, where, ctx, depth + 1);

  if (typeof node.pattern === 'string' || (node.pattern instanceof RegExp && !(node.pattern instanceof LinearRegExp))) {
    edit().pattern = regex(node.pattern, `${at}/pattern`);
  }
  if (node.unevaluatedProperties !== undefined) ctx.unevaluated ??= `${at}/unevaluatedProperties`;
  for (const key of SINGLE) {
    if (!isNode(node[key])) continue;
    const next = child(node[key], `${at}/${key}`);
    if (next !== node[key]) edit()[key] = next;
  }
  for (const key of LISTS) {
    const list = node[key];
    if (!Array.isArray(list)) continue;
    const next = list.map((item, i) => child(item, `${at}/${key}/${i}`));
    if (next.some((item, i) => item !== list[i])) edit()[key] = next;
  }
  for (const key of MAPS) {
    const map = node[key];
    if (!isNode(map)) continue;
    const next = mapValues(map, (item, name) => child(item, `${at}/${key}/${pointer(name)}`));
    if (next !== map) edit()[key] = next;
  }
  if (isNode(node.properties) && node['~kind'] === 'Object' && Object.keys(node.properties).some((name) => REGEX_NAME.test(name))) {
    delete edit()['~kind'];
  }
  if (isNode(node.patternProperties)) {
    const own = node.patternProperties;
    if (Object.keys(own).every((key) => TYPEBOX_KEYS.has(key))) {
      const next = mapValues(own, (item, key) => child(item, `${at}/patternProperties/${pointer(key)}`));
      if (next !== own) edit().patternProperties = next;
    } else {
      refinePatternProperties(edit(), node, at, ctx, depth);
    }
  }
  return copy ?? node;
}

/**
 * patternProperties (and the additionalProperties beside it) as a TypeBox refinement: keys
 * matched by RE2, each value checked by its sub-schema's own compiled validator.
 */
function refinePatternProperties(copy: Node, node: Node, at: string, ctx: Context, depth: number): void {
  ctx.refined ??= `${at}/patternProperties`;
  const entries = Object.entries(node.patternProperties as Node).map(([key, sub]) => {
    const where = `${at}/patternProperties/${pointer(key)}`;
    return { key, re: regex(key, where), check: validator(sub, where, ctx, depth) };
  });
  const known = new Set(isNode(node.properties) ? Object.keys(node.properties) : []);
  const rest = node.additionalProperties;
  const restCheck = rest === undefined || rest === true ? undefined : validator(rest, `${at}/additionalProperties`, ctx, depth);
  delete copy.patternProperties;
  delete copy.additionalProperties;
  // A TypeBox Record without its patternProperties would break Value.Default and Convert.
  delete copy['~kind'];

  const firstWrong = (value: unknown): string | undefined => {
    if (!isNode(value)) return undefined;
    for (const [name, item] of Object.entries(value)) {
      let matched = known.has(name);
      for (const e of entries) {
        if (!e.re.test(name)) continue;
        matched = true;
        if (!e.check(item)) return `property "${name}" does not match the schema for keys matching /${e.key}/`;
      }
      if (!matched && restCheck !== undefined && !restCheck(item)) return rest === false ? `unknown property "${name}"` : `property "${name}" does not match additionalProperties`;
    }
    return undefined;
  };
  const refinement = { check: (value: unknown) => firstWrong(value) === undefined, error: (value: unknown) => firstWrong(value) ?? 'does not match the schema' };
  const earlier = Array.isArray(node['~refine']) ? (node['~refine'] as unknown[]) : [];
  Object.defineProperty(copy, '~refine', { value: [...earlier, refinement], enumerable: false, configurable: true, writable: true });
}

/** A sub-schema's check, compiled on first use (a schema of booleans needs no compiler). */
function validator(sub: unknown, at: string, ctx: Context, depth: number): (value: unknown) => boolean {
  if (sub === true) return () => true;
  if (sub === false) return () => false;
  if (!isNode(sub)) throw new SchemaRegexError(at, 'expected a schema object or a boolean');
  const ref = findRef(sub, at);
  if (ref !== undefined) {
    throw new SchemaRegexError(ref, 'a $ref under a patternProperties key with a regex cannot be checked apart from its root schema; inline the referenced schema');
  }
  const safe = prepare(sub, at, ctx, depth + 1) as TSchema;
  let check: ((value: unknown) => boolean) | undefined;
  return (value) => {
    if (check === undefined) {
      const compiled = Compile(safe);
      check = (v) => compiled.Check(v);
    }
    return check(value);
  };
}

function findRef(node: unknown, at: string): string | undefined {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) {
      const found = findRef(item, `${at}/${i}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isNode(node)) return undefined;
  for (const key of ['$ref', '$dynamicRef', '$recursiveRef']) if (typeof node[key] === 'string') return `${at}/${key}`;
  for (const key of [...SINGLE, ...LISTS, ...MAPS, 'patternProperties']) {
    const v = node[key];
    if (v === undefined) continue;
    const found = MAPS.includes(key) || key === 'patternProperties' ? findRefInMap(v, `${at}/${key}`) : findRef(v, `${at}/${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

function findRefInMap(map: unknown, at: string): string | undefined {
  if (!isNode(map)) return undefined;
  for (const [name, item] of Object.entries(map)) {
    const found = findRef(item, `${at}/${pointer(name)}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

function mapValues(map: Node, f: (item: unknown, name: string) => unknown): Node {
  let out: Node | undefined;
  for (const [name, item] of Object.entries(map)) {
    const next = f(item, name);
    if (next !== item) (out ??= { ...map })[name] = next;
  }
  return out ?? map;
}

function regex(pattern: string | RegExp, at: string): LinearRegExp {
  try {
    // JSON Schema patterns are ECMA-262 regexes in Unicode mode, as TypeBox compiles them.
    return typeof pattern === 'string' ? new LinearRegExp(pattern, 'u') : new LinearRegExp(pattern.source, pattern.flags);
  } catch (error) {
    if (error instanceof LinearRegExpError) throw new SchemaRegexError(at, error.message);
    throw error;
  }
}
