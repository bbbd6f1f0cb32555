import { isUtf8 } from 'node:buffer';
import { closeSync, type Stats } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { errnoCode, errnoWords } from '@airlock/toolkit/util';
import Type, { type Static } from 'typebox';
import type { AgentTool, FileStamp, ToolContext } from '@airlock/contract';
import {
  ChangedDuringWriteError,
  ChangedSinceJudgedError,
  DanglingLinkError,
  displayPath,
  JudgedFolder,
  judgedFor,
  lockFile,
  namesNear,
  openJudgedFile,
  openTargetSync,
  resolveExistingPath,
  resolveToolPath,
  visibleName,
  targetAt,
  writeFileAtomic,
  type AtomicWriteResult,
  type JudgedTarget,
} from '@airlock/tool-common';
import { fastPlan, planOnBytes, type ByteEdit } from './fast-path.js';
import { EditError, locateEdits, type EditInput, type Located } from './match.js';
import type { Normalisation } from './normalize.js';
import { prepareEditArguments } from './prepare.js';
import { readWhole } from './read-whole.js';

const Replacement = Type.Object(
  {
    oldText: Type.String({ description: 'Text to replace. Must occur exactly once in the original file; include enough surrounding lines to be unique.' }),
    newText: Type.String({ description: 'The text to put in its place.' }),
  },
  { additionalProperties: false },
);

const Params = Type.Object(
  {
    path: Type.String({ description: 'Path of the file to edit, relative to the working folder or absolute.' }),
    edits: Type.Array(Replacement, {
      minItems: 1,
      description: 'One or more replacements. Each is matched against the original file (not after the others), and they must not overlap.',
    }),
  },
  { additionalProperties: false },
);

export interface EditDetails {
  /** Unified patch of the change (---/+++ headers, @@ hunks, 3 lines of context). */
  diff: string;
  /** First changed line in the new file (1-based). */
  firstChangedLine: number | undefined;
  /** True when at least one edit matched only after normalisation. */
  fuzzy: boolean;
  /** The normalisations fuzzy matches relied on (only when fuzzy). */
  normalisations?: Normalisation[];
}

export const editTool: AgentTool<typeof Params, EditDetails> = {
  name: 'edit',
  label: 'Edit',
  description:
    'Edit a file by exact text replacement. Each edits[i].oldText must match exactly one place in the current file ' +
    '(copy it from a read, including indentation); all edits are matched against the original content, must not overlap, ' +
    'and are applied all together or not at all. Line endings and a BOM are preserved. Small differences in trailing ' +
    'whitespace, Unicode quotes, dashes and spaces are tolerated and reported. If the file changed on disk since you last ' +
    'read it, the edit is refused: read it again first. Use write for new files or complete rewrites.',
  parameters: Params,
  prepareArguments: prepareEditArguments,
  replay: 'never',
  resources(params, ctx) {
    // A missing file: execute reports it; policy sees where the path leads (links followed).
    return [{ kind: 'fs.write', path: openTargetSync(params.path, ctx.cwd), written: params.path }];
  },
  async execute(_id, params: Static<typeof Params>, signal, _onUpdate, ctx) {
    if (!Array.isArray(params.edits) || params.edits.length === 0) {
      throw new Error('Edit tool input is invalid: edits must contain at least one {oldText, newText} replacement.');
    }
    const { absolute, real } = await locateFile(params.path, ctx.cwd);
    const shown = displayPath(absolute, ctx.cwd);
    // The file the policy judged; outside a kernel (nothing judged), the one the path leads to now.
    const judged: JudgedTarget = judgedFor(ctx) ?? targetAt(real);
    return ctx.withFileMutation(judged.path, () => editJudged(absolute, judged, shown, params.edits, ctx, signal), signal ? { signal } : {});
  },
};

/**
 * The path the model meant and its real path (symlinks resolved). One realpath answers both
 * "does it exist" and "which file is it" in the common case; the Unicode and apostrophe
 * variants are tried only when the path as written does not exist. Throws the error to show.
 */
