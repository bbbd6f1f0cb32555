import Type, { type Static } from 'typebox';
import { schemaProblemLines } from '@airlock/toolkit/util';
import Value from 'typebox/value';

/** The extension's options (settings: `{ "name": "@airlock/audit-log", "options": { … } }`). */
export const AuditOptions = Type.Object(
  {
    path: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'The active log file. Default: $XDG_STATE_HOME/airlock/audit/<project>-<hash>/audit.jsonl (~/.local/state/…), outside the project. ' +
          'Relative paths are relative to the project folder; ~/ is the home folder.',
        // A path: the host never takes it from an untrusted project.
        'x-airlock-value': 'path',
      }),
    ),
    fsync: Type.Union([Type.Literal('always'), Type.Literal('interval'), Type.Literal('never')], {
      default: 'interval',
      description:
        'always: every record is on disk before the call goes on (slowest); interval: at most fsyncIntervalMs of records can be lost to a power cut or OS crash; ' +
        'never: the OS decides. A crash of Airlock itself loses nothing in any mode: every record is written before the call goes on.',
    }),
    fsyncIntervalMs: Type.Integer({ minimum: 1, default: 1000, description: 'With fsync "interval": the longest a written record waits for fsync.' }),
    maxBytes: Type.Integer({ minimum: 1, default: 10 * 1024 * 1024, description: 'Rotate when the active file would grow past this many bytes.' }),
    maxFiles: Type.Integer({
      minimum: 2,
      default: 10,
      // At least 2: the active file's first record must be checkable against the file before it.
      description: 'Files kept, the active one included (at least 2); the oldest rotated file is removed first.',
    }),
    storeContent: Type.Boolean({ default: false, description: "Also store each result's content (redacted). Default: only its size and SHA-256." }),
    allow: Type.Array(Type.String(), { default: [], description: 'Values the secret scanner must leave alone (exact strings).' }),
  },
  { additionalProperties: false },
);
export type AuditOptions = Static<typeof AuditOptions>;
export type AuditOptionsInput = Partial<AuditOptions>;

/** Fills the defaults in and checks the result; the host does the same before setup, so this is idempotent. */
export function resolveOptions(input: AuditOptionsInput = {}): { ok: true; value: AuditOptions } | { ok: false; message: string } {
  const value = Value.Default(AuditOptions, Value.Clone(input)) as unknown;
  if (Value.Check(AuditOptions, value)) return { ok: true, value };
  const problems = schemaProblemLines(AuditOptions, value, { keyNoun: 'option' });
  return { ok: false, message: `Invalid audit-log options: ${problems.join('; ')}. See extensions/policy/audit-log/README.md for each option.` };
}
