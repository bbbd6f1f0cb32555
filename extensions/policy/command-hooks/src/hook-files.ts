import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { ShellAnalysis, ShellCommand } from '@airlock/contract';

/** A file a configured hook command runs or names, with the hook that names it. */
export interface HookFile {
  /** Absolute, as the hook command spells it once `$CLAUDE_PROJECT_DIR`, `~` and its folder are applied. */
  readonly path: string;
  /** The hook's command, for reasons. */
  readonly command: string;
}

/** What the hook commands name: the files (protected) and the folders (not protected: see docs/command-hooks.md). */
export interface NamedPaths {
  files: HookFile[];
  folders: string[];
  /** Words that look like paths but are only known when the hook runs (`"$SOME_DIR"/x.sh`): not protected. */
  unknown: string[];
}

/** Words that are files even before they exist: a script's usual endings. */
const SCRIPT_ENDING = /\.(sh|bash|zsh|ksh|fish|py|pyw|rb|pl|pm|php|lua|tcl|js|mjs|cjs|ts|mts|cts|jsx|tsx|jar|ps1|awk|sed|jq|r|R|exe|bin|cmd|bat)$/;

/**
 * Puts the values of the hook's environment (`$CLAUDE_PROJECT_DIR`, `${HOME}` …) into its command
 * line, as `sh` will when it runs it, so the analysis sees the paths. Names the environment does
 * not hold are left as they are (the analysis then treats those words as unknown).
 *
 * @example expandVariables('"$CLAUDE_PROJECT_DIR"/h.sh ${HOME}/x', { CLAUDE_PROJECT_DIR: '/w', HOME: '/home/u' }) // '"/w"/h.sh /home/u/x'
 */
export function expandVariables(command: string, env: Readonly<Record<string, string>>): string {
  return command.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (whole, braced: string | undefined, bare: string | undefined) => {
    const value = env[(braced ?? bare)!];
    return value === undefined ? whole : value;
  });
}

/**
 * The files a hook command runs or names, found from the shell analysis of the command with
 * its environment's values put in (`$CLAUDE_PROJECT_DIR`, `$HOME`): a program given by path (`./check.sh`, `"$CLAUDE_PROJECT_DIR"/x.sh`),
 * every operand that names a file (`python3 x.py`, `node ./hooks/y.mjs`, `sh < z.sh`), in nested
 * scripts too (`bash -c '…'`), resolved against the folder the command runs in (after a `cd`).
 * A word counts as a file when it contains a `/`, ends like a script, or names an existing file;
 * what the command only writes (`>> log`) is left out. When the analysis is unsure, the words of
 * the command line are taken as they are (more, never fewer).
 *
 * @example
 * namedPaths(analysis, 'python3 /w/.claude/hooks/x.py', '/w', '/home/u').files
 * // [{ path: '/w/.claude/hooks/x.py', command: … }]
 */
export function namedPaths(analysis: ShellAnalysis, expanded: string, command: string, projectDir: string, home: string): NamedPaths {
  const files = new Set<string>();
  const folders = new Set<string>();
  const unknown = new Set<string>();
  const consider = (word: string, dir: string, program: boolean) => {
    if (word === '' || word.startsWith('-') || word.includes('\0')) return;
    const path = absolute(word, dir, home);
    const kind = kindOf(path);
    if (kind === 'dir') {
      if (path !== projectDir && path !== '/') folders.add(path);
      return;
    }
    if (kind === 'file' || word.includes('/') || (!program && SCRIPT_ENDING.test(word))) files.add(path);
  };
  if (analysis.ok) {
    for (const c of analysis.commands) {
      const dir = c.cwd === undefined ? projectDir : absolute(c.cwd, projectDir, home);
      const written = new Set(c.writes);
      c.argv.forEach((word, i) => {
        if (c.dynamicArgs.includes(i)) {
          if (word.includes('/') || SCRIPT_ENDING.test(word)) unknown.add(word);
          return;
        }
        if (written.has(word)) return;
        // A bare program name is looked up on PATH, not in the folder.
        if (i === 0 && !word.includes('/')) return;
        consider(word, dir, i === 0);
      });
      for (const r of readsOf(c)) consider(r, dir, false);
    }
  } else {
    for (const word of roughWords(expanded)) {
      if (/[$`]/.test(word)) unknown.add(word);
      else consider(word, projectDir, false);
    }
  }
  return { files: [...files].map((path) => ({ path, command })), folders: [...folders], unknown: [...unknown] };
}

function readsOf(c: ShellCommand): string[] {
  return [...c.reads, ...c.redirects.filter((r) => r.kind === 'read' && r.target !== undefined).map((r) => r.target!)];
}

/** The words of a command line split on blanks and shell operators, quotes removed (a fallback that over-reports). */
function roughWords(line: string): string[] {
  return line
    .split(/[\s;&|()<>`]+/)
    .map((w) => w.replace(/^['"]+|['"]+$/g, '').replace(/["']/g, ''))
    .filter((w) => w !== '');
}

/** `word` as an absolute path: `~/` is `home`, a relative one is taken from `dir`. */
export function absolute(word: string, dir: string, home: string): string {
  const path = word === '~' ? home : word.startsWith('~/') ? `${home}${word.slice(1)}` : word;
  return isAbsolute(path) ? resolve(path) : resolve(dir, path);
}

function kindOf(path: string): 'file' | 'dir' | undefined {
  try {
    return statSync(path).isDirectory() ? 'dir' : 'file';
  } catch {
    return undefined;
  }
}