async function locateFile(raw: string, cwd: string): Promise<{ absolute: string; real: string }> {
  let absolute = resolveToolPath(raw, cwd);
  try {
    return { absolute, real: await realpath(absolute) };
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw await fsError(error, absolute, displayPath(absolute, cwd));
    const variant = await resolveExistingPath(raw, cwd);
    if (variant === absolute) throw await fsError(error, absolute, displayPath(absolute, cwd));
    absolute = variant;
  }
  try {
    return { absolute, real: await realpath(absolute) };
  } catch (error) {
    throw await fsError(error, absolute, displayPath(absolute, cwd));
  }
}

/**
 * Runs in the file's turn of the mutation queue: opens the judged folder (confirmed, see
 * tool-common's JudgedFolder) and takes the cross-process lock, so another Airlock process
 * editing the same file waits instead of both reading the old content.
 */
async function editJudged(absolute: string, judged: JudgedTarget, shown: string, edits: readonly EditInput[], ctx: ToolContext, signal: AbortSignal | undefined) {
  throwIfAborted(signal);
  let folder: JudgedFolder;
  try {
    folder = JudgedFolder.open(dirname(judged.path), judged.folder, shown);
  } catch (error) {
    throw errnoCode(error) ? await fsError(error, absolute, shown) : error;
  }
  try {
    const lock = await lockFile(folder, basename(judged.path), shown, signal);
    try {
      return await editFile(absolute, judged, folder, shown, edits, ctx, signal);
    } finally {
      lock.release();
    }
  } catch (error) {
    throw errnoCode(error) ? await fsError(folder.plain(error), absolute, shown, 'write') : error;
  } finally {
    folder.close();
  }
}

