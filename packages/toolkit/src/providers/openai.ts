import type { AnyAgentTool } from '@airlock/contract';
import { isJsonObject, toJsonSchema } from '../json-value.js';
import type { JsonObject, JsonValue } from '../json-value.js';

/**
 * OpenAI Chat Completions `tools[]` entry:
 * `{ type: "function", function: { name, description, parameters, strict? } }`.
 * (The Responses API flattens the same fields; this is the Chat Completions shape.)
 */
export interface OpenAIFunctionTool {
  type: 'function';
  function: {
    name: string;
    description: string;
    parameters: JsonObject;
    strict?: boolean;
  };
}

export interface OpenAIToolOptions {
  /**
   * Ask for Structured Outputs on arguments. Strict mode only accepts a subset of JSON Schema:
   * every object closed (`additionalProperties: false`) and every property listed in `required`,
   * no `allOf`/`oneOf`/`not`/conditionals, a small set of string formats. A tool that qualifies is
   * sent with `strict: true` and its objects closed; one that does not (an optional property, say)
   * is sent unchanged with `strict: false`, because making an optional argument required or
   * nullable would change what the tool accepts. `strictProblems` says why a schema fails.
   */
  strict?: boolean;
}

/** OpenAI function names: letters, digits, `_` and `-`, at most 64. */
export const OPENAI_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export function openAIToolName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, '_');
}

const STRICT_UNSUPPORTED = [
  'allOf', 'oneOf', 'not', 'if', 'then', 'else', 'dependentRequired', 'dependentSchemas',
  'patternProperties', 'unevaluatedProperties', 'unevaluatedItems', 'propertyNames',
  'minProperties', 'maxProperties', 'minLength', 'maxLength', 'contains', 'minContains',
  'maxContains', 'uniqueItems', 'additionalItems', 'prefixItems', 'default',
];
const STRICT_FORMATS = ['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid'];

/**
 * Why `parameters` cannot be sent in strict mode (empty when it can), and the closed copy to send
 * when it can. Works on a copy; `parameters` is not changed.
 *
 * @example
 * strictProblems(Type.Object({ a: Type.Optional(Type.String()) })).problems;
 * // ['$: property "a" is optional; strict mode requires every property in "required"']
 */
export function strictProblems(parameters: unknown): { problems: string[]; schema?: JsonObject } {
  const schema = toJsonSchema(parameters);
  const problems: string[] = [];
  if (schema.type !== 'object') problems.push('$: the root must be a plain object schema (type "object")');
  close(schema, '$', problems);
  return problems.length > 0 ? { problems } : { problems, schema };
}

function close(node: JsonValue, path: string, problems: string[]): void {
  if (!isJsonObject(node)) return;
  for (const key of STRICT_UNSUPPORTED) {
    if (key in node) problems.push(`${path}: "${key}" is not supported in strict mode`);
  }
  if (typeof node.format === 'string' && !STRICT_FORMATS.includes(node.format)) {
    problems.push(`${path}: format "${node.format}" is not supported in strict mode`);
  }
  if (typeof node.$ref === 'string' && !node.$ref.startsWith('#')) {
    problems.push(`${path}: $ref "${node.$ref}" must point into this schema ("#/...")`);
  }
  const isObject = node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object')) || isJsonObject(node.properties);
  if (isObject) {
    if (node.additionalProperties !== undefined && node.additionalProperties !== false) {
      problems.push(`${path}: additionalProperties must be false in strict mode`);
    }
    node.additionalProperties = false;
    const properties = isJsonObject(node.properties) ? node.properties : {};
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    for (const key of Object.keys(properties)) {
      if (!required.has(key)) problems.push(`${path}: property "${key}" is optional; strict mode requires every property in "required"`);
    }
    for (const [key, value] of Object.entries(properties)) close(value, `${path}.${key}`, problems);
  }
  if (Array.isArray(node.items)) problems.push(`${path}: tuple "items" is not supported in strict mode`);
  else close(node.items ?? null, `${path}[]`, problems);
  if (Array.isArray(node.anyOf)) node.anyOf.forEach((member, i) => close(member, `${path}.anyOf[${i}]`, problems));
  for (const group of ['$defs', 'definitions'] as const) {
    const defs = node[group];
    if (isJsonObject(defs)) for (const [key, value] of Object.entries(defs)) close(value, `${path}.${group}.${key}`, problems);
  }
}

/** One tool in the Chat Completions shape; `name` is the provider-safe name. */
export function toOpenAITool(tool: AnyAgentTool, name: string, options: OpenAIToolOptions = {}): OpenAIFunctionTool {
  const fn: OpenAIFunctionTool['function'] = {
    name,
    description: tool.description,
    parameters: toJsonSchema(tool.parameters),
  };
  if (options.strict === true) {
    const { schema } = strictProblems(tool.parameters);
    if (schema) fn.parameters = schema;
    fn.strict = schema !== undefined;
  }
  return { type: 'function', function: fn };
}
