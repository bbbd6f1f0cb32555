import type { AnyAgentTool } from '@airlock/contract';
import { isJsonObject, setKey, toJsonSchema } from '../json-value.js';
import type { JsonObject, JsonValue } from '../json-value.js';

/**
 * Gemini takes function parameters as its `Schema` object, a subset of OpenAPI 3.0, and its proto
 * parser rejects the whole request on the first field it does not know ("Unknown name
 * \"additionalProperties\" … Cannot find field"). So this is a mapper, not a filter: it keeps
 * what the subset can say (const → enum, `["x","null"]` → nullable, `oneOf` → `anyOf`, `$ref`
 * inlined, simple `allOf` merged) and moves what it cannot say but the model should know
 * (a URI format, "must be > 0", non-string literal values) into the description.
 *
 * Sources: Gemini API reference, `Schema` and `Type` (generativelanguage v1beta; the same field
 * list as the google-genai SDK's `Schema`); the Firebase AI Logic reference, which states that
 * the Gemini Developer API accepts only the string formats "enum" and "date-time".
 */

/** Gemini's `Type` enum as the REST API spells it. */
export type GeminiType = 'STRING' | 'NUMBER' | 'INTEGER' | 'BOOLEAN' | 'ARRAY' | 'OBJECT';

/** The subset of Gemini's `Schema` this mapper emits. */
export interface GeminiSchema {
  type?: GeminiType;
  format?: string;
  title?: string;
  description?: string;
  nullable?: boolean;
  enum?: string[];
  properties?: Record<string, GeminiSchema>;
  required?: string[];
  minProperties?: number;
  maxProperties?: number;
  items?: GeminiSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  anyOf?: GeminiSchema[];
  default?: JsonValue;
  example?: JsonValue;
}

/** A `FunctionDeclaration`. `parameters` is left out for a tool without arguments, as Gemini asks. */
export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  parameters?: GeminiSchema;
}

/**
 * Gemini function names: start with a letter or `_`; letters, digits, `_`, `.` and `-`; at most 64.
 * (Some references also allow `:`; the narrower set is accepted everywhere.)
 */
export const GEMINI_NAME = /^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$/;

export function geminiToolName(name: string): string {
  const safe = name.replace(/[^a-zA-Z0-9_.-]/g, '_');
  return /^[a-zA-Z_]/.test(safe) ? safe : `_${safe}`;
}

const TYPES: Record<string, GeminiType> = {
  string: 'STRING',
  number: 'NUMBER',
  integer: 'INTEGER',
  boolean: 'BOOLEAN',
  array: 'ARRAY',
  object: 'OBJECT',
};

const FORMATS: Partial<Record<GeminiType, readonly string[]>> = {
  STRING: ['enum', 'date-time'],
  NUMBER: ['float', 'double'],
  INTEGER: ['int32', 'int64'],
};

/** Output key order, so equal inputs give byte-equal requests (and stable prompt caches). */
const KEY_ORDER: readonly (keyof GeminiSchema)[] = [
  'type', 'format', 'title', 'description', 'nullable', 'enum',
  'properties', 'required', 'minProperties', 'maxProperties',
  'items', 'minItems', 'maxItems', 'minLength', 'maxLength', 'pattern', 'minimum', 'maximum',
  'anyOf', 'default', 'example',
];

function finish(schema: GeminiSchema): GeminiSchema {
  const out: Record<string, unknown> = {};
  for (const key of KEY_ORDER) if (schema[key] !== undefined) out[key] = schema[key];
  return out as GeminiSchema;
}

interface Context {
  readonly root: JsonObject;
  /** Definitions by `$id` or bare name (TypeBox's `Type.Ref('Node')` emits `$ref: "Node"`). */
  readonly named: ReadonlyMap<string, JsonObject>;
  /** Definitions being inlined right now: meeting one again means the schema is recursive. */
  readonly expanding: Set<JsonObject>;
}

/** Data, not schemas: a `$id` inside a default value names nothing. */
const VALUE_KEYS = new Set(['const', 'enum', 'default', 'example', 'examples']);

