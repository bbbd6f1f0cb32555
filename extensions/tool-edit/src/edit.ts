import { readFile, realpath, stat } from 'node:fs/promises';
import { isUtf8 } from 'node:buffer';
import { basename, dirname, isAbsolute, relative } from 'node:path';
import Type, { type Static } from 'typebox';
import type { AgentTool, ToolContext } from '@airlock/kernel';
import { realPathOrSelf, resolveExistingPath, resolveToolPath } from '@airlock/tool-common';
import { replaceFileAtomic } from './atomic.js';
import { closeNamesIn } from './close-names.js';
import { buildPatch } from './diff.js';
import { fastPlan } from './fast-path.js';
import { EditError, locateEdits, type EditInput } from './match.js';
import type { Normalisation } from './normalize.js';
import { prepareEditArguments } from './prepare.js';

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
    // A missing file: execute reports it; policy sees the path as given.
    return [{ kind: 'fs.write', path: realPathOrSelf(resolveToolPath(params.path, ctx.cwd)) }];
  },
  async execute(_id, params: Static<typeof Params>, signal, _onUpdate, ctx) {
    if (!ctx) throw new Error('edit needs a ToolContext; run it through an Airlock kernel.');
    if (!Array.isArray(params.edits) || params.edits.length === 0) {
      throw new Error('Edit tool input is invalid: edits must contain at least one {oldText, newText} replacement.');
    }
    const absolute = await resolveExistingPath(params.path, ctx.cwd);
    return ctx.withFileMutation(absolute, () => editFile(absolute, params.edits, ctx, signal), signal ? { signal } : {});
  },
};

async function editFile(absolute: string, edits: readonly EditInput[], ctx: ToolContext, signal: AbortSignal | undefined) {
  throwIfAborted(signal);
  const shown = display(absolute, ctx.cwd);
  let real: string;
  try {
    real = await realpath(absolute);
  } catch (error) {
    throw await fsError(error, absolute, shown);
  }
  const before = await stat(real).catch(async (error: unknown) => {
    throw await fsError(error, absolute, shown);
  });
  if (before.isDirectory()) throw new Error(`${shown} is a directory, not a file. Give the path of a file inside it (use ls to see what is there).`);
  if (!before.isFile()) throw new Error(`${shown} is not a regular file (a device, socket or pipe); edit changes only regular files.`);

  const seen = ctx.files.get(real);
  if (seen && (seen.mtimeMs !== before.mtimeMs || seen.size !== before.size)) {
    throw new Error(
      `${shown} changed on disk since you last read or edited it (size ${seen.size} → ${before.size} bytes). ` +
        'Read the file again before editing, so your oldText matches what is there now.',
    );
  }

  const bytes = await readFile(real).catch(async (error: unknown) => {
    throw await fsError(error, absolute, shown);
  });
  if (!isUtf8(bytes)) {
    throw new Error(`${shown} is not valid UTF-8 text (binary or another encoding), so edit cannot change it safely. Use bash or write instead.`);
  }
  const bomLength = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const plan = planEdit(bytes, bomLength, edits, shown);

  throwIfAborted(signal);
  try {
    await replaceFileAtomic(real, plan.chunks, before, () => throwIfAborted(signal));
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw await fsError(error, absolute, shown, 'write');
  }
  const after = await stat(real);
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
    const parts: string[] = [];
    let cursor = 0;
    for (const e of located) {
      parts.push(text.slice(cursor, e.start), e.replacement);
      cursor = e.end;
    }
    parts.push(text.slice(cursor));
    const chunks: Uint8Array[] = bomLength > 0 ? [bytes.subarray(0, bomLength)] : [];
    chunks.push(Buffer.from(parts.join(''), 'utf8'));
    return { chunks, count: located.length, located, ...buildPatch(text, located, shown) };
  } catch (error) {
    if (error instanceof EditError) throw new Error(error.message);
    throw error;
  }
}

function throwIfAborted(signal: AbortSignal | undefined) {
  if (!signal?.aborted) return;
  const error = new Error('The edit was aborted before the file was changed.', { cause: signal.reason });
  error.name = 'AbortError';
  throw error;
}

async function fsError(error: unknown, absolute: string, shown: string, verb = 'edit'): Promise<Error> {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const why = error instanceof Error ? error.message : String(error);
  switch (code) {
    case 'ENOENT': {
      const close = await closeNamesIn(dirname(absolute), basename(absolute));
      if (close === undefined) return new Error(`File not found: ${shown}. Its folder ${dirname(absolute)} does not exist either.`);
      if (close.length === 0) return new Error(`File not found: ${shown}. Use write to create a new file.`);
      return new Error(`File not found: ${shown}. Did you mean ${close.map((n) => JSON.stringify(n)).join(', ')} in ${dirname(absolute)}?`);
    }
    case 'EACCES':
    case 'EPERM':
      return new Error(`Permission denied: cannot ${verb} ${shown} (${why}).`, { cause: error });
    case 'ENOTDIR':
      return new Error(`Cannot ${verb} ${shown}: a part of the path before the file name is a file, not a folder.`, { cause: error });
    case 'EISDIR':
      return new Error(`${shown} is a directory, not a file. Give the path of a file inside it (use ls to see what is there).`);
    case 'ELOOP':
      return new Error(`Cannot ${verb} ${shown}: too many levels of symbolic links (${why}).`, { cause: error });
    case 'EROFS':
      return new Error(`Cannot ${verb} ${shown}: the file system is read-only (${why}).`, { cause: error });
    case 'ENOSPC':
    case 'EDQUOT':
      return new Error(`Cannot ${verb} ${shown}: no space left (${why}).`, { cause: error });
    default:
      return new Error(`Cannot ${verb} ${shown}: ${why}`, { cause: error });
  }
}

/** The path as the model should see it: relative to the working folder when inside it. */
function display(absolute: string, cwd: string): string {
  const rel = relative(cwd, absolute);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : absolute;
}
