import type { Dirent, Stats } from 'node:fs';
import { lstat, readdir, readlink, stat } from 'node:fs/promises';
import { errnoCode, errnoWords, errorMessage as message, isPermissionDenied } from '@airlock/toolkit/util';
import Type, { type Static } from 'typebox';
import type { AgentTool, TruncationResult } from '@airlock/contract';
import {
  ChangedSinceJudgedError,
  displayPath as display,
  JudgedFolder,
  limitName,
  judgedFor,
  openTargetSync,
  realPathOrSelf,
  resolveExistingPath,
  suggestNear as suggestion,
} from '@airlock/tool-common';

const DEFAULT_LIMIT = 500;

const Params = Type.Object({
  path: Type.Optional(Type.String({ default: '.', description: 'Folder to list, relative to the working folder or absolute (default ".").' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, default: DEFAULT_LIMIT, description: `Most entries to show (default ${DEFAULT_LIMIT}).` })),
});

export interface LsDetails {
  /** The real path of the folder listed. */
  path: string;
  /** Entries in the folder. */
  total: number;
  /** Entries shown (after the entry limit and the byte limit). */
  shown: number;
  entryLimitReached?: number;
  truncation?: TruncationResult;
}

/**
 * Order of entries: case-insensitive first (String.prototype.toLowerCase, which does not depend on
 * the locale), then the exact name, both by UTF-16 code units (JavaScript's `<`). Never
 * localeCompare: the same folder must list the same way on every machine.
 */
export function compareNames(a: string, b: string): number {
  const la = a.toLowerCase();
  const lb = b.toLowerCase();
  if (la !== lb) return la < lb ? -1 : 1;
  return a === b ? 0 : a < b ? -1 : 1;
}

export const lsTool: AgentTool<typeof Params, LsDetails> = {
  name: 'ls',
  label: 'List',
  description:
    'List a folder (not recursive), sorted by name, dotfiles included. Folders end in "/", symlinks show ' +
    '"name -> target" (with "/" after the name when the target is a folder), and entries that cannot be inspected ' +
    `carry a note in parentheses. Shows at most limit entries (default ${DEFAULT_LIMIT}) and 50KB.`,
  parameters: Params,
  replay: 'safe',
  // The folder is judged as the call's own argument. ls opens no file and enters no subfolder
  // (it stats a symlink's target to say whether it is a folder), and names are not what the
  // read rules guard, so it needs no per-file check (ctx.access) the way grep does.
  resources(params, ctx) {
    // A path that does not exist yet is reported as written; execute says it is missing.
    const written = params.path ?? '.';
    return [{ kind: 'fs.read', path: openTargetSync(written, ctx.cwd), written }];
  },
  async execute(_id, params: Static<typeof Params>, signal, _onUpdate, ctx) {
    const limit = params.limit ?? DEFAULT_LIMIT;
    const absolute = await resolveExistingPath(params.path ?? '.', ctx.cwd);
    const shown = display(absolute, ctx.cwd);

    // The folder the policy judged, opened and confirmed (see tool-common's JudgedFolder): a
    // name swapped for a link to another folder meanwhile cannot have that folder listed.
    const judged = judgedFor(ctx);
    const real = judged?.path ?? realPathOrSelf(absolute);
    let folder: JudgedFolder;
    try {
      folder = JudgedFolder.open(real, judged?.file, shown);
    } catch (error) {
      if (error instanceof ChangedSinceJudgedError) throw error;
      const code = errnoCode(error);
      if (code === 'ENOENT') throw new Error(`Path not found: ${shown}.${await suggestion(absolute)}`);
      if (code === 'ENOTDIR') throw new Error(`Not a directory: ${shown} is a file. Use read to see its content.`);
      // Opening needs what listing needs: a folder we can see but not read is "cannot read".
      const visible = await lstat(real).then(() => true, () => false);
      throw describe(error, visible ? `Cannot read directory ${shown}` : `Cannot access ${shown}`);
    }
    let entries: Dirent[];
    let lines: string[];
    try {
      try {
        entries = await readdir(folder.entry(''), { withFileTypes: true });
        folder.confirm();
      } catch (error) {
        if (error instanceof ChangedSinceJudgedError) throw error;
        // It was open and confirmed a moment ago: gone by name now means moved or swapped.
        if (errnoCode(error) === 'ENOENT') throw new ChangedSinceJudgedError(shown, 'folder');
        throw describe(folder.plain(error), `Cannot read directory ${shown}`);
      }
      signal?.throwIfAborted();
      if (entries.length === 0) {
        return { content: [{ type: 'text' as const, text: '(empty directory)' }], details: { path: real, total: 0, shown: 0 } };
      }
      entries.sort((a, b) => compareNames(a.name, b.name));
      const kept = entries.length > limit ? entries.slice(0, limit) : entries;
      lines = await Promise.all(kept.map((entry) => describeEntry(folder, entry)));
    } finally {
      folder.close();
    }
    signal?.throwIfAborted();
    const kept = Math.min(entries.length, limit);
    // Both context limits apply: a limit=5000 listing must not leave the kernel's backstop to cut
    // it again, which would drop the notices below.
    const truncation = ctx.truncate.head(lines.join('\n'));
    const notices: string[] = [];
    const details: LsDetails = { path: real, total: entries.length, shown: truncation.outputLines };
    if (kept < entries.length) {
      details.entryLimitReached = limit;
      notices.push(`[${limit} entries limit reached. Use limit=${limit * 2} for more.]`);
    }
    if (truncation.truncated) {
      details.truncation = truncation;
      notices.push(
        `[${limitName(truncation)} reached: showing ${truncation.outputLines} of ${entries.length} entries. ` +
          'List a subfolder, or use find with a pattern, to see the rest.]',
      );
    }
    const text = truncation.content.replace(/\n$/, '');
    if (notices.length === 0) return { content: [{ type: 'text' as const, text }], details };
    // The entries fill the limits at most; the notices ride on top, in the kernel's notice room.
    return { content: [{ type: 'text' as const, text: `${text}\n\n${notices.join('\n')}` }], details, limited: true };
  },
};