/** `$defs` may sit on any node (TypeBox puts `Type.Cyclic`'s on the cyclic node itself). */
function collectNamed(root: JsonObject): Map<string, JsonObject> {
  const named = new Map<string, JsonObject>();
  const visit = (node: JsonValue | undefined): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (!isJsonObject(node)) return;
    if (typeof node.$id === 'string' && !named.has(node.$id)) named.set(node.$id, node);
    for (const group of ['$defs', 'definitions'] as const) {
      const defs = node[group];
      if (!isJsonObject(defs)) continue;
      for (const [key, value] of Object.entries(defs)) if (isJsonObject(value) && !named.has(key)) named.set(key, value);
    }
    for (const [key, value] of Object.entries(node)) if (!VALUE_KEYS.has(key)) visit(value);
  };
  visit(root);
  return named;
}

function resolveRef(ref: string, ctx: Context): JsonObject | undefined {
  if (ref === '#') return ctx.root;
  if (ref.startsWith('#/')) {
    let node: JsonValue | undefined = ctx.root;
    for (const raw of ref.slice(2).split('/')) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      node = isJsonObject(node) ? node[key] : Array.isArray(node) ? node[Number(key)] : undefined;
    }
    return isJsonObject(node) ? node : undefined;
  }
  return ctx.named.get(ref);
}

/** A `$ref` node with its target's keywords; the node's own keywords (a description) win. */
function inline(node: JsonObject, ctx: Context): { node: JsonObject; target: JsonObject | undefined } {
  const { $ref, ...rest } = node;
  const target = typeof $ref === 'string' ? resolveRef($ref, ctx) : undefined;
  if (!target) return { node: rest, target: undefined };
  const merged: JsonObject = {};
  for (const [k, v] of Object.entries(target)) setKey(merged, k, v);
  for (const [k, v] of Object.entries(rest)) setKey(merged, k, v);
  return { node: merged, target };
}

function note(description: string | undefined, notes: readonly string[]): string | undefined {
  const parts = [description, ...notes].map((p) => p?.trim() ?? '').filter((p) => p.length > 0);
  if (parts.length === 0) return undefined;
  // Notes are sentences; end the author's text with one so they do not run together.
  return parts.map((p, i) => (i < parts.length - 1 && !/[.!?:;]$/.test(p) ? `${p}.` : p)).join(' ');
}

function num(value: JsonValue | undefined): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

function literalText(values: readonly JsonValue[]): string {
  return values.map((v) => JSON.stringify(v)).join(', ');
}

function isNullSchema(node: JsonValue): boolean {
  if (!isJsonObject(node)) return false;
  if (node.type === 'null') return true;
  if ('const' in node && node.const === null) return true;
  return Array.isArray(node.enum) && node.enum.length > 0 && node.enum.every((v) => v === null);
}

const LITERAL_KEYS = new Set(['type', 'const', 'enum', 'description', 'title', '$id']);

/** The values of a union whose members are all bare literals (`Type.Literal`, `Type.Enum`). */
function literalValues(members: readonly JsonValue[]): JsonValue[] | undefined {
  const values: JsonValue[] = [];
  for (const member of members) {
    if (!isJsonObject(member) || !Object.keys(member).every((k) => LITERAL_KEYS.has(k))) return undefined;
    if ('const' in member) values.push(member.const ?? null);
    else if (Array.isArray(member.enum)) values.push(...member.enum);
    else return undefined;
  }
  return values;
}

