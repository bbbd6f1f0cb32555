import { homedir } from 'node:os';
import type { ExtensionAPI } from '@airlock/contract';
import { resolveAuditPath } from '@airlock/audit-format';

const AUDIT_PACKAGE = '@airlock/audit-log';

/**
 * Where this run's audit log is, as audit-log resolves it from the same settings entry (its
 * `path` option, else the default in the user's state folder); undefined when the settings leave
 * the audit log out.
 *
 * @example
 * auditLogPath(api) // '/home/u/.local/state/airlock/audit/myproject-1a2b3c4d/audit.jsonl'
 */
export function auditLogPath(api: ExtensionAPI, home: string = homedir()): string | undefined {
  let path: string | undefined;
  const entries = Array.isArray(api.settings['extensions']) ? (api.settings['extensions'] as unknown[]) : [];
  // The last entry naming the audit log wins, as in the host's default-set merge.
  for (const entry of entries) {
    if (entry === AUDIT_PACKAGE) path = undefined;
    else if (entry === `-${AUDIT_PACKAGE}`) return undefined;
    else if (typeof entry === 'object' && entry !== null && (entry as { name?: unknown }).name === AUDIT_PACKAGE) {
      if ((entry as { enabled?: unknown }).enabled === false) return undefined;
      const option = ((entry as { options?: { path?: unknown } }).options ?? {}).path;
      path = typeof option === 'string' ? option : undefined;
    }
  }
  return resolveAuditPath(path, api.cwd, { env: api.env, home });
}
