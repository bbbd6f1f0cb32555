import { lstatSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { PathSpace } from '../paths/space.js';
import { pathPattern, type Anchors } from '../rules/compile.js';
import type { PathPattern } from '../rules/types.js';
import { isGitDir, repoAt, type GitRepo } from './git-repo.js';
import { EXEC_CONFIG_PATTERNS, GIT_DIR_DANGER } from './patterns.js';

/** The name of the default in votes and `policy explain`. */
export const EXEC_CONFIG_RULE = 'default:executable-config';

/**
 * Files other programs run as code later, as path-policy judges writes: the built-in names
 * (patterns.ts), every folder that is a git folder by its content (so a `gitdir:` pointer's
 * target counts, whatever its name), and what the configuration of each repository around the
 * written file and around the workspace roots names (`core.hooksPath`, with husky's `.husky/_`
 * meaning `.husky`; `core.fsmonitor`). Read from disk on each question: a config changed by an
 * earlier call counts at once.
 */
export interface ExecConfigSet {
  /** Why writing `path` (absolute, one spelling) plants code, or undefined when it does not. */
  covering(path: string): string | undefined;
  /**
   * A file of the built-in names that a command's text names as a path segment (`.git/config`
   * inside a `python -c` script), with its danger. A hint for programs whose file use is unknown.
   */
  mentioned(text: string): { name: string; danger: string } | undefined;
  /**
   * Forget what was read from disk. Within one decision nothing runs, so the folders and configs
   * looked at for one spelling of a path serve the others; call this before each decision.
   */
  reset(): void;
}

export interface ExecConfigOptions {
  roots: readonly string[];
  home: string;
  anchors: Anchors;
  space: PathSpace;
  xdgConfigHome?: string;
}

/** @example createExecConfigSet({ roots: ['/p'], home, anchors, space }).covering('/p/.git/config') // "it is inside a git repository's own folder, …" */
export function createExecConfigSet(o: ExecConfigOptions): ExecConfigSet {
  const patterns: { pattern: PathPattern; danger: string }[] = EXEC_CONFIG_PATTERNS.map((p) => ({ pattern: pathPattern(p.pattern, 'deny', o.anchors, 'airlock'), danger: p.danger }));
  const env = { home: o.home, ...(o.xdgConfigHome === undefined ? {} : { xdgConfigHome: o.xdgConfigHome }) };
  let memo = newMemo();
  return {
    covering(path) {
      // Case-blind where the filesystem folds case (or may): `.GIT/config` is `.git/config` there.
      const named = patterns.find((p) => o.space.matches(p.pattern, path, 'deny'));
      if (named !== undefined) return named.danger;
      for (const dir of [path, ...ancestors(path)]) if (remember(memo.gitDir, dir, () => isGitDir(dir))) return GIT_DIR_DANGER;
      const repos = reposAround([path, ...o.roots], env, memo);
      return configuredDanger(path, repos);
    },
    mentioned(text) {
      for (const m of MENTIONED) {
        const hit = m.re.exec(text);
        if (hit) return { name: m.name, danger: m.danger };
      }
      return undefined;
    },
    reset() {
      memo = newMemo();
    },
  };
}

/**
 * The built-in names as path segments in free text: before them a start, space, quote, `=`, `/`
 * or `(`; after them an end, `/`, a quote, space or `)`. `.github` and `repo.git` do not count.
 */
const MENTIONED = ['.git', '.gitmodules', '.gitconfig', '.vscode', '.idea', '.devcontainer', '.devcontainer.json', '.envrc', '.exrc', '.nvimrc', '.nvim.lua', '.bashrc', '.bash_profile', '.profile', '.zshrc', '.zshenv', '.zprofile'].map((name) => ({
  name,
  re: new RegExp(`(^|[\\s'"=/(:])${name.replace(/\./g, '\\.')}($|[\\s'"/):;,])`, 'i'),
  danger: EXEC_CONFIG_PATTERNS.find((p) => p.pattern === `**/${name}` || p.pattern === `**/${name}/**` || p.pattern === `~/${name}`)?.danger ?? GIT_DIR_DANGER,
}));

/** What one decision learnt from the disk: whether a folder is a git folder, the repository at a folder (null: none). */
export interface ExecMemo {
  gitDir: Map<string, boolean>;
  repo: Map<string, GitRepo | null>;
}

function newMemo(): ExecMemo {
  return { gitDir: new Map(), repo: new Map() };
}

function remember<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  if (map.has(key)) return map.get(key)!;
  const value = make();
  map.set(key, value);
  return value;
}

/**
 * What the repositories' configuration makes a file: inside a hooks folder core.hooksPath names
 * (husky points it at `.husky/_`, whose scripts run the hooks beside them in `.husky`), or the
 * program core.fsmonitor names.
 */
export function configuredDanger(path: string, repos: readonly GitRepo[]): string | undefined {
  // Case-blind: on a folding filesystem `.GITHOOKS/x` is in `.githooks`, and elsewhere matching more only asks more.
  const text = path.normalize('NFC').toLowerCase();
  for (const repo of repos) {
    for (const hooks of hookFolders(repo)) {
      if (within(text, hooks.toLowerCase())) return `it is in ${hooks}, a folder of git hooks (core.hooksPath of the repository at ${repo.top}): git runs these files on commit, checkout, merge and push`;
    }
    for (const program of repo.fsmonitor) {
      if (text === program.normalize('NFC').toLowerCase()) return `core.fsmonitor of the repository at ${repo.top} names it: git runs it on every \`git status\`, which shell prompts run on \`cd\``;
    }
  }
  return undefined;
}

/** The hooks folders a repository's config names, with husky's parent folder. */
export function hookFolders(repo: GitRepo): string[] {
  return repo.hooksPaths.flatMap((h) => {
    const clean = h.replace(/\/+$/, '').normalize('NFC');
    return basename(clean) === '_' ? [clean, dirname(clean)] : [clean];
  });
}

/** Every repository with a `.git` in one of the folders above (or at) each path, once each. */
export function reposAround(paths: readonly string[], env: { home: string; xdgConfigHome?: string }, memo: ExecMemo = newMemo()): GitRepo[] {
  const tops = new Set<string>();
  for (const p of paths) {
    for (const dir of [p, ...ancestors(p)]) {
      if (tops.has(dir)) break; // The rest of the way up was looked at for an earlier path.
      tops.add(dir);
    }
  }
  const repos: GitRepo[] = [];
  for (const dir of tops) {
    const repo = remember(memo.repo, dir, () => (exists(join(dir, '.git')) ? (repoAt(dir, env) ?? null) : null));
    if (repo !== null) repos.push(repo);
  }
  return repos;
}

function ancestors(path: string): string[] {
  const out: string[] = [];
  let dir = dirname(path);
  for (;;) {
    out.push(dir);
    const up = dirname(dir);
    if (up === dir) return out;
    dir = up;
  }
}

function within(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir === '/' ? '/' : `${dir}/`);
}

function exists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}
