import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { lstat, mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import Type, { type Static } from 'typebox';
import type { AgentTool, ToolContext } from '@airlock/kernel';
import { resolveExistingPath, resolveToolPath } from '@airlock/tool-common';
import { errnoCode, realTarget, realTargetSync } from './real-path.js';

const Params = Type.Object({
  path: Type.String({ description: 'Path of the file to write, relative to the working folder or absolute.' }),
  content: Type.String({ description: 'The complete new content of the file.' }),
});

export interface WriteDetails {
  /** The real path written (after following symlinks). */
  path: string;
  /** True when the file did not exist before. */
  created: boolean;
  /** UTF-8 bytes written. */
  bytes: number;
  /** Size of the file that was replaced, when it existed. */
  previousBytes?: number;
}

/** Permission bits a new file gets: what `open(…, 0o666)` would give under the process umask. */
const NEW_FILE_MODE = 0o666 & ~currentUmask();

function currentUmask(): number {
  try {
    // Read-only query: set and restore. Throws in worker threads, where we fall back to 022.
    const mask = process.umask(0o022);
    process.umask(mask);
    return mask;
  } catch {
    return 0o022;
  }
}

export const writeTool: AgentTool<typeof Params, WriteDetails> = {
  name: 'write',
  label: 'Write',
  description:
    'Write a file: creates it (and missing parent folders) or replaces its whole content. The write is atomic and keeps ' +
    "an existing file's permissions. Use write only for new files or complete rewrites; use edit for changes. If the file " +
    'changed on disk since you last read it, the write is refused: read it again first.',
  parameters: Params,
  replay: 'never',
  resources(params, ctx) {
    return [{ kind: 'fs.write', path: realTargetSync(resolveToolPath(params.path, ctx.cwd)) }];
  },
  async execute(_id, params: Static<typeof Params>, signal, _onUpdate, ctx) {
    if (!ctx) throw new Error('write needs a ToolContext; run it through an Airlock kernel.');
    const absolute = await resolveExistingPath(params.path, ctx.cwd);
    return ctx.withFileMutation(absolute, () => writeFileAtomic(absolute, params.content, ctx, signal), signal ? { signal } : {});
  },
};

async function writeFileAtomic(absolute: string, content: string, ctx: ToolContext, signal: AbortSignal | undefined) {
  throwIfAborted(signal);
  const shown = display(absolute, ctx.cwd);
  const target = await realTarget(absolute).catch((error: unknown) => {
    throw fsError(error, shown, 'resolve');
  });
  const viaLink = (await lstat(absolute).catch(() => undefined))?.isSymbolicLink() === true;
  let before: Stats | undefined;
  try {
    before = await stat(target);
  } catch (error) {
    const code = errnoCode(error);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw fsError(error, shown, 'inspect');
  }
  if (before?.isDirectory()) throw new Error(`${shown} is a directory, not a file. Give the path of a file inside it (use ls to see what is there).`);
  if (before && !before.isFile()) throw new Error(`${shown} is not a regular file (a device, socket or pipe); write replaces only regular files.`);

  if (before) {
    const seen = ctx.files.get(target);
    if (seen && (seen.mtimeMs !== before.mtimeMs || seen.size !== before.size)) {
      throw new Error(
        `${shown} changed on disk since you last read or wrote it (size ${seen.size} → ${before.size} bytes). ` +
          'Read the file again before writing, so you do not overwrite changes you have not seen.',
      );
    }
  }

  const folder = dirname(target);
  try {
    await mkdir(folder, { recursive: true });
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'EEXIST' || code === 'ENOTDIR') throw new Error(`Cannot create ${shown}: a part of its folder path is a file, not a folder.`);
    throw fsError(error, shown, 'create the folder of');
  }

  const data = Buffer.from(content, 'utf8');
  throwIfAborted(signal);
  const temp = join(folder, `.${basename(target)}.${randomBytes(6).toString('hex')}.airlock-tmp`);
  let handle;
  try {
    handle = await open(temp, 'wx', 0o600);
  } catch (error) {
    throw fsError(error, shown, 'write');
  }
  let renamed = false;
  try {
    try {
      await handle.writeFile(data);
      if (before) {
        await handle.chmod(before.mode & 0o7777);
        await keepOwner(handle, before);
      } else {
        await handle.chmod(NEW_FILE_MODE);
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    // The last moment an abort can still stop the write: after the rename, the file is written.
    throwIfAborted(signal);
    await rename(temp, target);
    renamed = true;
  } catch (error) {
    throw errnoCode(error) ? fsError(error, shown, 'write') : error;
  } finally {
    if (!renamed) await unlink(temp).catch(() => {});
  }
  await syncFolder(folder);

  const after = await stat(target);
  ctx.files.note(target, { mtimeMs: after.mtimeMs, size: after.size });
  const through = viaLink ? ` Wrote through the symlink to ${target}.` : '';
  const text = before
    ? `Overwrote ${shown} (${plural(data.length)}, was ${before.size}).${through}`
    : `Created ${shown} (${plural(data.length)}).${through}`;
  const details: WriteDetails = { path: target, created: !before, bytes: data.length };
  if (before) details.previousBytes = before.size;
  return { content: [{ type: 'text' as const, text }], details };
}

/** Give the replacement the old file's owner; only root may, so an EPERM is not an error. */
async function keepOwner(handle: { stat(): Promise<Stats>; chown(uid: number, gid: number): Promise<void> }, before: Stats) {
  const now = await handle.stat();
  if (now.uid === before.uid && now.gid === before.gid) return;
  try {
    await handle.chown(before.uid, before.gid);
  } catch (error) {
    if (errnoCode(error) !== 'EPERM') throw error;
  }
}

/** Make the rename itself durable. Best effort: some file systems refuse to fsync a folder. */
async function syncFolder(folder: string) {
  try {
    const dir = await open(folder, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  } catch {
    // Not all platforms allow it; the data itself is already synced.
  }
}

function throwIfAborted(signal: AbortSignal | undefined) {
  if (!signal?.aborted) return;
  const error = new Error('The write was aborted before the file was changed.', { cause: signal.reason });
  error.name = 'AbortError';
  throw error;
}

function fsError(error: unknown, shown: string, verb: string): Error {
  const code = errnoCode(error);
  const why = error instanceof Error ? error.message : String(error);
  if (code === 'EACCES' || code === 'EPERM') return new Error(`Permission denied: cannot ${verb} ${shown} (${why}).`, { cause: error });
  if (code === 'EROFS') return new Error(`Cannot ${verb} ${shown}: the file system is read-only (${why}).`, { cause: error });
  if (code === 'ENOSPC' || code === 'EDQUOT') return new Error(`Cannot ${verb} ${shown}: no space left (${why}).`, { cause: error });
  if (code === 'ELOOP') return new Error(`Cannot ${verb} ${shown}: too many levels of symbolic links (${why}).`, { cause: error });
  if (code === 'ENAMETOOLONG') return new Error(`Cannot ${verb} ${shown}: the name is too long (${why}).`, { cause: error });
  return new Error(`Cannot ${verb} ${shown}: ${why}`, { cause: error });
}

/** The path as the model should see it: relative to the working folder when inside it. */
function display(absolute: string, cwd: string): string {
  const rel = relative(cwd, absolute);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : absolute;
}

function plural(bytes: number): string {
  return bytes === 1 ? '1 byte' : `${bytes} bytes`;
}