/** Convert one JSON Schema node to Gemini's Schema. */
function convert(input: JsonValue | undefined, ctx: Context): GeminiSchema {
  if (!isJsonObject(input)) return {};
  const node = input;

  if (typeof node.$ref === 'string') {
    const { node: merged, target } = inline(node, ctx);
    if (!target) return convert(merged, ctx);
    if (ctx.expanding.has(target)) return recursive(merged, node.$ref);
    ctx.expanding.add(target);
    try {
      return convert(merged, ctx);
    } finally {
      ctx.expanding.delete(target);
    }
  }

  if (Array.isArray(node.allOf)) return convert(mergeAllOf(node, ctx), ctx);

  const union = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
  if (union) {
    const { anyOf: _a, oneOf: _o, ...outer } = node;
    return convertUnion(union, outer, false, ctx);
  }

  if (Array.isArray(node.type)) {
    const { type, ...outer } = node;
    const names = [...new Set(type.filter((t): t is string => typeof t === 'string'))];
    const nullable = names.includes('null');
    const others = names.filter((t) => t !== 'null');
    if (others.length <= 1) {
      const out = plain(others[0] === undefined ? outer : { ...outer, type: others[0] }, ctx);
      return nullable ? finish({ ...out, nullable: true }) : out;
    }
    // Each branch keeps the keywords of its own type; annotations stay on the union.
    const { description, title, default: dflt, example, ...keywords } = outer;
    const annotations: JsonObject = {};
    if (description !== undefined) annotations.description = description;
    if (title !== undefined) annotations.title = title;
    if (dflt !== undefined) annotations.default = dflt;
    if (example !== undefined) annotations.example = example;
    return convertUnion(others.map((t) => ({ ...keywords, type: t })), annotations, nullable, ctx);
  }

  return plain(node, ctx);
}

/** A recursive reference cannot be inlined forever: keep its type and say what it is. */
function recursive(target: JsonObject, ref: string): GeminiSchema {
  const type = typeof target.type === 'string' ? TYPES[target.type] : isJsonObject(target.properties) ? 'OBJECT' : undefined;
  const name = ref.split('/').pop() ?? ref;
  const description = note(typeof target.description === 'string' ? target.description : undefined, [
    `Same structure as the enclosing ${name} (recursive).`,
  ]);
  return finish({ type, description });
}

/**
 * `allOf` of plain object schemas (TypeBox's `Type.Intersect`) merges into one object. Anything
 * else cannot be expressed, so it is dropped; the rest of the node still applies.
 */
function mergeAllOf(node: JsonObject, ctx: Context): JsonObject {
  const { allOf, ...rest } = node;
  const members = (Array.isArray(allOf) ? allOf : []).map((m) =>
    isJsonObject(m) && typeof m.$ref === 'string' ? inline(m, ctx).node : m,
  );
  if (members.length === 1 && isJsonObject(members[0])) {
    const merged: JsonObject = {};
    for (const [k, v] of Object.entries(members[0])) setKey(merged, k, v);
    for (const [k, v] of Object.entries(rest)) setKey(merged, k, v);
    return merged;
  }
  const objectKeys = new Set(['type', 'properties', 'required', 'description', 'title', 'additionalProperties', '$id']);
  const simple = members.every(
    (m) =>
      isJsonObject(m) &&
      (m.type === undefined || m.type === 'object') &&
      Object.keys(m).every((k) => objectKeys.has(k)) &&
      (m.properties === undefined || isJsonObject(m.properties)),
  );
  if (!simple || (rest.type !== undefined && rest.type !== 'object')) return rest;

  const properties: JsonObject = {};
  const required: string[] = [];
  for (const source of [rest, ...members]) {
    if (!isJsonObject(source)) continue;
    if (isJsonObject(source.properties)) {
      for (const [k, v] of Object.entries(source.properties)) {
        if (k in properties && JSON.stringify(properties[k]) !== JSON.stringify(v)) return rest;
        setKey(properties, k, v);
      }
    }
    if (Array.isArray(source.required)) {
      for (const r of source.required) if (typeof r === 'string' && !required.includes(r)) required.push(r);
    }
  }
  return { ...rest, type: 'object', properties, required };
}

