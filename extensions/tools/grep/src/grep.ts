import { spawn } from 'node:child_process';
import { constants, fstatSync, openSync, readSync, closeSync, readFileSync } from 'node:fs';
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, isAbsolute, join, relative, resolve as resolvePath, sep } from 'node:path';
import { errnoCode, errorMessage as message, linearRegExp, LinearRegExpError } from '@airlock/toolkit/util';
import Type, { type Static } from 'typebox';
import type { AgentTool, TruncationResult } from '@airlock/contract';
import { comparePaths, DEFAULT_TREE_BOUNDS, displayPath as display, limitName, openTargetSync, programLauncher, resolveExistingPath, UNSANDBOXED, type ProgramLine } from '@airlock/tool-common';
import { searchNode } from './node-engine.js';
import { BINARY_PROBE, type Found, type Hit, type Search } from './search.js';
import { codeForErrno, FileGate, findExecutable, listingResult, notRegularFileError, READ_NONBLOCKING, rootError, settle, statSearchRoot, type SkippedDetails, type StoppedDetails, type Unreadable, type UnreadableDetails } from '@airlock/tool-common';
import { refusedGlobs } from './rg-exclusions.js';

const DEFAULT_LIMIT = 100;
const MAX_LINE = 500;

const Params = Type.Object({
  pattern: Type.String({ description: 'Regular expression (JavaScript / ripgrep syntax), or text with literal=true.' }),
  path: Type.Optional(Type.String({ default: '.', description: 'Folder or file to search (default ".").' })),
  glob: Type.Optional(Type.String({ description: 'Only files matching this glob, e.g. "*.ts" or "src/**/*.js"; "!x" excludes.' })),
  ignoreCase: Type.Optional(Type.Boolean({ description: 'Match case-insensitively.' })),
  literal: Type.Optional(Type.Boolean({ description: 'Treat the pattern as plain text, not a regex.' })),
  context: Type.Optional(Type.Integer({ minimum: 0, description: 'Lines of context before and after each match.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, default: DEFAULT_LIMIT, description: `Most matches to show (default ${DEFAULT_LIMIT}).` })),
});

export type GrepParams = Static<typeof Params>;
export type GrepEngine = 'node' | 'rg';

export interface GrepDetails {
  engine: GrepEngine;
  /** Matches shown (before the byte limit). */
  matches: number;
  matchLimitReached?: number;
  linesCut?: true;
  truncation?: TruncationResult;
  /** Paths inside the search that could not be read (permission denied, …), in path order. */
  unreadable?: UnreadableDetails;
  /** Files the read rules kept grep from opening (denied, or needing an approval a walk cannot ask for). */
  skipped?: SkippedDetails;
  /** Where the walk's depth or entry bound stopped it (see tool-common's TreeBounds). */
  stopped?: StoppedDetails;
}

export interface GrepToolOptions {
  /** 'auto' (default): rg when it is on PATH, else the pure-Node engine. */
  engine?: 'auto' | GrepEngine;
}

let rgPath: string | null | undefined;

/** rg on PATH, looked up once per process. */
export function findRipgrep(): string | undefined {
  if (rgPath === undefined) rgPath = findExecutable('rg') ?? null;
  return rgPath ?? undefined;
}

export function createGrepTool(options: GrepToolOptions = {}): AgentTool<typeof Params, GrepDetails> {
  const choice = options.engine ?? 'auto';
  return {
    name: 'grep',
    label: 'Grep',
    description:
      'Search file contents for a regular expression (or literal text). Respects .gitignore and .ignore, includes hidden ' +
      'files, never .git/, skips binary files. Output "path:LINE: text" per match and "path-LINE- text" per context line, ' +
      `sorted by path then line. At most limit matches (default ${DEFAULT_LIMIT}) and 50KB; lines cut at ${MAX_LINE} characters.`,
    parameters: Params,
    replay: 'safe',
    resources(params, ctx) {
      // A path that does not exist yet is reported as written; execute says it is missing.
      const written = params.path ?? '.';
      return [{ kind: 'fs.read', path: openTargetSync(written, ctx.cwd), written }];
    },
    async execute(_id, params: GrepParams, signal, _onUpdate, ctx) {
      const limit = params.limit ?? DEFAULT_LIMIT;
      const context = params.context ?? 0;
      const absolute = await resolveExistingPath(params.path ?? '.', ctx.cwd);
      const shown = display(absolute, ctx.cwd);
      const info = await statSearchRoot(absolute, shown);
      const dir = info.isDirectory();
      // rg and the Node engine would both block on a FIFO's open, and read a device forever.
      if (!dir && !info.isFile()) throw notRegularFileError(shown, info, 'grep searches regular files and folders only');
      // A folder that can be listed but not entered (r without x) gives a listing of names and
      // nothing else: both engines would report every entry unreadable. It is the root that is
      // unreadable, so ask the one question that says so before searching.
      try {
        await access(absolute, dir ? constants.R_OK | constants.X_OK : constants.R_OK);
      } catch (error) {
        throw rootError(shown, dir, errnoCode(error) ?? 'EIO');
      }
      const gated = dir && ctx.access.active;
      const engine = engineFor(choice, dir ? undefined : info.size, gated);
      const search: Search = {
        root: absolute,
        single: !dir,
        pattern: params.pattern,
        regex: compile(params.pattern, params.literal === true, params.ignoreCase === true),
        ignoreCase: params.ignoreCase === true,
        literal: params.literal === true,
        want: limit + 1,
        signal,
        launch: programLauncher(ctx.sandbox),
      };
      if (params.glob !== undefined && params.glob !== '') search.glob = params.glob;
      // One file was judged as the call's own argument; a folder's files are judged one by one
      // (and with no policy judging files, rg needs no listing pass first).
      if (gated) search.gate = new FileGate(ctx.access, absolute);

      const found = engine === 'rg' ? await searchRipgrep(search) : await searchNode(search);
      signal?.throwIfAborted();
      // The root was readable a moment ago; if it no longer is, the answer is the same error.
      const root = found.unreadable.find((u) => u.path === '');
      if (root && root.code !== 'ENOENT') throw rootError(shown, dir, root.code);
      const hits = found.hits;
      hits.sort((a, b) => comparePaths(a.path, b.path) || a.line - b.line);
      const stop = hits.length > limit ? (hits[limit] as Hit).path : undefined;
      const unreadable = settle(found.unreadable, stop);
      const skipped = search.gate?.skipped(stop) ?? [];
      // A deep folder after the cut was never reached by a walk that stops there.
      const stopped = found.stopped.filter((s) => s.bound === 'entries' || stop === undefined || comparePaths(s.path, stop) <= 0);
      const kept = hits.slice(0, limit);
      const { lines, cut } = kept.length > 0 ? await format(kept, context, !dir) : { lines: [], cut: false };
      const details: GrepDetails = { engine, matches: kept.length };
      if (hits.length > limit) details.matchLimitReached = limit;
      if (cut) details.linesCut = true;
      return listingResult({
        lines,
        none: 'No matches found.',
        details,
        limitNotice: hits.length > limit ? `[${limit} matches limit reached. Use limit=${limit * 2} for more, or refine the pattern.]` : undefined,
        truncationNotice: (t) =>
          `[${limitName(t)} reached: showing ${t.outputLines} of ${lines.length} lines. Narrow the path, glob or pattern to see the rest.]`,
        unreadable,
        skipped,
        stopped,
        truncate: ctx.truncate,
      });
    },
  };
}

export const grepTool = createGrepTool();

/** A named file up to this size is searched in-process by 'auto'; a bigger one goes to rg, which streams it. */
export const NODE_FILE_MAX = 8 * 1024 * 1024;

/**
 * The engine for one call. 'auto' takes rg only where it is the faster one: starting it costs a
 * process (inside the OS sandbox, a namespace set-up and a mount plan as well), and with read
 * rules to apply per file (`gated`) rg may search only after it listed the whole tree and every
 * file was judged, so that is two processes and a judgement of every file even when the first
 * few files hold all the matches the limit lets through. The Node engine judges each file when
 * its walk gets there and stops at the limit; a named file was judged as the call's argument, so
 * reading it here is what the read tool does. Both engines give the same output.
 *
 * @param fileSize the named file's size; undefined for a folder
 */
export function engineFor(choice: 'auto' | GrepEngine, fileSize: number | undefined, gated: boolean): GrepEngine {
  if (choice !== 'auto') return choice;
  if (!findRipgrep()) return 'node';
  if (fileSize !== undefined) return fileSize <= NODE_FILE_MAX ? 'node' : 'rg';
  return gated ? 'node' : 'rg';
}

/**
 * The regex for a pattern, in JavaScript syntax and matched by RE2 in linear time (the pattern is
 * the model's: a backtracking engine could be stalled by `(a|a)*$`, and rg's own engine is linear
 * too). A clear error naming the pattern when it is not valid, or uses what a linear-time engine
 * cannot run (a lookaround, a backreference; rg refuses those as well).
 */
export function compile(pattern: string, literal: boolean, ignoreCase: boolean): RegExp {
  const source = literal ? pattern.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&') : pattern;
  const flags = ignoreCase ? 'i' : '';
  try {
    // Shared per pattern (never given `g`): an agent repeats its searches, and compiling costs more than a small search.
    return linearRegExp(source, `${flags}u`);
  } catch (unicode) {
    if (!(unicode instanceof LinearRegExpError)) throw unicode;
    let error = unicode;
    // Not valid in Unicode mode (`\-` outside a class, a lone `{`): JavaScript's legacy syntax.
    if (unicode.invalid) {
      try {
        return linearRegExp(source, flags);
      } catch (legacy) {
        if (!(legacy instanceof LinearRegExpError)) throw legacy;
        error = legacy;
      }
    }
    const why = error.invalid ? error.reason : `${error.reason}; grep matches in linear time, as rg does, so lookarounds and backreferences are not available`;
    throw new Error(`Invalid regular expression ${JSON.stringify(pattern)}: ${why}. Use literal=true to search for the text as written.`);
  }
}

// ---------------------------------------------------------------------------------------------
// rg engine

/** rg reports matches in binary files with --text; the same NUL probe as the Node engine drops them. */
function isBinaryFile(absolute: string): boolean {
  let fd: number | undefined;
  try {
    // Non-blocking: the file may have been swapped for a FIFO since rg read it.
    fd = openSync(absolute, READ_NONBLOCKING);
    if (!fstatSync(fd).isFile()) return true;
    const buffer = Buffer.alloc(BINARY_PROBE);
    const n = readSync(fd, buffer, 0, BINARY_PROBE, 0);
    return buffer.subarray(0, n).includes(0);
  } catch {
    return true;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * rg's line for a path it could not read: "<path>: <message> (os error N)", or for a folder
 * "<path>: IO error for operation on <path>: <message> (os error N)". The message has no colon.
 */
const RG_UNREADABLE = /^(?:.*?: IO error for operation on )?(.+): [^:]* \(os error (\d+)\)$/;

async function searchRipgrep(search: Search): Promise<Found> {
  const rg = findRipgrep();
  if (!rg) throw new Error('grep: the rg engine was requested but rg is not on PATH.');
  // Same results as the Node engine: ignore files everywhere, no global/exclude files, binary
  // detection done by us (NUL in the first 8 KiB), and a sorted walk so the early stop is deterministic.
  // The Node walk's depth bound (see tool-common's TreeBounds): folders that deep are not entered.
  const walkArgs = ['--hidden', '--glob', '!.git', '--no-require-git', '--no-ignore-global', '--no-ignore-exclude', '--max-depth', String(DEFAULT_TREE_BOUNDS.maxDepth + 1)];
  if (search.glob !== undefined) walkArgs.push('--glob', search.glob);
  const args = ['--json', '--line-number', '--color=never', ...walkArgs, '--text', '--sort', 'path'];
  if (search.ignoreCase) args.push('-i');
  if (search.literal) args.push('-F');
  // After the user's glob: a later override wins, so these exclusions cannot be undone by it.
  const gate = search.single ? undefined : search.gate;
  const launch = search.launch ?? UNSANDBOXED;
  const excluded = gate ? await refusedGlobs(rg, search.root, walkArgs, gate, search.signal, launch) : [];
  const viaConfig = excluded.reduce((n, g) => n + g.length + 8, 0) > MAX_ARGV_BYTES;
  if (!viaConfig) for (const glob of excluded) args.push('--glob', glob);
  // A folder is searched from inside it (no path argument): rg matches a --glob that holds a "/"
  // (`src/**`) against the path it prints, which would otherwise start with the absolute root and
  // never match. The Node engine matches globs against root-relative paths; so does this.
  args.push('--', search.pattern);
  if (search.single) args.push(search.root);

  // Too many for the command line (ARG_MAX): rg reads extra arguments from a config file.
  const config = viaConfig ? await writeRgConfig(excluded.flatMap((g) => ['--glob', g])) : undefined;
  try {
    const env = config === undefined ? process.env : { ...process.env, RIPGREP_CONFIG_PATH: config.file };
    const line = await launch(rg, args, { cwd: search.single ? process.cwd() : search.root, env, ...(search.signal === undefined ? {} : { signal: search.signal }) });
    return await runRipgrep(line, search, gate);
  } finally {
    await config?.remove();
  }
}

/** Bytes of exclusion globs passed as arguments; more go through RIPGREP_CONFIG_PATH. */
const MAX_ARGV_BYTES = 256 * 1024;

async function writeRgConfig(lines: readonly string[]): Promise<{ file: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'airlock-rg-'));
  const file = join(dir, 'ripgreprc');
  await writeFile(file, `${lines.join('\n')}\n`, { mode: 0o600 });
  return { file, remove: () => rm(dir, { recursive: true, force: true }) };
}

function runRipgrep(line: ProgramLine, search: Search, gate: FileGate | undefined): Promise<Found> {
  const hits: Hit[] = [];
  const unreadable: Unreadable[] = [];
  const binary = new Map<string, boolean>();
  return new Promise<Found>((resolve, reject) => {
    const child = spawn(line.file, line.args, { stdio: ['ignore', 'pipe', 'pipe'], signal: search.signal, env: line.env, ...(search.single ? {} : { cwd: search.root }) });
    let buffered = '';
    let errBuffered = '';
    /** stderr lines that are not about an unreadable path: a real failure when rg exits 2. */
    let failure = '';
    let skipped = false;
    let done = false;
    // Stopping early kills rg but resolves only on "close": by then all of stderr has been read,
    // so every unreadable path rg met before the last hit we kept is known (rg writes stderr
    // unbuffered, and stdout, where the hit came from, later).
    const finish = () => {
      done = true;
      child.kill('SIGKILL');
    };
    const onErrorLine = (line: string) => {
      if (line === '') return;
      const m = RG_UNREADABLE.exec(line);
      if (m) {
        skipped = true;
        const rel = relative(search.root, resolvePath(search.root, m[1] as string)).split(sep).join('/');
        // An ignore file in a folder above the root is not part of the search; the walk does not report those either.
        if (rel === '..' || rel.startsWith('../') || isAbsolute(rel)) return;
        unreadable.push({ path: rel, code: codeForErrno(Number(m[2])) });
      } else if (failure.length < 64 * 1024) failure += `${line}\n`;
    };
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      errBuffered += chunk;
      let newline = errBuffered.indexOf('\n');
      while (newline !== -1) {
        onErrorLine(errBuffered.slice(0, newline));
        errBuffered = errBuffered.slice(newline + 1);
        newline = errBuffered.indexOf('\n');
      }
    });
    child.stdout.on('data', (chunk: string) => {
      if (done) return;
      buffered += chunk;
      let newline = buffered.indexOf('\n');
      while (newline !== -1) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        newline = buffered.indexOf('\n');
        if (!line.startsWith('{"type":"match"')) continue;
        const event = JSON.parse(line) as { data: { path: { text?: string; bytes?: string }; line_number: number } };
        const raw = event.data.path.text ?? Buffer.from(event.data.path.bytes ?? '', 'base64').toString('utf8');
        const absolute = isAbsolute(raw) ? raw : join(search.root, raw);
        const path = search.single ? basename(search.root) : relative(search.root, absolute).split(sep).join('/');
        // The second line: a file the exclusions missed (created since the listing) is still not shown.
        if (gate && !gate.admit(path, absolute)) continue;
        let skip = binary.get(absolute);
        if (skip === undefined) binary.set(absolute, (skip = isBinaryFile(absolute)));
        if (skip) continue;
        hits.push({ path, absolute, line: event.data.line_number });
        if (hits.length >= search.want) return finish();
      }
    });
    child.on('error', (error) => {
      if (!done) reject(error);
    });
    child.on('close', (code) => {
      onErrorLine(errBuffered);
      if (done) return resolve({ hits, unreadable, stopped: [] });
      // Exit code 2 means "an error happened", also when rg only skipped what it could not read
      // and found the rest: those are results with a notice, not a failure.
      if (code === 0 || code === 1 || (code === 2 && skipped && failure === '')) return resolve({ hits, unreadable, stopped: [] });
      // Every file was filtered out (the exclusions of refused files, or a glob matching nothing):
      // that is "no matches", as the Node engine says, not a failure.
      if (code === 2 && /^No files were searched/.test(failure)) return resolve({ hits, unreadable, stopped: [] });
      const text = failure.trim();
      if (/regex parse error|error parsing regex|regex could not be compiled/i.test(text)) {
        reject(new Error(`Invalid regular expression ${JSON.stringify(search.pattern)}: ${text.replace(/^.*regex parse error:\s*/s, '')}. Use literal=true to search for the text as written.`));
      } else reject(new Error(`rg failed (exit code ${code}): ${text || 'no message'}`));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Output

/** `single`: one file the call named (it may be a link); else files found by the walk, never links. */
async function format(hits: Hit[], context: number, single: boolean): Promise<{ lines: string[]; cut: boolean }> {
  const out: string[] = [];
  let cut = false;
  let i = 0;
  while (i < hits.length) {
    const first = hits[i] as Hit;
    const lines = new Set<number>();
    while (i < hits.length && (hits[i] as Hit).absolute === first.absolute) lines.add((hits[i++] as Hit).line);
    let text: string[];
    try {
      // A walked file swapped for a symlink since it was judged is not followed (see WholeFileReader).
      const fd = openSync(first.absolute, single ? READ_NONBLOCKING : READ_NONBLOCKING | constants.O_NOFOLLOW);
      try {
        if (!fstatSync(fd).isFile()) continue; // swapped for a FIFO or device since the search
        text = splitLines(readFileSync(fd, 'utf8'));
      } finally {
        closeSync(fd);
      }
    } catch {
      continue; // vanished since the search
    }
    const shown = new Set<number>();
    for (const line of [...lines].sort((a, b) => a - b)) {
      for (let n = Math.max(1, line - context); n <= Math.min(text.length, line + context); n++) {
        if (shown.has(n)) continue;
        shown.add(n);
      }
    }
    for (const n of [...shown].sort((a, b) => a - b)) {
      let body = (text[n - 1] as string).replace(/\r$/, '');
      if (body.length > MAX_LINE) {
        body = `${body.slice(0, MAX_LINE)}… [line cut at ${MAX_LINE} characters]`;
        cut = true;
      }
      out.push(lines.has(n) ? `${first.path}:${n}: ${body}` : `${first.path}-${n}- ${body}`);
    }
  }
  return { lines: out, cut };
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}
