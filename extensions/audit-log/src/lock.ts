import { mkdirSync, rmdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** A lock older than this was left by a process that died while holding it (a record takes microseconds). */
const STALE_MS = 10_000;
/** Waiting longer than this for another writer means something is wrong: the record fails, the call goes on. */
const GIVE_UP_MS = 5_000;

/**
 * Hold `<log>.lock` (a directory: mkdir is atomic on every local file system, and needs no
 * native module) while one record is stamped and appended. Two runs in one project then chain
 * their records one after the other instead of both continuing from the same last line.
 * Returns the release function.
 *
 * @example const release = await lockLog(path); try { append… } finally { release(); }
 */
export async function lockLog(path: string): Promise<() => void> {
  const lock = `${path}.lock`;
  const started = Date.now();
  for (let wait = 1; ; wait = Math.min(wait * 2, 50)) {
    try {
      mkdirSync(lock, { mode: 0o700 });
      return () => {
        try {
          rmdirSync(lock);
        } catch {
          // Removed as stale by another writer after a long pause: nothing left to release.
        }
      };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        mkdirSync(dirname(lock), { recursive: true, mode: 0o700 });
        continue;
      }
      if (code !== 'EEXIST') throw error;
    }
    const held = statSync(lock, { throwIfNoEntry: false });
    if (held !== undefined && Date.now() - held.mtimeMs > STALE_MS) {
      try {
        rmdirSync(lock);
      } catch {
        // Another writer removed it first.
      }
      continue;
    }
    if (Date.now() - started > GIVE_UP_MS) {
      throw new Error(`another process has held ${lock} for over ${GIVE_UP_MS / 1000} s; if no Airlock run is writing this log, remove that folder`);
    }
    await new Promise((resume) => setTimeout(resume, wait));
  }
}
