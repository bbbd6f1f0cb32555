/**
 * TypeBox schemas are JSON Schema objects with extra non-enumerable bookkeeping (`~kind`,
 * `~optional`). Providers need the JSON Schema alone, as a copy: a request body that shares
 * objects with a tool's schema lets one caller's edit leak into every later request.
 */

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Assign without tripping the `__proto__` setter, so a property literally named so survives. */
export function setKey(target: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * Why `value` cannot be sent as JSON, or undefined when it can. Mirrors what `toJsonValue` rejects
 * so the registry can refuse such a schema at load time instead of at the first request.
 */
export function jsonProblem(value: unknown): string | undefined {
  try {
    toJsonValue(value);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/**
 * A deep, detached, plain-JSON copy: own enumerable string keys only; `undefined` and function
 * members are dropped as `JSON.stringify` drops them. Throws a TypeError naming the path for what
 * JSON cannot carry (cycles, bigint, symbols, NaN/Infinity) instead of silently changing it.
 *
 * @example
 * toJsonValue(Type.Object({ a: Type.String() })); // { type: 'object', required: ['a'], properties: { a: { type: 'string' } } }
 */
export function toJsonValue(value: unknown): JsonValue {
  return copy(value, '$', new Set());
}

/** `toJsonValue` for a schema, which must be an object. */
export function toJsonSchema(schema: unknown): JsonObject {
  const out = toJsonValue(schema);
  if (!isJsonObject(out)) throw new TypeError(`a JSON Schema must be an object, got ${describe(schema)}`);
  return out;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

function copy(value: unknown, path: string, stack: Set<object>): JsonValue {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`${path} is ${value}, which JSON cannot represent`);
      return value;
    case 'object':
      break;
    default:
      throw new TypeError(`${path} is a ${typeof value}, which JSON cannot represent`);
  }
  if (value === null) return null;
  if (stack.has(value)) throw new TypeError(`${path} refers back to one of its parents (a cycle)`);
  stack.add(value);
  try {
    if (Array.isArray(value)) {
      return value.map((item, i) => {
        if (item === undefined || typeof item === 'function') {
          throw new TypeError(`${path}[${i}] is ${typeof item}, which JSON cannot represent in an array`);
        }
        return copy(item, `${path}[${i}]`, stack);
      });
    }
    const out: JsonObject = {};
    for (const key of Object.keys(value)) {
      const member = (value as Record<string, unknown>)[key];
      if (member === undefined || typeof member === 'function') continue;
      setKey(out, key, copy(member, `${path}.${key}`, stack));
    }
    return out;
  } finally {
    stack.delete(value);
  }
}
