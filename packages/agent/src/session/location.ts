import { projectStateDir, type StateLocation } from '@airlock/toolkit/util';

/**
 * The folder of a project's transcripts: `$XDG_STATE_HOME/airlock/sessions/<project>-<hash>/`,
 * keyed like the audit log (the kernel computes both folder names), outside the project so the
 * agent's own tools cannot rewrite its history (the host protects the whole state folder).
 *
 * @example sessionsDir('/home/ada/shop', { env: {}, home: '/home/ada' }) // '/home/ada/.local/state/airlock/sessions/shop-1a2b3c4d'
 */
export function sessionsDir(cwd: string, where: StateLocation): string {
  return projectStateDir('sessions', cwd, where);
}

export type { StateLocation };
