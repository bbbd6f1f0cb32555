import type { Stats } from 'node:fs';
import { lstatSync } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { errnoCode, errnoWords, isPermissionDenied } from '@airlock/toolkit/util';
import Type, { type Static } from 'typebox';
import type { AgentTool, ToolContext } from '@airlock/contract';
import { ChangedDuringWriteError, ChangedSinceJudgedError, displayPath, judgedFor, lockFile, openOrMakeFolder, realTarget, realTargetSync, existingVariants, resolveExistingPathSync, resolveToolPath, visibleName, writeFileAtomic, type AtomicWriteResult, type JudgedFolder } from '@airlock/tool-common';

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
    return [{ kind: 'fs.write', path: realTargetSync(resolveExistingPathSync(params.path, ctx.cwd)), written: params.path }];
  },
  async execute(_id, params: Static<typeof Params>, signal, _onUpdate, ctx) {
    const given = resolveToolPath(params.path, ctx.cwd);
    // Never a second file beside one whose name differs only in invisible characters: an existing
    // variant is the file the model meant (it saw the name in a listing, where the difference does
    // not show); with several, none is obviously meant and the model must choose. Looked for once
    // (resolveExistingPath's rule): for a new file that lists the folder where the name is missing.
    const variants = existingVariants(given);
    if (variants.length > 1) throw new Error(ambiguousName(displayPath(given, ctx.cwd), variants));
    const absolute = variants.length === 1 ? (variants[0] as string) : given;
    const note = absolute === given ? '' : ` The file already existed under this name (written ${JSON.stringify(params.path)}); it was written, not a second file beside it.`;
    return ctx.withFileMutation(absolute, () => writeContent(absolute, params.content, ctx, signal, note), signal ? { signal } : {});
  },
};

async function writeContent(absolute: string, content: string, ctx: ToolContext, signal: AbortSignal | undefined, note = '') {
  throwIfAborted(signal);
  const shown = displayPath(absolute, ctx.cwd);
  // The path the policy judged; outside a kernel (nothing judged), where the path leads now.
  const judged = judgedFor(ctx);
  const target =
    judged?.path ??
    (await realTarget(absolute).catch((error: unknown) => {
      throw fsError(error, shown, 'resolve');
    }));
  // Only when the real path differs can the path itself be a symlink: saves an lstat per write.
  const viaLink = target !== absolute && (await lstat(absolute).catch(() => undefined))?.isSymbolicLink() === true;

  // The judged folder, opened and confirmed (made first where missing): the temp file is made
  // and renamed inside it, so a folder swapped for a link cannot carry the write elsewhere.
  let folder: JudgedFolder;
  try {
    folder = openOrMakeFolder(dirname(target), judged?.folder, shown);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'EEXIST' || code === 'ENOTDIR') throw new Error(`Cannot create ${shown}: a part of its folder path is a file, not a folder. Choose another path, or move that file away first.`);
    throw code ? fsError(error, shown, 'create the folder of') : error;
  }
  try {
    // Another Airlock process writing the same file waits its turn (the queue orders this one's calls).
    const lock = await lockFile(folder, basename(target), shown, signal);
    try {
      return await writeLocked(folder, target, shown, viaLink, content, ctx, signal, note);
    } finally {
      lock.release();
    }
  } catch (error) {
    throw errnoCode(error) ? fsError(folder.plain(error), shown, 'write') : error;
  } finally {
    folder.close();
  }
}

async function writeLocked(folder: JudgedFolder, target: string, shown: string, viaLink: boolean, content: string, ctx: ToolContext, signal: AbortSignal | undefined, note: string) {
  let before: Stats | undefined;
  try {
    before = lstatSync(folder.entry(basename(target)));
  } catch (error) {
    const code = errnoCode(error);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw fsError(error, shown, 'inspect');
  }
  // The judged path has no link at its end: one there now was put there since.
  if (before?.isSymbolicLink()) throw new ChangedSinceJudgedError(shown);
  if (before?.isDirectory()) throw new Error(`${shown} is a directory, not a file. Give the path of a file inside it (use ls to see what is there).`);
  if (before && !before.isFile()) throw new Error(`${shown} is not a regular file (a device, socket or pipe); write replaces only regular files. Use bash to work with it.`);

  if (before) {
    const seen = ctx.files.get(target);
    if (seen && (seen.mtimeMs !== before.mtimeMs || seen.size !== before.size)) {
      throw new Error(
        `${shown} changed on disk since you last read or wrote it (size ${seen.size} → ${before.size} bytes). ` +
          'Read the file again before writing, so you do not overwrite changes you have not seen.',
      );
    }
  }

  throwIfAborted(signal);
  let written: AtomicWriteResult;
  try {
    // The last moment an abort can still stop the write is just before the rename: after it, the file is written.
    // `expect`: the file must still be the one looked at above (or still absent), or nothing is renamed.
    written = await writeFileAtomic(target, content, { replacing: before, expect: before ?? null, folder, beforeRename: () => throwIfAborted(signal) });
  } catch (error) {
    if (error instanceof ChangedDuringWriteError) throw new Error(error.shownAs(shown));
    // The folder was open and confirmed, the lock made in it: gone by name now means moved or swapped.
    if (errnoCode(error) === 'ENOENT') throw new ChangedSinceJudgedError(shown, 'folder');
    throw errnoCode(error) ? fsError(folder.plain(error), shown, 'write') : error;
  }
  ctx.files.note(target, { mtimeMs: written.mtimeMs, size: written.size });
  const through = (viaLink ? ` Wrote through the symlink to ${target}.` : '') + note;
  const text = before
    ? `Overwrote ${visibleName(shown)} (${plural(written.bytes)}, was ${before.size}).${through}`
    : `Created ${visibleName(shown)} (${plural(written.bytes)}).${through}`;
  const details: WriteDetails = { path: target, created: !before, bytes: written.bytes };
  if (before) details.previousBytes = before.size;
  return { content: [{ type: 'text' as const, text }], details };
}

/** Several existing files differ from the given name only in invisible characters: the model must pick one. */
function ambiguousName(shown: string, variants: readonly string[]): string {
  const names = variants.map((v) => `"${visibleName(basename(v))}"`).join(', ');
  return `Not written: ${visibleName(shown)} does not exist, but ${variants.length} files differ from it only in spaces, Unicode form or quotes: ${names}. Give the exact name of the one to replace (escapes such as \\u202F stand for invisible characters), or a clearly different name for a new file.`;
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
  if (isPermissionDenied(code)) {
    return new Error(
      `Permission denied: cannot ${verb} ${shown} (${why}). Write needs write permission on an existing file (it is never replaced ` +
        'behind a read-only mode) and on its folder (a temp file is renamed over it). Write somewhere you have access to, or ask the user to change the permissions.',
      { cause: error },
    );
  }
  const cannot = `Cannot ${verb} ${shown}: ${errnoWords(code)} (${why}).`;
  if (code === 'EROFS') return new Error(`${cannot} Write the file somewhere else.`, { cause: error });
  if (code === 'ENOSPC' || code === 'EDQUOT') return new Error(`${cannot} Nothing was changed; free some space and retry.`, { cause: error });
  if (code === 'ELOOP') return new Error(`${cannot} A symlink loops: give the path of the real file.`, { cause: error });
  if (code === 'ENAMETOOLONG') return new Error(`${cannot} Use a shorter file name.`, { cause: error });
  return new Error(`Cannot ${verb} ${shown}: ${why}`, { cause: error });
}

function plural(bytes: number): string {
  return bytes === 1 ? '1 byte' : `${bytes} bytes`;
}
