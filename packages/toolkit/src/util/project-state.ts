import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';

/**
 * Where Airlock keeps per-project state outside the project (audit logs, session transcripts):
 * `$XDG_STATE_HOME/airlock/<kind>/<project>-<hash>/`. One function computes the project's key,
 * so the audit log and the transcripts of one project always land in folders of the same name,
 * and a run started in a subfolder lands where a run at the root does.
 */

/** The environment and home folder the state location is read from (never the real ones in tests). */
export interface StateLocation {
  env: Readonly<Record<string, string | undefined>>;
  home: string;
}

/**
 * `$XDG_STATE_HOME`, or `~/.local/state`. A relative XDG_STATE_HOME is ignored, as the XDG spec asks.
 *
 * @example stateHome({ env: {}, home: '/home/ada' }) // '/home/ada/.local/state'
 */
export function stateHome({ env, home }: StateLocation): string {
  const xdg = env.XDG_STATE_HOME;
  return xdg && isAbsolute(xdg) ? xdg : join(home, '.local', 'state');
}

/**
 * Airlock's state folder: `$XDG_STATE_HOME/airlock`.
 *
 * @example airlockStateHome({ env: { XDG_STATE_HOME: '/st' }, home: '/home/ada' }) // '/st/airlock'
 */
export function airlockStateHome(where: StateLocation): string {
  return join(stateHome(where), 'airlock');
}

/**
 * The folder a run belongs to: the nearest ancestor of `cwd` holding `.git`, else `cwd` itself
 * (both after resolving links).
 *
 * @example projectRoot('/home/ada/src/shop/src/deep') // '/home/ada/src/shop' when shop/.git exists
 */
export function projectRoot(cwd: string): string {
  const start = realOrSelf(resolve(cwd));
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return start;
  }
}

/**
 * A project's folder name in the state folder: its base name made safe (at most 40 characters)
 * and the first 8 hex digits of the SHA-256 of its full path, so two projects of the same name
 * stay apart.
 *
 * @example projectKey('/home/ada/src/shop') // 'shop-1a2b3c4d'
 */
export function projectKey(root: string): string {
  const name = basename(root).replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 40) || 'root';
  return `${name}-${createHash('sha256').update(root).digest('hex').slice(0, 8)}`;
}

/**
 * The state folder of one kind for the project `cwd` belongs to.
 *
 * @example projectStateDir('sessions', '/home/ada/src/shop', { env: {}, home: '/home/ada' })
 * // '/home/ada/.local/state/airlock/sessions/shop-1a2b3c4d'
 */
export function projectStateDir(kind: string, cwd: string, where: StateLocation): string {
  return join(airlockStateHome(where), kind, projectKey(projectRoot(cwd)));
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
