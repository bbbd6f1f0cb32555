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
 * Conversion ("5" → 5) and defaults only run when they can matter: a valid call without
 * defaults in its schema costs one clone and one compiled Check. TypeBox only ever sees the
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
  value = Value.Convert(entry.safe, value);
  if (entry.check(value)) return { ok: true, value: deepFreeze(value) as Record<string, unknown> };
  return { ok: false, problems: describeErrors(entry, value) };
}

/** Every bad path, one line each, in words a model can act on (the one schema wording, util/schema-problems.ts). */
function describeErrors(entry: CompiledSchema, value: unknown): string[] {
  return schemaProblemLines(entry.schema, value, { keyNoun: 'parameter' });
}