function convertUnion(members: readonly JsonValue[], outer: JsonObject, nullableIn: boolean, ctx: Context): GeminiSchema {
  let nullable = nullableIn || outer.nullable === true;
  const rest: JsonValue[] = [];
  for (const member of members) {
    const seen = isJsonObject(member) && typeof member.$ref === 'string' ? inline(member, ctx).node : member;
    if (isNullSchema(seen)) nullable = true;
    else rest.push(member);
  }

  let base: GeminiSchema;
  const literals = literalValues(rest);
  if (rest.length === 0) base = {};
  else if (literals) base = plain({ enum: literals }, ctx);
  else if (rest.length === 1) base = convert(rest[0], ctx);
  else base = finish({ anyOf: rest.map((m) => convert(m, ctx)) });

  const out: GeminiSchema = { ...base };
  const outerDescription = typeof outer.description === 'string' ? outer.description : undefined;
  if (outerDescription !== undefined && base.description !== outerDescription) {
    out.description = note(outerDescription, base.description === undefined ? [] : [base.description]);
  }
  if (typeof outer.title === 'string') out.title = outer.title;
  if (outer.default !== undefined) out.default = outer.default;
  if (outer.example !== undefined) out.example = outer.example;
  if (nullable) out.nullable = true;
  return finish(out);
}

function inferType(node: JsonObject, literals: readonly JsonValue[] | undefined): string | undefined {
  if (isJsonObject(node.properties)) return 'object';
  if (node.items !== undefined || node.prefixItems !== undefined) return 'array';
  if (!literals || literals.length === 0) return undefined;
  if (literals.every((v) => typeof v === 'string')) return 'string';
  if (literals.every((v) => typeof v === 'number' && Number.isInteger(v))) return 'integer';
  if (literals.every((v) => typeof v === 'number')) return 'number';
  if (literals.every((v) => typeof v === 'boolean')) return 'boolean';
  return undefined;
}

/** A node without `$ref`, `allOf`, unions or type arrays. */
function plain(node: JsonObject, ctx: Context): GeminiSchema {
  const notes: string[] = [];
  let nullable = node.nullable === true;

  let literals: JsonValue[] | undefined = 'const' in node ? [node.const ?? null] : Array.isArray(node.enum) ? [...node.enum] : undefined;
  if (literals?.includes(null)) {
    nullable = true;
    literals = literals.filter((v) => v !== null);
  }

  let typeName = typeof node.type === 'string' ? node.type : inferType(node, literals);
  if (typeName === 'null') {
    nullable = true;
    typeName = undefined;
  }
  const type = typeName === undefined ? undefined : TYPES[typeName];
  const out: GeminiSchema = { type };
  if (typeof node.title === 'string') out.title = node.title;

  if (literals && literals.length > 0) {
    if ((type === undefined || type === 'STRING') && literals.every((v) => typeof v === 'string')) {
      out.type = 'STRING';
      out.format = 'enum';
      out.enum = [...new Set(literals as string[])];
    } else {
      // Gemini's enum holds strings only; other literal values would change type if stringified.
      notes.push(literals.length === 1 ? `Must be ${literalText(literals)}.` : `Allowed values: ${literalText(literals)}.`);
    }
  }

  const t = out.type;
  if (typeof node.format === 'string' && out.format === undefined) {
    if (t !== undefined && FORMATS[t]?.includes(node.format) && node.format !== 'enum') out.format = node.format;
    else notes.push(`Format: ${node.format}.`);
  }

  if (t === 'NUMBER' || t === 'INTEGER' || t === undefined) numeric(node, t, out, notes);
  if (t === 'STRING' || t === undefined) {
    out.minLength = num(node.minLength);
    out.maxLength = num(node.maxLength);
    if (typeof node.pattern === 'string') out.pattern = node.pattern;
  }
  if (t === 'ARRAY' || t === undefined) {
    const tuple = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : undefined;
    if (tuple) {
      const distinct = [...new Map(tuple.map((item) => [JSON.stringify(item), item])).values()];
      if (distinct.length === 1) out.items = convert(distinct[0], ctx);
      else if (distinct.length > 1) out.items = finish({ anyOf: distinct.map((item) => convert(item, ctx)) });
    } else if (node.items !== undefined) {
      out.items = convert(node.items, ctx);
    }
    out.minItems = num(node.minItems);
    out.maxItems = num(node.maxItems);
    if (node.uniqueItems === true) notes.push('Items must be unique.');
  }
  if (t === 'OBJECT' || t === undefined) {
    if (isJsonObject(node.properties) && Object.keys(node.properties).length > 0) {
      const properties: Record<string, GeminiSchema> = {};
      for (const [key, value] of Object.entries(node.properties)) {
        setKey(properties as JsonObject, key, convert(value, ctx) as JsonObject);
      }
      out.properties = properties;
      // Gemini rejects a required name that is not among the properties.
      const required = (Array.isArray(node.required) ? node.required : []).filter(
        (r): r is string => typeof r === 'string' && Object.hasOwn(properties, r),
      );
      if (required.length > 0) out.required = [...new Set(required)];
    }
    out.minProperties = num(node.minProperties);
    out.maxProperties = num(node.maxProperties);
  }

  out.description = note(typeof node.description === 'string' ? node.description : undefined, notes);
  if (nullable) out.nullable = true;
  if (node.default !== undefined) out.default = node.default;
  if (node.example !== undefined) out.example = node.example;
  return finish(out);
}

