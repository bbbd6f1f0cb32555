import { open, realpath } from 'node:fs/promises';
import { basename } from 'node:path';
import { errnoCode } from '@airlock/toolkit/util';
import { globTest, READ_NONBLOCKING, walk } from '@airlock/tool-common';
import { lineSearch } from './line-search.js';
import { requiredLiteral } from './literal.js';
import { WholeFileReader } from './read-whole.js';
import { BINARY_PROBE, type Found, type Hit, type Search } from './search.js';
import type { Unreadable, WalkStop } from '@airlock/tool-common';

/** Ignore files the Node engine reads, lowest precedence first (rg's own set). */
const IGNORE_FILES = ['.gitignore', '.ignore', '.rgignore'];

/** The pure-Node engine: the sorted walk, each file read whole and searched line by line. */
export async function searchNode(search: Search): Promise<Found> {
  const hits: Hit[] = [];
  const unreadable: Unreadable[] = [];
  const stopped: WalkStop[] = [];
  const scan = scanner(search, hits);
  if (search.single) {
    let buffer: Buffer;
    try {
      buffer = await readRegular(search.root);
    } catch (error) {
      // One file: not being able to read it is the answer, which the tool words as an error.
      return { hits, unreadable: [{ path: '', code: errnoCode(error) ?? 'EIO' }], stopped };
    }
    scan(basename(search.root), search.root, buffer);
    return { hits, unreadable, stopped };
  }
  const matchGlob = search.glob === undefined ? undefined : globMatcher(search.glob);
  const reader = new WholeFileReader();
  // Where each walked file really is: the root's real path and the walk's relative path.
  const realRoot = await realpath(search.root).catch(() => search.root);
  for await (const entry of walk(search.root, {
    ignoreFiles: IGNORE_FILES,
    signal: search.signal,
    prune: matchGlob ? (dir) => matchGlob(dir.path, true) === false : undefined,
    onUnreadable: (path, code) => unreadable.push({ path, code }),
    onBound: (stop) => stopped.push(stop),
  })) {
    if (entry.type !== 'file') continue;
    if (matchGlob && matchGlob(entry.path, false) !== true) continue;
    if (search.gate && !search.gate.admit(entry.path, entry.absolute)) continue;
    const buffer = reader.read(entry.absolute, `${realRoot}${realRoot.endsWith('/') ? '' : '/'}${entry.path}`);
    if (typeof buffer === 'string') unreadable.push({ path: entry.path, code: buffer });
    else scan(entry.path, entry.absolute, buffer);
    if (hits.length >= search.want) break;
  }
  return { hits, unreadable, stopped };
}

/**
 * The per-file search, with everything that does not depend on the file (the literal, the line
 * search) set up once. Cheapest test first: most files of a tree are rejected on their raw
 * bytes and never decoded.
 */
function scanner(search: Search, hits: Hit[]): (path: string, absolute: string, buffer: Buffer) => void {
  const text = requiredLiteral(search.pattern, search.literal, search.ignoreCase);
  const needle = text === undefined ? undefined : Buffer.from(text, 'latin1');
  const lines = lineSearch(search.regex, search.pattern, search.literal, search.ignoreCase);
  return (path, absolute, buffer) => {
    if (isBinary(buffer)) return;
    if (needle && buffer.indexOf(needle) === -1) return;
    for (const line of lines(buffer.toString('utf8'), search.want - hits.length)) hits.push({ path, absolute, line });
  };
}

/** A NUL byte in the first block, as rg decides. */
export function isBinary(buffer: Buffer): boolean {
  return (buffer.length > BINARY_PROBE ? buffer.subarray(0, BINARY_PROBE) : buffer).includes(0);
}

/**
 * rg's --glob semantics: a glob without "/" matches the name at any depth, one with "/" the
 * path from the search folder; "!" excludes. Returns true (include), false (exclude) or
 * undefined (no opinion: folders are entered unless a "!" glob excludes them).
 */
export function globMatcher(glob: string): (path: string, dir: boolean) => boolean | undefined {
  const negated = glob.startsWith('!');
  let body = negated ? glob.slice(1) : glob;
  if (body.startsWith('/')) body = body.slice(1);
  if (body.endsWith('/')) body = body.slice(0, -1);
  const test = globTest(body);
  const matches = (path: string) => (body.includes('/') ? test(path) : test(path.slice(path.lastIndexOf('/') + 1)));
  return (path, dir) => {
    const hit = matches(path);
    if (negated) return hit ? false : dir ? undefined : true;
    if (dir) return undefined;
    return hit;
  };
}

/** A named file's bytes; never blocks on a FIFO swapped in since the tool checked the path. */
async function readRegular(path: string): Promise<Buffer> {
  const fh = await open(path, READ_NONBLOCKING);
  try {
    if (!(await fh.stat()).isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTREGULAR' });
    return await fh.readFile();
  } finally {
    await fh.close();
  }
}
