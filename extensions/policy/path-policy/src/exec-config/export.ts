import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { hookFolders, reposAround } from './set.js';
import { EXEC_CONFIG_PATTERNS, GIT_DIR_DANGER, type ExecConfigPattern } from './patterns.js';

/** One concrete path of the executable-config set: a file, or a folder with everything below it. */
export interface ExecConfigPath {
  path: string;
  kind: 'file' | 'folder';
  /** Why writing it plants code (for messages). */
  danger: string;
  /** False when it does not exist yet: creating it is what must not happen (`.git` in a root). */
  exists?: boolean;
}

export interface ExecConfigForWorkspace {
  /** The built-in names, in rule path syntax (`**\/.git/**`, `~/.bashrc`). */
  patterns: readonly ExecConfigPattern[];
  /** The same as absolute globs (`/**\/.git/**`, `/home/u/.bashrc`): `**` crosses folders, `a/**` also matches `a`. */
  globs: string[];
  /** Concrete paths for these roots: each root's `.git` (also when missing), its git folder and shared folder, the hooks folders and fsmonitor program its config names, and each root's editor and tool folders. */
  paths: ExecConfigPath[];
}

/** Names in a root whose writing is judged as executable config; listed concretely for a sandbox that needs paths. */
const ROOT_NAMES: readonly [name: string, kind: 'file' | 'folder'][] = [
  ['.git', 'folder'],
  ['.gitmodules', 'file'],
  ['.gitconfig', 'file'],
  ['.vscode', 'folder'],
  ['.idea', 'folder'],
  ['.devcontainer', 'folder'],
  ['.devcontainer.json', 'file'],
  ['.envrc', 'file'],
  ['.exrc', 'file'],
  ['.nvimrc', 'file'],
  ['.nvim.lua', 'file'],
];

/**
 * The executable-config set for a workspace, for layers other than path-policy (the OS sandbox
 * profile): writes to these should be denied there too. path-policy judges the same list (plus
 * git folders found by content, which only a per-path look can find).
 *
 * @example
 * const set = executableConfigFor({ roots: ['/work/p'], home: '/home/u' });
 * set.paths.find((p) => p.path === '/work/p/.git') // { path: '/work/p/.git', kind: 'folder', … }
 */
export function executableConfigFor(o: { roots: readonly string[]; home: string; xdgConfigHome?: string }): ExecConfigForWorkspace {
  const globs = EXEC_CONFIG_PATTERNS.map((p) => (p.pattern.startsWith('~/') ? join(o.home, p.pattern.slice(2)) : `/${p.pattern}`));
  const danger = (name: string) => EXEC_CONFIG_PATTERNS.find((p) => p.pattern === `**/${name}` || p.pattern === `**/${name}/**`)?.danger ?? GIT_DIR_DANGER;
  const paths: ExecConfigPath[] = [];
  const add = (p: ExecConfigPath) => {
    if (!paths.some((x) => x.path === p.path)) paths.push(p);
  };
  for (const root of o.roots) {
    for (const [name, kind] of ROOT_NAMES) add({ path: join(root, name), kind, danger: danger(name) });
  }
  const env = { home: o.home, ...(o.xdgConfigHome === undefined ? {} : { xdgConfigHome: o.xdgConfigHome }) };
  for (const repo of reposAround(o.roots, env)) {
    add({ path: repo.gitDir, kind: 'folder', danger: GIT_DIR_DANGER });
    if (repo.commonDir !== undefined) add({ path: repo.commonDir, kind: 'folder', danger: GIT_DIR_DANGER });
    for (const hooks of hookFolders(repo)) add({ path: hooks, kind: 'folder', danger: `a folder of git hooks (core.hooksPath of ${repo.top})` });
    for (const program of repo.fsmonitor) add({ path: program, kind: 'file', danger: `the program core.fsmonitor of ${repo.top} names` });
  }
  for (const p of EXEC_CONFIG_PATTERNS) {
    if (!p.pattern.startsWith('~/') || p.pattern.includes('*')) continue;
    add({ path: join(o.home, p.pattern.slice(2)), kind: 'file', danger: p.danger });
  }
  return { patterns: EXEC_CONFIG_PATTERNS, globs, paths: paths.map((p) => ({ ...p, exists: exists(p.path) })) };
}

function exists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}
