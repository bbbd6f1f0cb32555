import { randomBytes } from 'node:crypto';

/**
 * A new session id: the start time (UTC, to the millisecond) and 6 random hex digits, so ids sort
 * by start time as plain strings and two sessions started in the same millisecond differ.
 *
 * @example newSessionId(new Date('2026-12-02T01:15:00.123Z')) // '20261202T011500123Z-3f9a1c'
 */
export function newSessionId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:.]/g, '');
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

/** What an id looks like (ids name files, so nothing else may pass as one). */
export const SESSION_ID = /^\d{8}T\d{9}Z-[0-9a-f]{6}$/;