function numeric(node: JsonObject, type: GeminiType | undefined, out: GeminiSchema, notes: string[]): void {
  let minimum = num(node.minimum);
  let maximum = num(node.maximum);
  // Draft 4 spells exclusivity as a boolean beside minimum/maximum; later drafts as a number.
  const exMin = typeof node.exclusiveMinimum === 'number' ? node.exclusiveMinimum : node.exclusiveMinimum === true ? minimum : undefined;
  const exMax = typeof node.exclusiveMaximum === 'number' ? node.exclusiveMaximum : node.exclusiveMaximum === true ? maximum : undefined;
  if (node.exclusiveMinimum === true) minimum = undefined;
  if (node.exclusiveMaximum === true) maximum = undefined;

  if (exMin !== undefined) {
    if (type === 'INTEGER') {
      minimum = Math.max(minimum ?? -Infinity, Math.floor(exMin) + 1);
    } else {
      minimum = Math.max(minimum ?? -Infinity, exMin);
      notes.push(`Must be greater than ${exMin}.`);
    }
  }
  if (exMax !== undefined) {
    if (type === 'INTEGER') {
      maximum = Math.min(maximum ?? Infinity, Math.ceil(exMax) - 1);
    } else {
      maximum = Math.min(maximum ?? Infinity, exMax);
      notes.push(`Must be less than ${exMax}.`);
    }
  }
  out.minimum = minimum;
  out.maximum = maximum;
  if (typeof node.multipleOf === 'number') notes.push(`Must be a multiple of ${node.multipleOf}.`);
}

/**
 * A tool's parameters as Gemini's Schema, or undefined for a tool without arguments (Gemini wants
 * `parameters` left out then, and rejects an OBJECT with empty `properties`).
 *
 * @example
 * toGeminiSchema(Type.Object({ unit: Type.Union([Type.Literal('c'), Type.Literal('f')]) }));
 * // { type: 'OBJECT', properties: { unit: { type: 'STRING', format: 'enum', enum: ['c', 'f'] } }, required: ['unit'] }
 */
export function toGeminiSchema(parameters: unknown): GeminiSchema | undefined {
  const root = toJsonSchema(parameters);
  const ctx: Context = { root, named: collectNamed(root), expanding: new Set() };
  const schema = convert(root, ctx);
  if (schema.type === 'OBJECT' && schema.properties === undefined) return undefined;
  return schema;
}

/** One tool as a Gemini `FunctionDeclaration`; `name` is the provider-safe name. */
export function toGeminiDeclaration(tool: AnyAgentTool, name: string): GeminiFunctionDeclaration {
  const parameters = toGeminiSchema(tool.parameters);
  return parameters === undefined
    ? { name, description: tool.description }
    : { name, description: tool.description, parameters };
}
