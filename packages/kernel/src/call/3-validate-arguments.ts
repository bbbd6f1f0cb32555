import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import System from 'typebox/system';
import Value from 'typebox/value';
import { cloneValue, deepFreeze, MAX_VALUE_DEPTH, nestsDeeperThan } from '../values.js';

/**
 * Stage 3: check the arguments against the tool's schema.
 *
 * Validators are compiled once per schema object (compiled Check is ~1000× faster than the
 * dynamic one). The arguments are cloned first, so coercion never touches the model's message.
 * Conversion ("5" → 5) and defaults only run when they can matter: a valid call without
 * defaults in its schema costs one clone and one compiled Check.
 */

interface CompiledSchema {
  check: (value: unknown) => boolean;
  errors: (value: unknown) => SchemaError[];
  hasDefaults: boolean;
  schema: TSchema;
}

interface SchemaError {
  instancePath: string;
  keyword: string;
  message: string;
  params: Record<string, unknown>;
}

const cache = new WeakMap<object, CompiledSchema>();

function compiled(schema: TSchema): CompiledSchema {
  let entry = cache.get(schema);
  if (entry === undefined) {
    const validator = Compile(schema);
    entry = {
      check: (value) => validator.Check(value),
      errors: (value) => validator.Errors(value) as unknown as SchemaError[],
      hasDefaults: JSON.stringify(schema).includes('"default":'),
      schema,
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
  value = Value.Default(schema, value);
  value = Value.Convert(schema, value);
  if (entry.check(value)) return { ok: true, value: deepFreeze(value) as Record<string, unknown> };
  return { ok: false, problems: describeErrors(entry, value) };
}

/** Every bad path, one line each, in words a model can act on. */
function describeErrors(entry: CompiledSchema, value: unknown): string[] {
  // TypeBox stops at 8 errors by default; the error path is cold, so lift the cap just here.
  const previous = System.Settings.Get().maxErrors;
  System.Settings.Set({ maxErrors: 100 });
  let errors: SchemaError[];
  try {
    errors = entry.errors(value);
  } finally {
    System.Settings.Set({ maxErrors: previous });
  }
  const lines: string[] = [];
  const seen = new Set<string>();
  const add = (line: string): void => {
    if (!seen.has(line)) {
      seen.add(line);
      lines.push(line);
    }
  };
  // anyOf reports one error per branch and then a summary; say it once, with the choices.
  const anyOfPaths = new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  for (const error of errors) {
    const path = error.instancePath;
    if (anyOfPaths.has(path) && error.keyword !== 'anyOf') continue;
    switch (error.keyword) {
      case 'required':
        for (const name of (error.params.requiredProperties as string[] | undefined) ?? []) {
          add(`${displayPath(`${path}/${name}`)}: is required`);
        }
        break;
      case 'additionalProperties':
        for (const name of (error.params.additionalProperties as string[] | undefined) ?? []) {
          add(`${displayPath(`${path}/${name}`)}: is not a known parameter${knownKeys(entry.schema, path)}`);
        }
        break;
      case 'boolean':
        // "schema is false" at an extra key duplicates the additionalProperties line.
        break;
      case 'anyOf':
        add(`${displayPath(path)}: ${choices(entry.schema, path, value)}`);
        break;
      default:
        add(`${displayPath(path)}: ${error.message} (got ${received(value, path)})`);
    }
  }
  return lines.length > 0 ? lines : ['(root): does not match the schema'];
}

/** `/edits/0/oldText` → `edits[0].oldText`; the root is `(root)`. */
export function displayPath(pointer: string): string {
  if (pointer === '') return '(root)';
  let out = '';
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(part) ? `[${part}]` : out === '' ? part : `.${part}`;
  }
  return out;
}

function at(value: unknown, pointer: string): unknown {
  let node = value;
  for (const raw of pointer.split('/').slice(1)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}

function received(value: unknown, pointer: string): string {
  const v = at(value, pointer);
  if (v === undefined) return 'nothing';
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

function schemaAt(schema: TSchema, pointer: string): Record<string, unknown> | undefined {
  let node: unknown = schema;
  for (const raw of pointer.split('/').slice(1)) {
    if (node === null || typeof node !== 'object') return undefined;
    const n = node as Record<string, unknown>;
    if (/^\d+$/.test(raw) && n.items !== undefined) node = n.items;
    else node = (n.properties as Record<string, unknown> | undefined)?.[raw];
  }
  return node as Record<string, unknown> | undefined;
}

function knownKeys(schema: TSchema, pointer: string): string {
  const props = schemaAt(schema, pointer)?.properties;
  const keys = props && typeof props === 'object' ? Object.keys(props) : [];
  return keys.length > 0 ? ` (known: ${keys.join(', ')})` : '';
}

function choices(schema: TSchema, pointer: string, value: unknown): string {
  const branches = schemaAt(schema, pointer)?.anyOf;
  const got = `got ${received(value, pointer)}`;
  if (!Array.isArray(branches)) return `matches none of the allowed forms (${got})`;
  const consts = branches.map((b) => (b as Record<string, unknown>).const);
  if (consts.every((c) => c !== undefined)) return `must be one of ${consts.map((c) => JSON.stringify(c)).join(', ')} (${got})`;
  const types = branches.map((b) => String((b as Record<string, unknown>).type ?? 'a schema'));
  return `must be one of: ${[...new Set(types)].join(' | ')} (${got})`;
}
