import Value from 'typebox/value';
import type { TSchema } from 'typebox';
import { stripKinds, TRUSTED_ONLY_KINDS, USER_ONLY_KINDS } from '../settings/value-kind.js';
import { errorText } from './diagnostics.js';
import { unknownKeys } from './unknown-keys.js';

/**
 * An extension's options, checked against its own TypeBox schema the way settings are: defaults
 * filled in, then values converted ("3" → 3 where a number is wanted), then checked. The
 * extension receives a fresh copy, so it never shares an object with the settings.
 *
 * An option schema marks a value that names a path, a program or code the way the settings
 * schema does (`"x-airlock-value": "path"`, see settings/value-kind.ts). Options that come from
 * a layer the user has not vouched for lose those values (the extension's default applies), so
 * e.g. an untrusted project can never choose bash's shell or the audit log's file.
 *
 * A key the schema does not name is an error with the closest name it does (unknown-keys.ts),
 * whether or not the extension's schema says `additionalProperties: false`: a misspelled option
 * that silently does nothing is the bug a user cannot see.
 */

export type OptionsResult =
  | { ok: true; value: unknown; /** Marked values dropped because the options came from an untrusted layer. */ ignored: string[] }
  | { ok: false; errors: string[] };

/**
 * @example
 * const schema = Type.Object({ greeting: Type.String({ default: 'Hello' }) });
 * validateOptions(schema, undefined);          // { ok: true, value: { greeting: 'Hello' } }
 * validateOptions(schema, { greeting: 42 });   // { ok: false, errors: ['/greeting must be string (got 42)'] }
 * validateOptions(schema, { greting: 'Hi' });  // { ok: false, errors: ['/greting is not a known key. Did you mean "greeting"?'] }
 * const shell = Type.Object({ shellPath: Type.Optional(Type.String({ 'x-airlock-value': 'program' })) });
 * validateOptions(shell, { shellPath: '/tmp/evil' }, { untrusted: true }); // { ok: true, value: {}, ignored: ['shellPath'] }
 */
export function validateOptions(schema: TSchema, raw: unknown, from: { untrusted?: boolean; project?: boolean } = {}): OptionsResult {
  let value: unknown;
  try {
    // Settings may give no options at all; an object schema still gets its defaults.
    value = raw === undefined ? (isObjectSchema(schema) ? {} : undefined) : structuredClone(raw);
  } catch (error) {
    return { ok: false, errors: [`/ cannot be copied (${errorText(error)}); options must be plain JSON`] };
  }
  try {
    // What was written loses its marked values first, so the extension's own default applies to them.
    const unknown = unknownKeys(schema, value);
    if (unknown.length > 0) return { ok: false, errors: unknown };
    // A project, even a trusted one, never sets a `credential` (a key, or where one is sent).
    const kinds = from.untrusted ? TRUSTED_ONLY_KINDS : from.project ? USER_ONLY_KINDS : [];
    const { value: kept, stripped } = value !== undefined && kinds.length > 0 ? stripKinds(schema, value, kinds) : { value, stripped: [] };
    value = Value.Convert(schema, Value.Default(schema, kept));
    if (Value.Check(schema, value)) return { ok: true, value, ignored: stripped };
    return { ok: false, errors: Value.Errors(schema, value).map((e) => describe(e.instancePath, e.message, value)) };
  } catch (error) {
    // A schema TypeBox cannot evaluate is the extension's bug, not the user's settings.
    return { ok: false, errors: [`the extension's options schema cannot be evaluated: ${errorText(error)}`] };
  }
}

function isObjectSchema(schema: TSchema): boolean {
  return (schema as { type?: unknown }).type === 'object';
}

/** `/blocked/0 must be string (got 42)`: the path, what was expected, what was there. */
function describe(path: string, message: string, root: unknown): string {
  const at = path === '' ? '/' : path;
  const found = pointer(root, path);
  return found.exists ? `${at} ${message} (got ${show(found.value)})` : `${at} ${message}`;
}

function pointer(root: unknown, path: string): { exists: boolean; value?: unknown } {
  if (path === '') return { exists: true, value: root };
  let current: unknown = root;
  for (const raw of path.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof current !== 'object' || current === null || !(key in current)) return { exists: false };
    current = (current as Record<string, unknown>)[key];
  }
  return { exists: true, value: current };
}

function show(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
