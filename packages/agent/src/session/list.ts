import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { SessionError } from './errors.js';
import { SESSION_ID } from './id.js';
import { sessionsDir, type StateLocation } from './location.js';
import { checkHeader, type SessionHeader } from './records.js';

/** One session of a project, as its header and the file say. */
export interface SessionSummary {
  readonly id: string;
  readonly path: string;
  readonly header: SessionHeader;
  readonly bytes: number;
  /** When the last message was written (the file's modification time). */
  readonly modifiedAt: Date;
}

export interface SessionQuery {
  /** The folder whose project's sessions are meant. */
  cwd: string;
  where: StateLocation;
  /** Another transcript folder (default: the project's, see sessionsDir). */
  dir?: string;
}

const LIST_HINT = 'Run `airlock sessions` to list the sessions of this project (or give the path of a transcript file).';

/**
 * The project's sessions, newest first (by start time, which the ids sort by). Files that are not
 * transcripts (no session header) are left out.
 *
 * @example listSessions({ cwd: process.cwd(), where: { env: process.env, home: homedir() } })[0]?.id // '20261202T011500123Z-3f9a1c'
 */
export function listSessions(query: SessionQuery): SessionSummary[] {
  const dir = query.dir ?? sessionsDir(query.cwd, query.where);
  if (!existsSync(dir)) return [];
  const sessions: SessionSummary[] = [];
  for (const name of readdirSync(dir)) {
    const id = name.slice(0, -'.jsonl'.length);
    if (!name.endsWith('.jsonl') || !SESSION_ID.test(id)) continue;
    const path = join(dir, name);
    const header = readHeader(path);
    if (header === undefined) continue;
    const stat = statSync(path);
    sessions.push({ id, path, header, bytes: stat.size, modifiedAt: stat.mtime });
  }
  return sessions.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

/**
 * The transcript file a reference means: a path to a file (it contains a `/` or ends in
 * `.jsonl`), a session id, a unique prefix of one, or nothing (the newest session). Throws a
 * SessionError saying how to list the sessions when nothing (or more than one) matches.
 *
 * @example findSession('2026120201', { cwd, where }) // '/home/ada/.local/state/airlock/sessions/shop-1a2b3c4d/20261202T011500123Z-3f9a1c.jsonl'
 */
export function findSession(ref: string | undefined, query: SessionQuery): string {
  if (ref !== undefined && (ref.includes('/') || ref.endsWith('.jsonl'))) {
    const path = isAbsolute(ref) ? ref : resolve(query.cwd, ref);
    if (!existsSync(path)) throw new SessionError(`No transcript file at ${path}.`, LIST_HINT);
    return path;
  }
  const sessions = listSessions(query);
  const where = query.dir ?? sessionsDir(query.cwd, query.where);
  if (sessions.length === 0) throw new SessionError(`This project has no sessions yet (none in ${where}).`, 'Sessions are recorded by `airlock run`; give the path of a transcript file to read another one.');
  if (ref === undefined || ref === '') return sessions[0]!.path;
  const exact = sessions.find((s) => s.id === ref);
  if (exact !== undefined) return exact.path;
  const matches = sessions.filter((s) => s.id.startsWith(ref));
  if (matches.length === 1) return matches[0]!.path;
  if (matches.length === 0) throw new SessionError(`No session of this project starts with "${ref}" (in ${where}).`, LIST_HINT);
  throw new SessionError(`"${ref}" matches ${matches.length} sessions: ${matches.slice(0, 5).map((s) => s.id).join(', ')}${matches.length > 5 ? ', …' : ''}.`, 'Give more characters of the id.');
}

/** The header of a transcript file, or undefined when its first line is not one. */
function readHeader(path: string): SessionHeader | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    const end = buffer.subarray(0, n).indexOf(0x0a);
    if (end < 0) return undefined;
    const value: unknown = JSON.parse(buffer.subarray(0, end).toString('utf8'));
    return checkHeader.Check(value) ? value : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
