import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { sha256Hex } from './canonical.js';

/**
 * Where the log lives by default: `$XDG_STATE_HOME/airlock/audit/<project>-<hash>/audit.jsonl`
 * (`~/.local/state/…` without XDG_STATE_HOME). Not inside the project, because
 * - the audit log loads by default in every run, and a run must not litter the user's repository
 *   with files to ignore or, worse, commit;
 * - the agent's own write, edit and bash tools are allowed inside the project by default: a log
 *   there is a log the audited agent may rewrite. Outside the workspace, writing it needs approval.
 * One folder per project keeps one chain per project; the hash keeps two projects of the same name apart.
 */

export interface LocationEnv {
  env: Readonly<Record<string, string | undefined>>;
  home: string;
}

/** `$XDG_STATE_HOME`, or `~/.local/state`. A relative XDG_STATE_HOME is ignored, as the XDG spec asks. */
export function stateDir({ env, home }: LocationEnv): string {
  const xdg = env.XDG_STATE_HOME;
  return xdg && isAbsolute(xdg) ? xdg : join(home, '.local', 'state');
}

/**
 * The folder a run belongs to: the nearest ancestor of `cwd` holding `.git`, else `cwd` itself,
 * so a run started in a subfolder writes to the same log as one at the root.
 */
export function projectRoot(cwd: string): string {
  const start = realOrSelf(resolve(cwd));
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return start;
  }
}

/** @example defaultAuditPath('/home/ada/src/shop', { env: {}, home: '/home/ada' }) // '/home/ada/.local/state/airlock/audit/shop-1a2b3c4d/audit.jsonl' */
export function defaultAuditPath(cwd: string, where: LocationEnv): string {
  const root = projectRoot(cwd);
  const name = basename(root).replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 40) || 'root';
  return join(stateDir(where), 'airlock', 'audit', `${name}-${sha256Hex(root).slice(0, 8)}`, 'audit.jsonl');
}

/**
 * Where the heads of all audit logs are kept (head.ts): `$XDG_STATE_HOME/airlock/audit-heads`.
 * A folder of its own, not the log's: whoever reaches a log's folder has not found its head, and
 * a custom `path` inside the project (where tools may write) still has its head outside.
 *
 * @example headsDir({ env: {}, home: '/home/ada' }) // '/home/ada/.local/state/airlock/audit-heads'
 */
export function headsDir(where: LocationEnv): string {
  return join(stateDir(where), 'airlock', 'audit-heads');
}

/** The `path` option: `~/` is the home folder, a relative path is relative to the project folder. */
export function resolveAuditPath(option: string | undefined, cwd: string, where: LocationEnv): string {
  if (option === undefined) return defaultAuditPath(cwd, where);
  if (option === '~' || option.startsWith('~/')) return join(where.home, option.slice(1));
  return resolve(cwd, option);
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
