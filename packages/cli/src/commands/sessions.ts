import { listSessions, sessionsDir } from '@airlock/agent';
import { countOf } from '@airlock/toolkit/display';
import { formatBytes, table } from '../format.js';
import { EXIT, type IO } from '../io.js';
import type { GlobalOptions } from '../global-options.js';
import { sessionQuery } from './session-query.js';

/** `airlock sessions`: this project's recorded sessions, newest first (what `replay` and `run --resume` take). */
export async function sessionsCommand(g: GlobalOptions, io: IO): Promise<number> {
  const query = sessionQuery(g, io);
  const sessions = listSessions(query);
  const folder = sessionsDir(query.cwd, query.where);
  if (g.json) {
    io.stdout.write(`${JSON.stringify({ folder, sessions: sessions.map((s) => ({ id: s.id, path: s.path, startedAt: s.header.startedAt, model: s.header.model, cwd: s.header.cwd, airlock: s.header.airlock, bytes: s.bytes, modifiedAt: s.modifiedAt.toISOString() })) })}\n`);
    return EXIT.ok;
  }
  if (sessions.length === 0) {
    io.stdout.write(`No sessions recorded for this project yet (they go to ${folder}; \`airlock run\` records them).\n`);
    return EXIT.ok;
  }
  const rows = [['ID', 'STARTED', 'MODEL', 'SIZE', 'FOLDER']];
  for (const s of sessions) rows.push([s.id, s.header.startedAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z'), s.header.model, formatBytes(s.bytes), s.header.cwd]);
  io.stdout.write(table(rows));
  io.stdout.write(`\n${countOf(sessions.length, 'session')} in ${folder}. Replay one with \`airlock replay <id or prefix>\`.\n`);
  return EXIT.ok;
}
