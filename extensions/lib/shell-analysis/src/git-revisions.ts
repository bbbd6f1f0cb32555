import type { RevisionRead } from './types.js';
import { unsure } from './unsure.js';
import type { Word } from './words.js';

/**
 * git prints files from its history and index without opening them in the work tree:
 * `git show HEAD~1:.env`, `git log -p -- .env`, `git grep x HEAD -- .env`, `git diff --no-index
 * /dev/null .env`. The paths those commands name are reported as reads, so the rules for a
 * secret file hold for every copy of it git keeps.
 *
 * Over-reporting is the safe side here: a word that is a revision (`main`, `HEAD~3`) is also
 * reported as a path relative to the folder, which names no secret and is allowed.
 */

/** Subcommands that print file contents from revisions, the index or the work tree. */
const PRINTING = new Set([
  'show', 'log', 'diff', 'grep', 'blame', 'annotate', 'cat-file', 'whatchanged', 'difftool',
  'range-diff', 'format-patch', 'archive', 'stash', 'diff-tree', 'diff-index', 'diff-files', 'rev-list',
]);

/** git's own options that take the next word as their value. */
const GLOBAL_WITH_VALUE = new Set(['-c', '-C', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--config-env', '--exec-path', '--list-cmds']);


/** What follows a subcommand's options: pathspecs after `--`, and revisions or paths before it. */
export interface GitReads {
  reads: RevisionRead[];
  /** Operands only known at run time (`git show "$REV"`): which file they name is not known. */
  dynamic: Word[];
}

const GLOB_META = /[*?[]/;

/**
 * A pathspec with its magic read: `:(top)x`, `:/x` (from the top), `:(exclude)x`, `:!x`, `:^x`
 * (excluded: not read), `:(icase,glob)x`, `:(literal)x`.
 */
function pathspec(text: string, literalAll: boolean): RevisionRead | undefined {
  let path = text;
  let from: RevisionRead['from'] = 'cwd';
  let literal = literalAll;
  if (path.startsWith(':(')) {
    const end = path.indexOf(')');
    if (end === -1) return { path: path.slice(2), from, glob: true };
    const magic = path.slice(2, end).split(',').map((m) => m.trim().split(':')[0]);
    path = path.slice(end + 1);
    if (magic.includes('exclude')) return undefined;
    if (magic.includes('top')) from = 'top';
    if (magic.includes('literal')) literal = true;
  } else if (path.startsWith(':')) {
    let i = 1;
    for (; i < path.length && '/!^'.includes(path[i]!); i++) {
      if (path[i] === '!' || path[i] === '^') return undefined;
      if (path[i] === '/') from = 'top';
    }
    path = path.slice(path[i] === ':' ? i + 1 : i);
  }
  if (path === '') path = '.';
  return { path, from, glob: !literal && GLOB_META.test(path) };
}

/**
 * `REV:path`, `:path`, `:2:path`: the path after a colon is from the top of the repository unless
 * it starts with `./` or `../`. A revision may itself hold a colon (`HEAD^{/fix: typo}:x`), so the
 * text after every colon is a candidate: one of them is the path git uses.
 */
function revisionPaths(text: string): RevisionRead[] {
  const reads: RevisionRead[] = [];
  for (let at = text.indexOf(':'); at !== -1; at = text.indexOf(':', at + 1)) {
    const path = text.slice(at + 1);
    if (path === '' || /^\d:?$/.test(path)) continue;
    const stage = /^[0-3]:(.+)$/.exec(path);
    const p = stage ? stage[1]! : path;
    reads.push({ path: p, from: p.startsWith('./') || p.startsWith('../') ? 'cwd' : 'top', glob: false });
  }
  return reads;
}

/** `cat-file -p`, `cat-file blob …`, `--textconv`, `--filters` print content; `-t`, `-s`, `-e` only facts. */
function printsContent(words: readonly Word[]): boolean {
  return words.some((w) => !w.static || ['-p', 'blob', 'tree', 'commit', 'tag', '--textconv', '--filters'].includes(w.text));
}

/** The reads of `git [global options] SUBCOMMAND …` (words[0] is git); nothing for other subcommands. */
export function gitRevisionReads(words: readonly Word[]): GitReads {
  const out: GitReads = { reads: [], dynamic: [] };
  let i = 1;
  let literalAll = false;
  let chdir: string | undefined;
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (!w.static || !w.text.startsWith('-')) break;
    if (w.text === '--literal-pathspecs') literalAll = true;
    if (GLOBAL_WITH_VALUE.has(w.text)) {
      if (w.text === '-C') chdir = words[i + 1]?.static ? words[i + 1]!.text : undefined;
      i++;
    }
  }
  const sub = words[i];
  if (sub === undefined || !sub.static || !PRINTING.has(sub.text)) return out;
  const rest = words.slice(i + 1);
  let afterDashes = false;
  let patternPending = sub.text === 'grep' && !rest.some((w) => w.static && /^(-e|-f|--regexp|--file)$|^-[a-zA-Z]*[ef]$/.test(w.text));
  for (let j = 0; j < rest.length; j++) {
    const w = rest[j]!;
    if (!w.static) {
      out.dynamic.push(w);
      continue;
    }
    const t = w.text;
    if (!afterDashes && t === '--') {
      afterDashes = true;
      continue;
    }
    if (!afterDashes && t.startsWith('-') && t !== '-') {
      // Object names or pathspecs from standard input: which files are printed is not known.
      if (/^--(stdin|pathspec-from-file)(=|$)|^--batch(-command)?(=|$)/.test(t)) unsure(`git ${sub.text} ${t} reads what it prints from standard input or a file`);
      // An option's value (`-n 3`, `--format %H`) is then taken for a path too: which options take
      // one differs per subcommand (`-n` is a count for log, a flag for grep), and a value taken
      // for a path only names a file no rule covers, while a path taken for a value goes unjudged.
      continue;
    }
    if (patternPending) {
      patternPending = false;
      continue;
    }
    if (afterDashes) {
      const spec = pathspec(t, literalAll);
      if (spec) out.reads.push(spec);
      continue;
    }
    // `git cat-file -p <id>` prints a blob named by its hash: which file it was is not known here
    // (`git ls-tree HEAD~1` gave the id of a deleted .env).
    if (sub.text === 'cat-file' && /^[0-9a-f]{4,64}$/i.test(t) && printsContent(rest)) {
      out.reads.push({ path: t, from: 'object', glob: false });
      continue;
    }
    out.reads.push(...revisionPaths(t));
    // Before `--` a word is a revision or a path git finds in the work tree (wildcards make it a pathspec).
    out.reads.push({ path: t, from: 'cwd', glob: !literalAll && GLOB_META.test(t) });
  }
  if (chdir !== undefined) {
    // `git -C dir`: relative paths are relative to dir, and the repository is the one dir is in.
    // The path as written (relative to the command's folder) stays too: the safe side.
    out.reads = out.reads.flatMap((r) =>
      r.from === 'cwd' && !r.path.startsWith('/') ? [r, { ...r, path: `${chdir.replace(/\/+$/, '')}/${r.path}` }] : r.from === 'top' ? [r, { ...r, dir: chdir }] : [r],
    );
  }
  return out;
}
