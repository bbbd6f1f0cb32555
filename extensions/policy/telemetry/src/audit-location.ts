import { homedir } from 'node:os';
import Type, { type Static } from 'typebox';
import type { ExtensionAPI, Frozen } from '@airlock/contract';
import { resolveAuditPath } from '@airlock/audit-format';

const AUDIT_PACKAGE = '@airlock/audit-log';

/**
 * The settings' `extensions` list, as far as finding the audit log needs it: each entry a name or
 * path, or an object whose `name`, `enabled` and `options.path` may say where the log is.
 */
export const ExtensionEntries = Type.Array(
  Type.Union([
    Type.String(),
    Type.Object({ name: Type.Optional(Type.String()), enabled: Type.Optional(Type.Boolean()), options: Type.Optional(Type.Object({ path: Type.Optional(Type.Unknown()) })) }),
  ]),
);
export type ExtensionEntries = Frozen<Static<typeof ExtensionEntries>>;

/**
 * Where this run's audit log is, as audit-log resolves it from the same settings entry (its
 * `path` option, else the default in the user's state folder); undefined when the settings leave
 * the audit log out.
 *
 * @example
 * auditLogPath(api) // '/home/u/.local/state/airlock/audit/myproject-1a2b3c4d/audit.jsonl'
 */
export function auditLogPath(api: Pick<ExtensionAPI<{ extensions: ExtensionEntries }>, 'settings' | 'cwd' | 'env'>, home: string = homedir()): string | undefined {
  let path: string | undefined;
  // The last entry naming the audit log wins, as in the host's default-set merge.
  for (const entry of api.settings.extensions) {
    if (entry === AUDIT_PACKAGE) path = undefined;
    else if (entry === `-${AUDIT_PACKAGE}`) return undefined;
    else if (typeof entry === 'object' && entry.name === AUDIT_PACKAGE) {
      if (entry.enabled === false) return undefined;
      const option = entry.options?.path;
      path = typeof option === 'string' ? option : undefined;
    }
  }
  return resolveAuditPath(path, api.cwd, { env: api.env, home });
}
