/**
 * Whether a settings file can be believed: one that someone else could have written is refused,
 * as ssh refuses an authorized_keys file others can write. Settings decide what runs without
 * asking, so a file a stranger can edit (or plant) is not the user's word.
 *
 * Refused (POSIX only; Windows has no uid and mode bits that mean this):
 * - a file with the group or other write bit set;
 * - a file in a world-writable folder (such as /tmp) that is not owned by the current user — the
 *   file itself or, for a symlink, the link.
 */
import { lstat, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { dirname } from 'node:path';

/** Why a settings file was refused, and what to do about it. */
export interface UnsafeSettingsFile {
  reason: string;
  fix: string;
}

/**
 * Undefined when `file` may be read as settings; otherwise why not and how to fix it. A file that
 * does not exist (or cannot be examined) is left for the reader to report.
 *
 * @example
 * await settingsFileSafety('/repo/.airlockrc.json'); // undefined for a 0644 file of yours
 * await settingsFileSafety('/tmp/.airlockrc.json');  // { reason: 'it is in /tmp, which every user may write to, and belongs to user id 1001 …', fix: … }
 */
export async function settingsFileSafety(file: string): Promise<UnsafeSettingsFile | undefined> {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  let target: Stats;
  let link: Stats;
  let folder: Stats;
  try {
    [target, link, folder] = await Promise.all([stat(file), lstat(file), stat(dirname(file))]);
  } catch {
    return undefined;
  }
  const mode = target.mode & 0o777;
  if ((mode & 0o022) !== 0) {
    const who = (mode & 0o002) !== 0 ? 'every user' : 'its group';
    return {
      reason: `${who} may write to it (mode ${mode.toString(8).padStart(3, '0')}), so its settings may not be yours`,
      fix: `Run \`chmod go-w ${file}\` if it is yours, or remove it.`,
    };
  }
  if ((folder.mode & 0o002) !== 0) {
    const stranger = [link.uid, target.uid].find((owner) => owner !== uid);
    if (stranger !== undefined) {
      return {
        reason: `it is in ${dirname(file)}, which every user may write to, and it belongs to user id ${stranger}, not to you (${uid}): anyone could have planted it`,
        fix: `Remove it (or, if you made it, \`chown ${uid} ${file}\`), and keep settings in a folder only you can write to.`,
      };
    }
  }
  return undefined;
}
