/**
 * The shell analysis of a command line: the simple commands it runs, with the files each one
 * reads and writes and the hosts it connects to. `@airlock/shell-analysis` produces it; the kernel
 * hands it to every tool_call handler through `event.analyzeCommand`, computed once per call, so a
 * policy judges commands without parsing shell itself (docs/hooks.md, "Judging commands").
 *
 * `ok: false` means the analysis is unsure (a command name only known at run time, a string run
 * as code it cannot see into, a syntax error, a line too long): treat it as "may run anything".
 *
 * @example
 * const a = await event.analyzeCommand?.('x=curl; $x https://example.com');
 * // { ok: false, reason: '…' }: the program's name is only known when it runs
 */

/** One redirection as written. `target` is undefined when it is not a static string, and for heredocs. */
export interface ShellRedirect {
  /** The operator as written: `>`, `>>`, `>|`, `&>`, `&>>`, `<`, `>&`, `<&`, `<<`, `<<-`, `<<<`. */
  op: string;
  target: string | undefined;
  /** The file descriptor written before the operator (`2>`), when there is one. */
  fd?: number;
  kind: 'read' | 'write' | 'dup' | 'heredoc';
  /** Heredoc or here-string content, only when it is literal (no expansion can change it). */
  body?: string;
}

export type ShellContext =
  | 'pipeline'
  | 'list'
  | 'subshell'
  | 'command-substitution'
  | 'process-substitution'
  | 'function'
  | 'loop'
  | 'conditional'
  | 'background'
  /** Run by another program from a string or its own arguments: bash -c, eval, a shell fed a heredoc, find -exec, watch. */
  | 'nested';

export interface ShellCommand {
  /** Source text of this command (for nested scripts: text of the nested script). */
  text: string;
  /**
   * Words after stripping wrappers and leading assignments, quotes removed. A word that is not a
   * static string is kept as its source text and its index is in `dynamicArgs`. Empty for a
   * statement that runs no program: `> file`, `x=1`, `$(<file)`.
   */
  argv: string[];
  dynamicArgs: number[];
  /** Basename of argv[0] ('' when argv is empty): what rules about "cat" match, whatever its path. */
  name: string;
  /** Stripped wrappers in order, each with its own options and assignments, e.g. `sudo -u x`, `env A=1`, `timeout 5`. */
  wrappers: string[];
  /** `NAME=value` assignments in front of the command and given to `env`, as source text. */
  assignments: string[];
  redirects: ShellRedirect[];
  /** Static paths read: file operands of well-known reading commands and `<` targets. */
  reads: string[];
  /** Static paths written, created, truncated or removed. /dev/null, /dev/std*, /dev/fd/* and /dev/tty are left out. */
  writes: string[];
  /**
   * Static paths this command removes or replaces together with everything below them: operands
   * of rm, rmdir, unlink, shred, the sources of mv, the starting points of find -delete.
   */
  removes: string[];
  /**
   * Static paths of git folders this command creates (`git init`, `git clone`; the folder itself
   * for `--bare`, else `DIR/.git` or `--separate-git-dir`). Git runs commands from their config
   * and hooks later, so writes into them anywhere in the same command line plant code. Each is
   * also in `writes`.
   */
  gitDirs: string[];
  /**
   * Names that, once this command ran, reach another file: links made by ln / cp -s / cp -l, a
   * symlink a recursive cp copies as a link, and where mv puts its sources. For `symlink`,
   * `target` is the link's text (relative to the link's folder, as the kernel reads it); for the
   * others it is a path like any operand. When the destination may be a folder, both `DEST` and
   * `DEST/<name>` are listed. Later commands that use `path` use `target`.
   */
  links: ShellLink[];
  /** Source text of file operands that are read but are not static strings (`cat $f`, `cat *.env`). */
  dynamicReads: string[];
  /** Same for writes; `<runtime-args>` stands for operands appended at run time (xargs, find -exec … +). */
  dynamicWrites: string[];
  /**
   * Files git prints from its history, its index or the work tree without the command opening
   * them: the path in `REV:path` / `:path` (from the top of the repository), pathspecs after `--`
   * and the other operands of git show/log/diff/grep/blame/cat-file/archive… (relative to the
   * folder). A revision like `main` is listed too, as a path: that over-reports, never under.
   */
  revisionReads: ShellRevisionRead[];
  /**
   * Hosts a well-known network program is pointed at by its arguments (curl, wget, httpie, ssh,
   * scp, sftp, rsync, nc, telnet, ftp, git clone/fetch/pull/push/…): a URL's host, `user@host`,
   * `host:path`. Lower case, no port. A git remote named in the repository's config is not seen.
   */
  hosts: string[];
  /** Source text of such a program's host operands that are only known at run time (`curl "$URL"`). */
  dynamicHosts: string[];
  /** True when more arguments are supplied at run time: the command after `xargs`, or `find -exec CMD … {} +`. */
  unknownArgs: boolean;
  /** True when argv[0] names a function defined in the same script; the function's body is listed separately. */
  callsFunction: boolean;
  /** Scripts this command runs from strings (bash -c, eval, a literal heredoc fed to a shell, watch). Their commands are also listed flat. */
  nested: ShellAnalysis[];
  /**
   * Set when an earlier `cd` (or env -C / sudo -D) moved the command to another folder: resolve
   * relative paths against this (itself absolute, `~…`, or relative to the caller's folder).
   */
  cwd?: string;
  /** Where the command sits, outermost first (consecutive repeats collapsed). */
  context: ShellContext[];
}

/** A path inside git's history or index; see SimpleCommand.revisionReads. */
export interface ShellRevisionRead {
  path: string;
  /**
   * `top`: relative to the top of the repository (`HEAD:x`, `:(top)x`); `cwd`: to the command's
   * folder; `object`: not a path but an object id (`git cat-file -p 3b18e51`), whose file is unknown.
   */
  from: 'top' | 'cwd' | 'object';
  /** A pathspec with wildcards (`*.env`): git's `*` also matches `/`. */
  glob: boolean;
  /** `git -C DIR`: the folder git runs in (and looks for the repository from), relative to the command's. */
  dir?: string;
}

/** A name a command makes lead to another file; see SimpleCommand.links. */
export interface ShellLink {
  path: string;
  /** Source text when `dynamic`. */
  target: string;
  kind: 'symlink' | 'hardlink' | 'move' | 'copy';
  /** The target is only known at run time (`ln -s "$HOME/x" y`): so is where `path` leads. */
  dynamic?: boolean;
}

export type ShellAnalysis = { ok: true; commands: ShellCommand[] } | { ok: false; reason: string };