async function editFile(absolute: string, judged: JudgedTarget, folder: JudgedFolder, shown: string, edits: readonly EditInput[], ctx: ToolContext, signal: AbortSignal | undefined) {
  const real = judged.path;
  let read: { stats: Stats; bytes: Buffer };
  try {
    // The name was judged for writing, not one inode: a file replaced by an earlier edit is still the one to edit.
    const { fd, stats } = openJudgedFile({ ...judged, file: undefined }, shown);
    try {
      checkEditable(stats, shown, ctx.files.get(real));
      read = { stats, bytes: await readWhole(fd, stats) };
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (error instanceof ChangedSinceJudgedError || error instanceof DanglingLinkError) throw error;
    throw errnoCode(error) ? await fsError(error, absolute, shown) : error;
  }
  const { stats: before, bytes } = read;
  if (!isUtf8(bytes)) {
    throw new Error(`${shown} is not valid UTF-8 text (binary or another encoding), so edit cannot change it safely. Use bash or write instead.`);
  }
  const bomLength = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const plan = planEdit(bytes, bomLength, edits, shown);

  throwIfAborted(signal);
  let after: AtomicWriteResult;
  try {
    // Compare-and-swap: if the file is no longer the one read (another process wrote it), nothing is renamed.
    after = await writeFileAtomic(real, plan.chunks, { replacing: before, expect: before, folder, beforeRename: () => throwIfAborted(signal) });
  } catch (error) {
    if (error instanceof ChangedDuringWriteError) throw new Error(error.shownAs(shown));
    // The folder was open and confirmed, the lock made in it: gone by name now means moved or swapped.
    if (errnoCode(error) === 'ENOENT') throw new ChangedSinceJudgedError(shown, 'folder');
    throw errnoCode(error) ? await fsError(folder.plain(error), absolute, shown, 'write') : error;
  }
  ctx.files.note(real, { mtimeMs: after.mtimeMs, size: after.size });

  const { diff, firstChangedLine, located } = plan;
  const normalisations = [...new Set(located.flatMap((e) => e.normalisations ?? []))];
  const fuzzyEdits = located.filter((e) => e.normalisations).map((e) => (edits.length > 1 ? `edits[${e.index}]` : 'oldText'));
  let message = `Replaced ${plan.count} block(s) in ${shown}.`;
  if (fuzzyEdits.length > 0) {
    message += ` ${fuzzyEdits.join(', ')} matched only after normalising ${normalisations.join(', ')}; only the matched lines were changed.`;
  }
  const details: EditDetails = { diff, firstChangedLine, fuzzy: fuzzyEdits.length > 0 };
  if (fuzzyEdits.length > 0) details.normalisations = normalisations;
  return { content: [{ type: 'text' as const, text: message }], details };
}

/** Refuse what edit must not touch: not a regular file, or changed since the session last saw it. */
function checkEditable(stats: Stats, shown: string, seen: FileStamp | undefined): void {
  if (stats.isDirectory()) throw new Error(`${shown} is a directory, not a file. Give the path of a file inside it (use ls to see what is there).`);
  if (!stats.isFile()) throw new Error(`${shown} is not a regular file (a device, socket or pipe); edit changes only regular files. Use bash to work with it.`);
  if (seen && (seen.mtimeMs !== stats.mtimeMs || seen.size !== stats.size)) {
    throw new Error(
      `${shown} changed on disk since you last read or edited it (size ${seen.size} → ${stats.size} bytes). ` +
        'Read the file again before editing, so your oldText matches what is there now.',
    );
  }
}

interface Plan {
  chunks: Uint8Array[];
  count: number;
  diff: string;
  firstChangedLine: number | undefined;
  located: { index: number; normalisations?: Normalisation[] }[];
}

/** Locate the edits and build the new content and the patch: on bytes when possible, else on the decoded text. */
function planEdit(bytes: Buffer, bomLength: number, edits: readonly EditInput[], shown: string): Plan {
  try {
    const fast = fastPlan(bytes, bomLength, edits, shown);
    if (fast) return { ...fast, located: [] };
    const text = bytes.toString('utf8', bomLength);
    const located = locateEdits(text, edits, shown);
    return { ...planOnBytes(bytes, bomLength, toBytes(text, located), shown), located };
  } catch (error) {
    if (error instanceof EditError) throw new Error(error.message);
    throw error;
  }
}

/**
 * Character offsets in the decoded text as byte offsets in the body, walking the sorted edits
 * once: the output is then slices of the original bytes, and the file is never re-encoded.
 * The text was decoded from valid UTF-8, so its slices encode back to the same bytes.
 */
function toBytes(text: string, located: readonly Located[]): ByteEdit[] {
  let char = 0;
  let byte = 0;
  return located.map((e) => {
    const start = byte + Buffer.byteLength(text.slice(char, e.start), 'utf8');
    const end = start + Buffer.byteLength(text.slice(e.start, e.end), 'utf8');
    char = e.end;
    byte = end;
    return { start, end, replacement: Buffer.from(e.replacement, 'utf8') };
  });
}

function throwIfAborted(signal: AbortSignal | undefined) {
  if (!signal?.aborted) return;
  const error = new Error('The edit was aborted before the file was changed.', { cause: signal.reason });
  error.name = 'AbortError';
  throw error;
}

async function fsError(error: unknown, absolute: string, shown: string, verb = 'edit'): Promise<Error> {
  const code = errnoCode(error);
  const why = error instanceof Error ? error.message : String(error);
  const cannot = `Cannot ${verb} ${shown}: ${errnoWords(code)}`;
  switch (code) {
    case 'ENOENT': {
      const close = await namesNear(absolute);
      if (close === undefined) return new Error(`File not found: ${shown}. Its folder ${dirname(absolute)} does not exist either: check the path (ls or find show what is there).`);
      if (close.length === 0) return new Error(`File not found: ${shown}. Use write to create a new file.`);
      return new Error(`File not found: ${shown}. Did you mean ${close.map((n) => `"${visibleName(n)}"`).join(', ')} in ${dirname(absolute)}?`);
    }
    case 'EACCES':
    case 'EPERM':
      return new Error(
        `Permission denied: cannot ${verb} ${shown} (${why}). Edit needs read and write permission on the file (a read-only file is ` +
          'never replaced) and write permission on its folder (a temp file is renamed over it). Ask the user to change the permissions; retrying will not help.',
        { cause: error },
      );
    case 'ENOTDIR':
      return new Error(`${cannot}. Check the path (ls shows what is there).`, { cause: error });
    case 'EISDIR':
      return new Error(`${shown} is a directory, not a file. Give the path of a file inside it (use ls to see what is there).`);
    case 'ELOOP':
      return new Error(`${cannot} (${why}). A symlink loops: give the path of the real file.`, { cause: error });
    case 'EROFS':
      return new Error(`${cannot} (${why}). Files there cannot be changed; work on a copy elsewhere.`, { cause: error });
    case 'ENOSPC':
    case 'EDQUOT':
      return new Error(`${cannot} (${why}). Nothing was changed; free some space and retry.`, { cause: error });
    default:
      return new Error(`Cannot ${verb} ${shown}: ${why}`, { cause: error });
  }
}
