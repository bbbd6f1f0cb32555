import { execFile, spawnSync } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { errnoCode, errorMessage as message } from '@airlock/toolkit/util';
import Type, { type Static } from 'typebox';
import type { AgentTool, TruncationResult } from '@airlock/contract';
import { comparePaths, DEFAULT_TREE_BOUNDS, globTest, displayPath as display, limitName, openTargetSync, pacer, resolveExistingPath, walk, type WalkStop } from '@airlock/tool-common';
import { codeForErrno, FileGate, findExecutable, FOLDER_WORDS, listingResult, programLauncher, rootError, settle, statSearchRoot, type ProgramLauncher, type SkippedDetails, type StoppedDetails, type Unreadable, type UnreadableDetails } from '@airlock/tool-common';

const DEFAULT_LIMIT = 1000;
/** Ignore files the Node engine reads, lowest precedence first (fd's own set). */
const IGNORE_FILES = ['.gitignore', '.ignore', '.fdignore'];

const Params = Type.Object({
  pattern: Type.String({ description: 'Glob, e.g. "*.ts", "**/*.json" or "src/**/*.spec.ts". Without "/" it matches names; with "/" the path from the search folder.' }),
  path: Type.Optional(Type.String({ default: '.', description: 'Folder to search (default ".").' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, default: DEFAULT_LIMIT, description: `Most results to show (default ${DEFAULT_LIMIT}).` })),
});

export type FindParams = Static<typeof Params>;
export type FindEngine = 'node' | 'fd';

export interface FindDetails {
  engine: FindEngine;
  /** Results shown (before the byte limit). */
  results: number;
  resultLimitReached?: number;
  truncation?: TruncationResult;
  /** Folders inside the search that could not be read (permission denied, …), in path order. */
  unreadable?: UnreadableDetails;
  /** Folders not entered because the read rules refuse reading them. */
  skipped?: SkippedDetails;
  /** Where the walk's depth or entry bound stopped it (see tool-common's TreeBounds). */
  stopped?: StoppedDetails;
}

export interface FindToolOptions {
  /** 'auto' (default): fd (or fdfind) ≥ 8.7 when on PATH, else the pure-Node walker. */
  engine?: 'auto' | FindEngine;
}

let fdPath: string | null | undefined;

/** fd or fdfind on PATH with version ≥ 8.7 (it needs --no-require-git), looked up once per process. */
export function findFd(): string | undefined {
  if (fdPath === undefined) {
    fdPath = null;
    for (const name of ['fd', 'fdfind']) {
      const path = findExecutable(name);
      if (path && versionOk(path)) {
        fdPath = path;
        break;
      }
    }
  }
  return fdPath ?? undefined;
}

function versionOk(path: string): boolean {
  const out = spawnSync(path, ['--version'], { encoding: 'utf8', timeout: 5000 });
  const m = /(\d+)\.(\d+)/.exec(out.stdout ?? '');
  if (!m) return false;
  const major = Number(m[1]);
  const minor = Number(m[2]);
  return major > 8 || (major === 8 && minor >= 7);
}

/** The matcher for a find pattern: with "/" the relative path (a leading "/" anchors, as is), else the name. */
export function patternMatcher(pattern: string): (path: string) => boolean {
  const full = pattern.includes('/');
  let body = pattern;
  if (body.startsWith('/')) body = body.slice(1);
  if (body.length > 1 && body.endsWith('/')) body = body.slice(0, -1);
  // picomatch's syntax, matched in linear time: the pattern is the model's.
  const test = globTest(body);
  return full ? (path) => test(path) : (path) => test(path.slice(path.lastIndexOf('/') + 1));
}

