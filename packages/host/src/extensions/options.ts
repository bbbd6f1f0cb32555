import { formatSchemaProblem, linearSchema, schemaProblemLines, schemaProblems } from '@airlock/toolkit/util';
import Value from 'typebox/value';
import type { TSchema } from 'typebox';
import { stripKinds, TRUSTED_ONLY_KINDS, USER_ONLY_KINDS } from '../settings/value-kind.js';
import { errorText } from './diagnostics.js';

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
 * A key the schema does not name is an error with the closest name it does, whether or not the
 * extension's schema says `additionalProperties: false`: a misspelled option that silently does
 * nothing is the bug a user cannot see. Problems are worded as everywhere else (schemaProblems).
 */

export type OptionsResult =
  | { ok: true; value: unknown; /** Marked values dropped because the options came from an untrusted layer. */ ignored: string[] }
  | { ok: false; errors: string[] };

/**
 * @example
 * const schema = Type.Object({ greeting: Type.String({ default: 'Hello' }) });
 * validateOptions(schema, undefined);          // { ok: true, value: { greeting: 'Hello' } }
 * validateOptions(schema, { greeting: 42 });   // { ok: false, errors: ['greeting: expected a string, got 42'] }
 * validateOptions(schema, { greting: 'Hi' });  // { ok: false, errors: ['greting: unknown option "greting". Did you mean "greeting"?'] }
 * const shell = Type.Object({ shellPath: Type.Optional(Type.String({ 'x-airlock-value': 'program' })) });
 * validateOptions(shell, { shellPath: '/tmp/evil' }, { untrusted: true }); // { ok: true, value: {}, ignored: ['shellPath'] }
 */
export function validateOptions(schema: TSchema, raw: unknown, from: { untrusted?: boolean; project?: boolean } = {}): OptionsResult {
  let value: unknown;
  try {
    // Settings may give no options at all; an object schema still gets its defaults.
    value = raw === undefined ? (isObjectSchema(schema) ? {} : undefined) : structuredClone(raw);
  } catch (error) {
    return { ok: false, errors: [`(root): cannot be copied (${errorText(error)}); options must be plain JSON`] };
  }
  try {
    // A misspelt key first: said about what was written, before defaults fill anything in.
    const unknown = schemaProblems(schema, value, { closed: true, keyNoun: 'option' }).filter((p) => p.kind === 'unknown_key');
    if (unknown.length > 0) return { ok: false, errors: unknown.map(formatSchemaProblem) };
    // What was written loses its marked values first, so the extension's own default applies to them.
    // A project, even a trusted one, never sets a `credential` (a key, or where one is sent).
    const kinds = from.untrusted ? TRUSTED_ONLY_KINDS : from.project ? USER_ONLY_KINDS : [];
    const { value: kept, stripped } = value !== undefined && kinds.length > 0 ? stripKinds(schema, value, kinds) : { value, stripped: [] };
    // TypeBox gets the schema's linear-time form: an extension's patterns are not Airlock's.
    const safe = linearSchema(schema);
    value = Value.Convert(safe, Value.Default(safe, kept));
    if (Value.Check(safe, value)) return { ok: true, value, ignored: stripped };
    return { ok: false, errors: schemaProblemLines(schema, value, { keyNoun: 'option' }) };
  } catch (error) {
    // A schema TypeBox cannot evaluate is the extension's bug, not the user's settings.
    return { ok: false, errors: [`the extension's options schema cannot be evaluated: ${errorText(error)}`] };
  }
}

function isObjectSchema(schema: TSchema): boolean {
  return (schema as { type?: unknown }).type === 'object';
}
