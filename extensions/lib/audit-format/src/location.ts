import { join, resolve } from 'node:path';
import { airlockStateHome, projectRoot, projectStateDir, stateHome, type StateLocation } from '@airlock/toolkit/util';

/**
 * Where the log lives by default: `$XDG_STATE_HOME/airlock/audit/<project>-<hash>/audit.jsonl`
 * (`~/.local/state/…` without XDG_STATE_HOME). Not inside the project, because
 * - the audit log loads by default in every run, and a run must not litter the user's repository
 *   with files to ignore or, worse, commit;
 * - the agent's own write, edit and bash tools are allowed inside the project by default: a log
 *   there is a log the audited agent may rewrite. Outside the workspace, writing it needs approval.
 * One folder per project keeps one chain per project; the hash keeps two projects of the same name apart.
 * The project's folder name is computed by the kernel's `projectStateDir`, which session transcripts use too.
 */

/** The environment and home folder the location is read from. */
export type LocationEnv = StateLocation;

/** `$XDG_STATE_HOME`, or `~/.local/state` (the kernel's one definition, shared with session transcripts). */
export const stateDir: (where: LocationEnv) => string = stateHome;

/**
 * The folder a run belongs to (the nearest ancestor holding `.git`), so a run started in a
 * subfolder writes to the same log as one at the root.
 */
export { projectRoot };

/** @example defaultAuditPath('/home/ada/src/shop', { env: {}, home: '/home/ada' }) // '/home/ada/.local/state/airlock/audit/shop-1a2b3c4d/audit.jsonl' */
export function defaultAuditPath(cwd: string, where: LocationEnv): string {
  return join(projectStateDir('audit', cwd, where), 'audit.jsonl');
}

/**
 * Where the heads of all audit logs are kept (head.ts): `$XDG_STATE_HOME/airlock/audit-heads`.
 * A folder of its own, not the log's: whoever reaches a log's folder has not found its head, and
 * a custom `path` inside the project (where tools may write) still has its head outside.
 *
 * @example headsDir({ env: {}, home: '/home/ada' }) // '/home/ada/.local/state/airlock/audit-heads'
 */
export function headsDir(where: LocationEnv): string {
  return join(airlockStateHome(where), 'audit-heads');
}

/** The `path` option: `~/` is the home folder, a relative path is relative to the project folder. */
export function resolveAuditPath(option: string | undefined, cwd: string, where: LocationEnv): string {
  if (option === undefined) return defaultAuditPath(cwd, where);
  if (option === '~' || option.startsWith('~/')) return join(where.home, option.slice(1));
  return resolve(cwd, option);
}