export function createFindTool(options: FindToolOptions = {}): AgentTool<typeof Params, FindDetails> {
  const choice = options.engine ?? 'auto';
  return {
    name: 'find',
    label: 'Find',
    description:
      'Find files and folders by glob. A pattern without "/" matches names ("*.ts"); one with "/" matches the path from ' +
      'the search folder ("src/**/*.test.ts"). Respects .gitignore and .ignore, includes hidden files, never .git/. ' +
      `Sorted; folders end in "/". At most limit results (default ${DEFAULT_LIMIT}) and 50KB.`,
    parameters: Params,
    replay: 'safe',
    resources(params, ctx) {
      // A path that does not exist yet is reported as written; execute says it is missing.
      const written = params.path ?? '.';
      return [{ kind: 'fs.read', path: openTargetSync(written, ctx.cwd), written }];
    },
    async execute(_id, params: FindParams, signal, _onUpdate, ctx) {
      const limit = params.limit ?? DEFAULT_LIMIT;
      const absolute = await resolveExistingPath(params.path ?? '.', ctx.cwd);
      const shown = display(absolute, ctx.cwd);
      const info = await statSearchRoot(absolute, shown);
      if (!info.isDirectory()) throw new Error(`Not a directory: ${shown} is a file. find searches folders; use read to see a file.`);
      if (params.pattern === '') throw new Error('The pattern is empty. Give a glob such as "*.ts" or "src/**/*.json".');
      // Listing needs read permission, descending needs execute: without either, "no files found"
      // would be a wrong answer, so it is an error that says why.
      try {
        await access(absolute, constants.R_OK | constants.X_OK);
      } catch (error) {
        throw rootError(shown, true, errnoCode(error) ?? 'EIO');
      }

      const engine: FindEngine = choice === 'auto' ? (findFd() ? 'fd' : 'node') : choice;
      const matches = patternMatcher(params.pattern);
      // find shows names, never contents, so files are not judged one by one (a secret file's
      // name is listed, as ls lists it). A folder's listing is what reading it gives, though:
      // a folder the read rules refuse (~/.ssh, or one a deny rule covers with /**) is not entered.
      const gate = new FileGate(ctx.access, absolute);
      const found = engine === 'fd' ? await searchFd(absolute, matches, gate, signal, programLauncher(ctx.sandbox)) : await searchNode(absolute, matches, limit + 1, gate, signal);
      signal?.throwIfAborted();
      // The root was readable a moment ago; if it no longer is, the answer is the same error.
      const root = found.unreadable.find((u) => u.path === '');
      if (root && root.code !== 'ENOENT') throw rootError(shown, true, root.code);
      const results = found.results;
      // The Node walk already yields in this order; fd's parallel walk does not.
      if (engine === 'fd') results.sort((a, b) => comparePaths(a.path, b.path));
      const stop = results.length > limit ? (results[limit] as Result).path : undefined;
      const unreadable = settle(found.unreadable, stop);
      const skipped = gate.skipped(stop);
      // A deep folder after the cut was never reached by a walk that stops there.
      const stopped = found.stopped.filter((s) => s.bound === 'entries' || stop === undefined || comparePaths(s.path, stop) <= 0);
      const kept = results.slice(0, limit).map((r) => (r.dir ? `${r.path}/` : r.path));
      const details: FindDetails = { engine, results: kept.length };
      if (results.length > limit) details.resultLimitReached = limit;
      return listingResult({
        lines: kept,
        none: `No files found matching ${params.pattern}.`,
        details,
        limitNotice: results.length > limit ? `[${limit} results limit reached. Use limit=${limit * 2} for more, or refine the pattern.]` : undefined,
        truncationNotice: (t) =>
          `[${limitName(t)} reached: showing ${t.outputLines} of ${kept.length} results. Search a subfolder, or refine the pattern, to see the rest.]`,
        unreadable,
        skipped,
        skippedWords: FOLDER_WORDS,
        stopped,
        truncate: ctx.truncate,
      });
    },
  };
}

export const findTool = createFindTool();

interface Result {
  path: string;
  dir: boolean;
}

/** An engine's answer: its results, and every path it could not read on the way (unsorted, unfiltered). */
interface Found {
  results: Result[];
  unreadable: Unreadable[];
  /** Where the walk's bounds stopped it short. */
  stopped: WalkStop[];
}

