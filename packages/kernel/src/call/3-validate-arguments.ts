import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import Value from 'typebox/value';
import { linearSchema } from '@airlock/toolkit/util';
import { schemaProblemLines } from '@airlock/toolkit/util';
import { cloneValue, deepFreeze, MAX_VALUE_DEPTH, nestsDeeperThan } from '@airlock/toolkit/util';

/**
 * Stage 3: check the arguments against the tool's schema.
 *
 * Validators are compiled once per schema object (compiled Check is ~1000× faster than the
 * dynamic one). The arguments are cloned first, so coercion never touches the model's message.
 * Conversion and defaults only run when they can matter: a valid call without defaults in its
 * schema costs one clone and one compiled Check. Conversion is narrow on purpose (keepReadings):
 * a string that spells a number or a boolean is read as one, nothing else changes type. TypeBox
 * only ever sees the
 * schema's linear-time form (util/linear-schema.ts): a tool's patterns come from its extension
 * or an upstream server, and a backtracking one must not stall the host.
 */

interface CompiledSchema {
  check: (value: unknown) => boolean;
  hasDefaults: boolean;
  schema: TSchema;
  /** What TypeBox checks, converts and fills defaults with: `schema` with its regexes in RE2. */
  safe: TSchema;
}

const cache = new WeakMap<object, CompiledSchema>();

function compiled(schema: TSchema): CompiledSchema {
  let entry = cache.get(schema);
  if (entry === undefined) {
    const safe = linearSchema(schema);
    const validator = Compile(safe);
    entry = {
      check: (value) => validator.Check(value),
      hasDefaults: JSON.stringify(schema).includes('"default":'),
      schema,
      safe,
    };
    cache.set(schema, entry);
  }
  return entry;
}

export type Validation = { ok: true; value: Record<string, unknown> } | { ok: false; problems: string[]; tooDeep?: true };

/**
 * Validate (and coerce) a copy of `args`; the value returned is deep-frozen. Arguments nested
 * deeper than MAX_VALUE_DEPTH are refused first: cloning, conversion and freezing all recurse.
 */
export function validateArguments(schema: TSchema, args: unknown): Validation {
  if (nestsDeeperThan(args, MAX_VALUE_DEPTH)) {
    return { ok: false, tooDeep: true, problems: [`(root): objects and arrays nest deeper than ${MAX_VALUE_DEPTH} levels; flatten them`] };
  }
  const entry = compiled(schema);
  let value = cloneValue(args);
  if (!entry.hasDefaults && entry.check(value)) return { ok: true, value: deepFreeze(value) as Record<string, unknown> };
  value = Value.Default(entry.safe, value);
  // Convert changes its argument in place: it gets a copy, so `value` still holds what was sent.
  value = keepReadings(value, Value.Convert(entry.safe, cloneValue(value)));
  if (entry.check(value)) return { ok: true, value: deepFreeze(value) as Record<string, unknown> };
  return { ok: false, problems: describeErrors(entry, value) };
}

/** Every bad path, one line each, in words a model can act on (the one schema wording, util/schema-problems.ts). */
function describeErrors(entry: CompiledSchema, value: unknown): string[] {
  return schemaProblemLines(entry.schema, value, { keyNoun: 'parameter' });
}

/** A JSON number, whole: no sign but minus, no spaces, no hex, no `Infinity`, no empty string. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * Of what TypeBox's Convert changed, keep only a string read as the number or boolean it spells:
 * `"7"` → 7 where the schema wants a number, `"true"`/`"false"` → a boolean. Models often quote
 * scalars, and the reading is exact. Every other change is undone, so the call ends `invalid` and
 * the model is told what it sent: Convert would also make 7 into `"7"` for a path, `""` or `null`
 * into 0, `"1"` into true, `true` into 1 and a lone value into an array, each a guess at what the
 * model meant that would run a call nobody asked for.
 */
function keepReadings(before: unknown, after: unknown): unknown {
  if (Object.is(before, after)) return before;
  if (typeof before === 'string') {
    if (typeof after === 'number') return Number.isFinite(after) && JSON_NUMBER.test(before) && Number(before) === after ? after : before;
    if (typeof after === 'boolean') return before === String(after) ? after : before;
    return before;
  }
  if (Array.isArray(before)) {
    if (!Array.isArray(after) || after.length !== before.length) return before;
    return before.map((item, i) => keepReadings(item, after[i]));
  }
  if (isPlainObject(before) && isPlainObject(after)) {
    const out: Record<string, unknown> = {};
    // defineProperty: a key the model named "__proto__" stays a key, never the prototype.
    for (const [key, item] of Object.entries(before)) {
      Object.defineProperty(out, key, { value: keepReadings(item, after[key]), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return before;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
