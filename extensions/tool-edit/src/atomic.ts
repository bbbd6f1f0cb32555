import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Replace an existing file atomically: write a temp file in the same folder, give it the old
 * file's mode (and owner, when allowed), fsync, rename over the target, fsync the folder.
 * The same approach as @airlock/tool-write's writer; `beforeRename` is the last chance to abort.
 */
export async function replaceFileAtomic(target: string, chunks: readonly Uint8Array[], before: Stats, beforeRename: () => void): Promise<void> {
  const folder = dirname(target);
  const temp = join(folder, `.${basename(target)}.${randomBytes(6).toString('hex')}.airlock-tmp`);
  const handle = await open(temp, 'wx', 0o600);
  let renamed = false;
  try {
    try {
      // Successive writeFile calls on one handle continue where the last one stopped.
      for (const chunk of chunks) if (chunk.length > 0) await handle.writeFile(chunk);
      await handle.chmod(before.mode & 0o7777);
      await keepOwner(handle, before);
      await handle.sync();
    } finally {
      await handle.close();
    }
    beforeRename();
    await rename(temp, target);
    renamed = true;
  } finally {
    if (!renamed) await unlink(temp).catch(() => {});
  }
  await syncFolder(folder);
}

async function keepOwner(handle: { stat(): Promise<Stats>; chown(uid: number, gid: number): Promise<void> }, before: Stats) {
  const now = await handle.stat();
  if (now.uid === before.uid && now.gid === before.gid) return;
  try {
    await handle.chown(before.uid, before.gid);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
  }
}

async function syncFolder(folder: string) {
  try {
    const dir = await open(folder, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  } catch {
    // Some file systems refuse to fsync a folder; the data itself is synced.
  }
}