/** One line for one entry. Only symlinks and entries of unknown type cost a system call. */
async function describeEntry(folder: JudgedFolder, entry: Dirent): Promise<string> {
  const name = printable(entry.name);
  if (entry.isDirectory()) return `${name}/`;
  if (entry.isFile()) return name;
  if (entry.isSymbolicLink()) return describeLink(folder, entry.name);
  const kind = typeName(entry);
  if (kind !== undefined) return `${name} (${kind})`;
  // DT_UNKNOWN (some file systems do not report types): ask the file system.
  try {
    const info = await lstat(folder.entry(entry.name));
    if (info.isSymbolicLink()) return describeLink(folder, entry.name);
    if (info.isDirectory()) return `${name}/`;
    if (info.isFile()) return name;
    return `${name} (${typeName(info) ?? 'special file'})`;
  } catch (error) {
    return `${name} (cannot stat: ${errnoCode(error) ?? message(error)})`;
  }
}

async function describeLink(folder: JudgedFolder, rawName: string): Promise<string> {
  const name = printable(rawName);
  const path = folder.entry(rawName);
  let target: string;
  try {
    target = printable(await readlink(path));
  } catch (error) {
    return `${name} -> ? (symlink; cannot read it: ${errnoCode(error) ?? message(error)})`;
  }
  try {
    const info = await stat(path);
    return info.isDirectory() ? `${name}/ -> ${target}` : `${name} -> ${target}`;
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return `${name} -> ${target} (broken symlink: the target does not exist)`;
    if (code === 'ELOOP') return `${name} -> ${target} (cannot stat: ELOOP, a symlink loop)`;
    return `${name} -> ${target} (cannot stat: ${code ?? message(error)})`;
  }
}

function typeName(entry: Dirent | Stats): string | undefined {
  if (entry.isFIFO()) return 'named pipe';
  if (entry.isSocket()) return 'socket';
  if (entry.isCharacterDevice()) return 'character device';
  if (entry.isBlockDevice()) return 'block device';
  return undefined;
}

/** Control characters (a newline in a name) would break the one-entry-per-line format. */
function printable(name: string): string {
  return name.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

function describe(error: unknown, what: string): Error {
  const code = errnoCode(error);
  if (isPermissionDenied(code)) return new Error(`${what}: ${errnoWords(code)}.`, { cause: error });
  return new Error(`${what}: ${message(error)}`, { cause: error });
}

