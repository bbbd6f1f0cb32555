import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { SessionError, findSession, type SessionQuery } from '@airlock/agent';
import { displayText } from '@airlock/toolkit/display';
import { UsageError, type IO } from '../io.js';
import type { GlobalOptions } from '../global-options.js';

/** Which project's sessions a command means: the one `--cwd` (or the current folder) belongs to, in this user's state folder. */
export function sessionQuery(g: GlobalOptions, io: IO): SessionQuery {
  return { cwd: resolve(io.cwd, g.cwd ?? '.'), where: { env: io.env, home: io.env.HOME || homedir() } };
}

/** The transcript a reference names (id, prefix, path; none = newest), or a usage error saying how to list them. */
export function transcriptPath(ref: string | undefined, query: SessionQuery): string {
  try {
    return findSession(ref, query);
  } catch (error) {
    // One line: it quotes the reference and a path the person gave.
    if (error instanceof SessionError) throw new UsageError(displayText(error.message, { maxChars: 2000 }), error.hint);
    throw error;
  }
}
