import { lstatSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/**
 * A git repository as far as "which files does git run as code" cares: where its own folder is
 * (a `.git` pointer file resolved, and a linked worktree's `commondir`), and which files its
 * configuration names as programs (`core.hooksPath`, `core.fsmonitor`).
 */
export interface GitRepo {
  /** The folder holding `.git` (the work tree), or the git folder itself for a bare repository. */
  top: string;
  /** The repository's own folder: `.git`, or where a `gitdir:` pointer leads. */
  gitDir: string;
  /** The shared folder of a linked worktree (`commondir`), when it differs from gitDir. */
  commonDir?: string;
  /** Folders `core.hooksPath` names (absolute). */
  hooksPaths: string[];
  /** The file `core.fsmonitor` names, when it names a program rather than true/false. */
  fsmonitor: string[];
}

/** Includes followed from one config file; git's own limit is 10. */
const MAX_INCLUDE_DEPTH = 10;
/** Config files larger than this are not parsed (git config files are a few KiB). */
const MAX_CONFIG_BYTES = 1 << 20;

/**
 * Whether `dir` is a git folder by what it holds, whatever its name: git accepts a folder with
 * `HEAD` and `objects/` (or a linked worktree's `commondir`) as a repository, so `gitdir:
 * ../evilgit` makes an ordinary-looking folder one.
 *
 * @example isGitDir('/p/.git') // true in a repository
 */
export function isGitDir(dir: string): boolean {
  if (!isFile(join(dir, 'HEAD'))) return false;
  return isDir(join(dir, 'objects')) || isFile(join(dir, 'commondir'));
}

/**
 * The repository whose `.git` sits directly in `top`, if any: follows a `gitdir:` pointer file
 * and `commondir`, and reads `core.hooksPath` / `core.fsmonitor` from the repository's config,
 * its worktree config and the user's global config, following `include.path` and every
 * `includeIf.*.path` (whatever the condition: naming more files only makes the set larger).
 *
 * @example repoAt('/p', { home: '/home/u' })?.hooksPaths // ['/p/.githooks'] after `git config core.hooksPath .githooks`
 */
export function repoAt(top: string, env: { home: string; xdgConfigHome?: string }): GitRepo | undefined {
  const dotGit = join(top, '.git');
  let gitDir: string | undefined;
  try {
    const st = lstatSync(dotGit, { throwIfNoEntry: false });
    if (st === undefined) return undefined;
    if (st.isDirectory()) gitDir = dotGit;
    else if (st.isFile() || st.isSymbolicLink()) gitDir = isDir(dotGit) ? dotGit : pointerTarget(dotGit);
  } catch {
    return undefined;
  }
  if (gitDir === undefined) return undefined;
  return describeRepo(top, gitDir, env);
}

/** The same for a bare repository (or a git folder reached directly). */
export function bareRepo(gitDir: string, env: { home: string; xdgConfigHome?: string }): GitRepo {
  return describeRepo(gitDir, gitDir, env);
}

function describeRepo(top: string, gitDir: string, env: { home: string; xdgConfigHome?: string }): GitRepo {
  const common = readText(join(gitDir, 'commondir'))?.trim();
  const commonDir = common ? resolve(gitDir, common) : undefined;
  const xdg = env.xdgConfigHome && isAbsolute(env.xdgConfigHome) ? env.xdgConfigHome : join(env.home, '.config');
  const files = [join(xdg, 'git', 'config'), join(env.home, '.gitconfig'), ...(commonDir ? [join(commonDir, 'config')] : []), join(gitDir, 'config'), join(gitDir, 'config.worktree')];
  const values = { hooksPath: [] as string[], fsmonitor: [] as string[] };
  const seen = new Set<string>();
  for (const file of files) collect(file, 0, values, seen, env.home);
  // Relative values are relative to where git runs them: the top of the work tree.
  const place = (v: string) => (v.startsWith('~/') ? join(env.home, v.slice(2)) : resolve(top, v));
  return {
    top,
    gitDir,
    ...(commonDir && commonDir !== gitDir ? { commonDir } : {}),
    hooksPaths: values.hooksPath.filter((v) => v !== '').map(place),
    fsmonitor: values.fsmonitor.filter((v) => v !== '' && !isBoolean(v)).map(place),
  };
}

/** `gitdir: <path>` in a `.git` file, relative to the file's folder. */
export function pointerTarget(file: string): string | undefined {
  const text = readText(file);
  const m = text === undefined ? null : /^gitdir:\s*(.+?)\s*$/m.exec(text);
  return m ? resolve(dirname(file), m[1]!) : undefined;
}

function collect(file: string, depth: number, out: { hooksPath: string[]; fsmonitor: string[] }, seen: Set<string>, home: string): void {
  if (depth > MAX_INCLUDE_DEPTH || seen.has(file)) return;
  seen.add(file);
  const text = readText(file);
  if (text === undefined) return;
  for (const { section, key, value } of parseGitConfig(text)) {
    if (section === 'core' && key === 'hookspath') out.hooksPath.push(value);
    else if (section === 'core' && key === 'fsmonitor') out.fsmonitor.push(value);
    else if ((section === 'include' || section === 'includeif') && key === 'path' && value !== '') {
      const next = value.startsWith('~/') ? join(home, value.slice(2)) : resolve(dirname(file), value);
      collect(next, depth + 1, out, seen, home);
    }
  }
}

/**
 * The `section.key = value` entries of a git config file: section and key lower-cased (git
 * compares them case-blind), the subsection dropped, quotes and escapes removed. Enough to find
 * the few keys above; not a general parser.
 *
 * @example parseGitConfig('[core]\n\thooksPath = ".githooks"') // [{ section: 'core', key: 'hookspath', value: '.githooks' }]
 */
export function parseGitConfig(text: string): { section: string; key: string; value: string }[] {
  const out: { section: string; key: string; value: string }[] = [];
  let section = '';
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    // A value may go on over the next line after a backslash.
    while (/(^|[^\\])(\\\\)*\\$/.test(line) && i + 1 < lines.length) line = line.slice(0, -1) + lines[++i]!;
    const header = /^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"(?:[^"\\]|\\.)*")?\s*\](.*)$/.exec(line);
    let rest = line;
    if (header) {
      // `[section.sub]` (old form) names the section before the dot.
      section = header[1]!.split('.')[0]!.toLowerCase();
      rest = header[2]!;
    }
    const entry = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/.exec(rest);
    if (!entry || rest.trim() === '' || /^\s*[#;]/.test(rest)) continue;
    out.push({ section, key: entry[1]!.toLowerCase(), value: entry[2] === undefined ? 'true' : unquote(entry[2]) });
  }
  return out;
}

function unquote(raw: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '"') quoted = !quoted;
    else if (c === '\\' && i + 1 < raw.length) {
      const n = raw[++i]!;
      out += n === 'n' ? '\n' : n === 't' ? '\t' : n === 'b' ? '\b' : n;
    } else if (!quoted && (c === '#' || c === ';')) break;
    else out += c;
  }
  return out.trim();
}

function isBoolean(v: string): boolean {
  return /^(true|false|yes|no|on|off|1|0)$/i.test(v);
}

// Most of the files looked for do not exist: `throwIfNoEntry: false` spares an exception each
// (several times the cost of the stat itself).
function readText(file: string): string | undefined {
  try {
    const st = statSync(file, { throwIfNoEntry: false });
    if (st === undefined || !st.isFile() || st.size > MAX_CONFIG_BYTES) return undefined;
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}