/** The pure-Node engine: the sorted walk (see tool-common's walk.ts), stopped once `want` results are in. */
async function searchNode(root: string, matches: (path: string) => boolean, want: number, gate: FileGate, signal?: AbortSignal): Promise<Found> {
  const results: Result[] = [];
  const unreadable: Unreadable[] = [];
  const stopped: WalkStop[] = [];
  const prune = (dir: { path: string; absolute: string }) => !gate.admit(dir.path, dir.absolute);
  for await (const entry of walk(root, { ignoreFiles: IGNORE_FILES, signal, prune, onUnreadable: (path, code) => unreadable.push({ path, code }), onBound: (stop) => stopped.push(stop) })) {
    if (!matches(entry.path)) continue;
    results.push({ path: entry.path, dir: entry.type === 'dir' });
    if (results.length >= want) break;
  }
  return { results, unreadable, stopped };
}

/** fd's --show-errors line for a path it could not read: "[fd error]: <path>: <message> (os error N)". */
const FD_UNREADABLE = /^\[fd error\]: (.+): [^:]* \(os error (\d+)\)$/;

/**
 * fd lists everything (it walks in parallel, so its order and any --max-results cut are not
 * deterministic); we match the glob ourselves so both engines agree on glob semantics, sort, and cut.
 */
async function searchFd(root: string, matches: (path: string) => boolean, gate: FileGate, signal: AbortSignal | undefined, launch: ProgramLauncher): Promise<Found> {
  const fd = findFd();
  if (!fd) throw new Error('find: the fd engine was requested but fd (≥ 8.7) is not on PATH.');
  // --show-errors: fd is silent about folders it cannot read unless asked, and we report them.
  // The Node walk's depth bound (see tool-common's TreeBounds): folders that deep are listed, not entered.
  const depth = DEFAULT_TREE_BOUNDS.maxDepth;
  const base = ['--color=never', '--hidden', '--no-require-git', '--no-global-ignore-file', '--exclude', '.git', '--absolute-path', '--show-errors', '--max-depth', String(depth + 1)];
  // fd runs inside the OS sandbox when the host has one, like every process a tool starts.
  const run = async (extra: string[]) => {
    const line = await launch(fd, [...base, ...extra, '--', '.', root], { cwd: root, ...(signal === undefined ? {} : { signal }) });
    return new Promise<{ lines: string[]; stderr: string }>((resolve, reject) => {
      execFile(line.file, line.args, { maxBuffer: 1024 * 1024 * 1024, signal, encoding: 'utf8', env: line.env }, (error, stdout, stderr) => {
        if (error) reject(new Error(`fd failed: ${stderr.trim() || error.message}`));
        else resolve({ lines: stdout.split('\n').filter((l) => l !== ''), stderr });
      });
    });
  };
  const [dirs, all] = await Promise.all([run(['--type', 'd']), run([])]);
  const toRel = (line: string) => relative(root, line.endsWith(sep) ? line.slice(0, -1) : line).split(sep).join('/');
  const dirSet = new Set(dirs.lines.map(toRel));
  // The folders the walk would not enter, judged in walk order: one inside a refused folder is never reached.
  const refused: string[] = [];
  const inside = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);
  const stopped: WalkStop[] = [];
  const pause = pacer(signal);
  for (const dir of [...dirSet].sort(comparePaths)) {
    const paused = pause();
    if (paused) await paused;
    if (dir === '' || refused.some((r) => inside(dir, r))) continue;
    if (!gate.admit(dir, join(root, dir))) refused.push(dir);
    else if (dir.split('/').length > depth) stopped.push({ bound: 'depth', path: dir, limit: depth });
  }
  const results: Result[] = [];
  for (const line of all.lines) {
    const paused = pause();
    if (paused) await paused;
    const path = toRel(line);
    if (path === '' || !matches(path)) continue;
    if (refused.length > 0 && refused.some((r) => inside(path, r))) continue;
    results.push({ path, dir: dirSet.has(path) });
  }
  // Both runs walk the same tree and meet the same errors; one run's are enough.
  const unreadable: Unreadable[] = [];
  for (const line of all.stderr.split('\n')) {
    const m = FD_UNREADABLE.exec(line);
    if (!m) continue;
    const path = toRel(m[1] as string);
    if (refused.some((r) => inside(path, r))) continue; // the Node walk never goes there
    if (path !== '..' && !path.startsWith('../')) unreadable.push({ path, code: codeForErrno(Number(m[2])) });
  }
  return { results, unreadable, stopped };
}

