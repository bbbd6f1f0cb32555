import type { Node } from 'web-tree-sitter';
import { fileEffects } from './file-args.js';
import { gitRevisionReads } from './git-revisions.js';
import { networkUse } from './network.js';
import { programRuns, type Stdin } from './programs.js';
import { readRedirect, REDIRECT_TYPES, type ReadRedirect } from './redirects.js';
import type { Analysis, Context, Redirect, SimpleCommand } from './types.js';
import { unsure } from './unsure.js';
import { unwrap } from './wrappers.js';
import { literalWord, readWord, type Word } from './words.js';

/** Parses a nested script (bash -c, eval, backticks) into its commands, or throws Unsure. */
export type ParseNested = (script: string, context: Context[], cwd: string | undefined) => SimpleCommand[];

interface Scope {
  context: Context[];
  /** Redirections of enclosing compound statements (`{ …; } > out`, `while …; done < in`). */
  redirects: ReadRedirect[];
  stdin: Stdin;
}

/** Paths that are streams, not files a policy cares about. */
const DEVICE = /^\/dev\/(null|zero|stdin|stdout|stderr|tty|fd\/\d+|urandom|random)$/;

const LOOP = new Set(['for_statement', 'c_style_for_statement', 'while_statement']);
const CONDITIONAL = new Set(['if_statement', 'case_statement']);

function childNodes(node: Node): Node[] {
  return node.children.filter((c): c is Node => c !== null);
}

function withContext(scope: Scope, context: Context): Scope {
  if (scope.context.at(-1) === context) return scope;
  return { ...scope, context: [...scope.context, context] };
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Walks one parsed script and lists every simple command in it. */
export class Walker {
  readonly commands: SimpleCommand[] = [];
  private readonly functions: Set<string>;
  /** Folder changed by `cd` so far (relative to the caller's), undefined while unchanged. */
  private cwd: string | undefined;
  private cwdUnknown = false;

  constructor(
    root: Node,
    private readonly parseNested: ParseNested,
    private readonly baseContext: Context[],
    cwd: string | undefined,
  ) {
    this.cwd = cwd;
    // Searching the tree costs about as much as parsing; only scripts that can define a function pay it.
    const mayDefine = /\(\s*\)|\bfunction\b/.test(root.text);
    this.functions = new Set(
      mayDefine ? root.descendantsOfType('function_definition').map((f) => f?.childForFieldName('name')?.text ?? '') : [],
    );
  }

  run(root: Node): SimpleCommand[] {
    this.visit(root, { context: [...this.baseContext], redirects: [], stdin: undefined });
    return this.commands;
  }

  private visitChildren(node: Node, scope: Scope): void {
    const children = childNodes(node);
    children.forEach((child, i) => {
      if (!child.isNamed) return;
      const background = children[i + 1]?.type === '&';
      this.visit(child, background ? withContext(scope, 'background') : scope);
    });
  }

  /** Runs fn with the cd state restored afterwards: subshells and substitutions cannot change our folder. */
  private scoped(fn: () => void): void {
    const saved = [this.cwd, this.cwdUnknown] as const;
    fn();
    [this.cwd, this.cwdUnknown] = saved;
  }

  private visit(node: Node, scope: Scope): void {
    switch (node.type) {
      case 'comment':
        return;
      case 'command':
        return this.command(node, [], scope);
      case 'redirected_statement':
        return this.redirected(node, scope);
      case 'pipeline':
        return this.pipeline(node, [], scope);
      case 'list':
        return this.visitChildren(node, withContext(scope, 'list'));
      case 'subshell':
        return this.scoped(() => this.visitChildren(node, withContext(scope, 'subshell')));
      case 'command_substitution':
        return this.scoped(() => this.substitution(node, scope));
      case 'process_substitution':
        return this.scoped(() =>
          this.visitChildren(node, { ...withContext(scope, 'process-substitution'), stdin: undefined }),
        );
      case 'function_definition':
        return this.scoped(() => this.visitChildren(node, withContext(scope, 'function')));
      case 'variable_assignment':
      case 'variable_assignments':
        this.emit(node.text, [], { assignments: this.assignments(node) }, scope);
        return this.expansions(node, scope);
      case 'declaration_command':
      case 'unset_command':
        return this.declaration(node, scope);
      default:
        if (LOOP.has(node.type)) return this.visitChildren(node, withContext(scope, 'loop'));
        if (CONDITIONAL.has(node.type)) return this.visitChildren(node, withContext(scope, 'conditional'));
        return this.visitChildren(node, scope);
    }
  }

  /**
   * tree-sitter-bash hangs `a | b > out` as (a | b) > out; in bash the redirection belongs to the
   * last command only, so it is handed to that one.
   */
  private pipeline(node: Node, trailing: ReadRedirect[], scope: Scope): void {
    let piped = false;
    const children = childNodes(node);
    const last = children.findLastIndex((c) => c.isNamed);
    children.forEach((child, i) => {
      if (child.type === '|' || child.type === '|&') piped = true;
      if (!child.isNamed) return;
      const inner: Scope = { ...withContext(scope, 'pipeline'), stdin: piped ? { kind: 'pipe' } : scope.stdin };
      if (i === last && trailing.length) this.withRedirects(child, trailing, inner);
      else this.visit(child, inner);
    });
  }

  /** Visits a statement with redirections that apply to all of it. */
  private withRedirects(body: Node, redirects: ReadRedirect[], scope: Scope, text?: string): void {
    if (body.type === 'command') this.command(body, redirects, scope, text);
    else if (body.type === 'pipeline') this.pipeline(body, redirects, scope);
    else this.visit(body, { ...scope, redirects: [...scope.redirects, ...redirects], stdin: stdinOf(redirects) ?? scope.stdin });
  }

  private assignments(node: Node): string[] {
    if (node.type === 'variable_assignment') return [node.text];
    return childNodes(node).filter((c) => c.type === 'variable_assignment').map((c) => c.text);
  }

  /** `$(…)` is parsed in place; backticks are re-parsed after bash's unescaping, or `\`` nesting would be missed. */
  private substitution(node: Node, scope: Scope): void {
    const inner = withContext({ ...scope, stdin: undefined }, 'command-substitution');
    if (node.text.startsWith('`')) {
      const script = node.text.slice(1, -1).replace(/\\([$`\\])/g, '$1');
      this.commands.push(...this.parseNested(script, inner.context, this.cwd));
      return;
    }
    const children = childNodes(node).filter((c) => c.isNamed);
    // $(<file) reads the file without running a program.
    if (children.length === 1 && children[0]!.type === 'file_redirect') {
      const redirect = readRedirect(children[0]!);
      if (redirect.redirect.kind === 'read') {
        this.emit(node.text, [], { redirects: [redirect] }, inner);
        return;
      }
    }
    this.visitChildren(node, inner);
  }

  private redirected(node: Node, scope: Scope): void {
    const body = node.childForFieldName('body');
    const redirects: ReadRedirect[] = [];
    const later: { node: Node; scope: Scope }[] = [];
    const expansions: Node[] = [];
    const pending = childNodes(node).filter((c) => c.isNamed && c.id !== body?.id);
    while (pending.length) {
      const child = pending.shift()!;
      if (!REDIRECT_TYPES.has(child.type)) unsure(`unexpected ${child.type} in a redirection`);
      const read = readRedirect(child);
      redirects.push(read);
      expansions.push(...read.expansions);
      for (const next of read.continuation) {
        if (REDIRECT_TYPES.has(next.type)) pending.push(next);
        else {
          const list = child.children.some((c) => c?.type === '&&' || c?.type === '||');
          later.push({ node: next, scope: list ? withContext(scope, 'list') : scope });
        }
      }
    }
    const piped = later.some((l) => l.node.type === 'pipeline');
    const own = piped ? withContext(scope, 'pipeline') : scope;
    if (body) this.withRedirects(body, redirects, own, redirectedText(node));
    else this.emit(node.text, [], { redirects }, own);
    for (const expansion of expansions) this.visit(expansion, scope);
    for (const { node: next, scope: nextScope } of later) this.visit(next, nextScope);
  }

  private declaration(node: Node, scope: Scope): void {
    const words: Word[] = [];
    for (const child of childNodes(node)) {
      if (!child.isNamed) words.push(literalWord(child.type));
      else if (child.type === 'variable_assignment') {
        const value = child.childForFieldName('value');
        words.push(value && !readWord(value).static ? literalWord(child.text, false) : literalWord(child.text));
      } else if (child.type === 'variable_name') words.push(literalWord(child.text));
      else words.push(readWord(child));
    }
    this.emit(node.text, words, {}, scope);
    this.expansions(node, scope);
  }

  /** Visits the parts of a command's words that run something: substitutions, never the assignments themselves. */
  private expansions(node: Node, scope: Scope): void {
    for (const child of childNodes(node)) {
      if (!child.isNamed) continue;
      if (child.type === 'variable_assignment' || child.type === 'variable_assignments') this.expansions(child, scope);
      else this.visit(child, scope);
    }
  }

  private command(node: Node, outerRedirects: ReadRedirect[], scope: Scope, text = node.text): void {
    const words: Word[] = [];
    const redirects: ReadRedirect[] = [];
    const assignments: string[] = [];
    for (let i = 0; i < node.childCount; i++) {
      const child = node.child(i)!;
      if (child.type === 'variable_assignment') assignments.push(child.text);
      else if (REDIRECT_TYPES.has(child.type)) redirects.push(readRedirect(child));
      else if (child.type === 'command_name') words.push(readWord(child.firstNamedChild ?? child));
      else if (node.fieldNameForChild(i) === 'argument') words.push(readWord(child));
      else if (child.isNamed) unsure(`unexpected ${child.type} in a command`);
    }
    redirects.push(...outerRedirects);
    for (const r of redirects) words.push(...r.extraArgs);
    this.emit(text, words, { assignments, redirects }, scope);
    // Command substitutions in the words run before the command does.
    this.expansions(node, scope);
  }

  /** Builds the SimpleCommand for words (argv before unwrapping) and everything it runs in turn. */
  private emit(
    text: string,
    words: Word[],
    extra: { assignments?: string[]; redirects?: ReadRedirect[]; unknownArgs?: boolean },
    scope: Scope,
  ): void {
    if (this.cwdUnknown) unsure('the working folder was changed to a folder that is not known');
    const allRedirects = [...scope.redirects, ...(extra.redirects ?? [])];
    if (words.length > 0 && !words[0]!.static) unsure(`dynamic command name: ${words[0]!.source}`);
    const unwrapped = unwrap(words);
    let argvWords = unwrapped.words;
    if (unwrapped.replace !== undefined) {
      const marker = unwrapped.replace;
      argvWords = argvWords.map((w, i) => (i > 0 && w.static && w.text.includes(marker) ? literalWord(w.text, false) : w));
    }
    const name = argvWords[0] ? basename(argvWords[0].text) : '';
    // xargs -I runs the command once per input with the marker replaced: no arguments are added.
    const unknownArgs = (unwrapped.unknownArgs && unwrapped.replace === undefined) || (extra.unknownArgs ?? false);
    const stdin = stdinOf(allRedirects) ?? scope.stdin;
    const runs = name ? programRuns(name, argvWords, stdin) : { scripts: [], commands: [], reads: [], writes: [] };
    // Operands xargs or find -exec … + add later: classified like any other operand, as a placeholder.
    const classified = unknownArgs ? [...argvWords, literalWord('<runtime-args>', false)] : argvWords;
    const effects = fileEffects(name, classified);
    const network = networkUse(name, argvWords);
    const git = name === 'git' ? gitRevisionReads(argvWords) : { reads: [], dynamic: [] };
    const command: SimpleCommand = {
      text,
      argv: argvWords.map((w) => w.text),
      dynamicArgs: argvWords.flatMap((w, i) => (w.static ? [] : [i])),
      name,
      wrappers: unwrapped.wrappers,
      assignments: [...(extra.assignments ?? []), ...unwrapped.assignments],
      redirects: allRedirects.map((r) => r.redirect),
      reads: [],
      writes: [],
      removes: [],
      gitDirs: [],
      // A target only known at run time is kept (as source text): where the name leads is then unknown.
      links: effects.links
        .filter((l) => l.path.static)
        .map((l) => ({ path: l.path.text, target: l.target.static ? l.target.text : l.target.source, kind: l.kind, ...(l.target.static ? {} : { dynamic: true }) })),
      dynamicReads: [],
      dynamicWrites: [],
      revisionReads: git.reads,
      hosts: network.hosts,
      dynamicHosts: network.dynamic,
      unknownArgs,
      callsFunction: this.functions.has(name) && unwrapped.wrappers.length === 0,
      nested: [],
      context: scope.context,
    };
    if (this.cwd !== undefined) command.cwd = this.cwd;
    if (unwrapped.chdir) {
      if (!unwrapped.chdir.static) unsure(`command runs in a non-literal folder: ${unwrapped.chdir.source}`);
      command.cwd = joinPath(this.cwd, unwrapped.chdir.text);
    }
    const reads = [...effects.reads, ...unwrapped.reads, ...runs.reads, ...allRedirects.flatMap((r) => (r.read ? [r.read] : []))];
    const writes = [...effects.writes, ...unwrapped.writes, ...runs.writes, ...allRedirects.flatMap((r) => (r.write ? [r.write] : []))];
    addPaths(reads, command.reads, command.dynamicReads);
    addPaths(git.dynamic, [], command.dynamicReads);
    addPaths(writes, command.writes, command.dynamicWrites);
    addPaths([...effects.removes, ...(runs.removes ?? [])], command.removes, []);
    addPaths(runs.gitDirs ?? [], command.gitDirs, []);
    this.commands.push(command);

    const nestedContext = withContext(scope, 'nested');
    for (const script of runs.scripts) {
      const inner = this.parseNested(script, nestedContext.context, command.cwd);
      if (runs.scriptsAppendArgs) for (const c of inner) c.unknownArgs = true;
      command.nested.push({ ok: true, commands: inner } satisfies Analysis);
      this.commands.push(...inner);
    }
    for (const run of runs.commands) {
      this.emit(run.words.map((w) => w.source).join(' '), run.words, { unknownArgs: run.unknownArgs }, { ...nestedContext, redirects: [] });
    }
    if (name === 'cd' || name === 'pushd' || name === 'popd') this.changeFolder(argvWords);
  }

  private changeFolder(argv: Word[]): void {
    const operands = argv.slice(1).filter((w) => !(w.static && /^-[LPe@]+$/.test(w.text)));
    const target = operands[0];
    if (argv[0]!.text === 'popd' || (target && (!target.static || target.text === '-'))) this.cwdUnknown = true;
    else this.cwd = target ? joinPath(this.cwd, target.text) : '~';
  }
}

/** The statement's text without a heredoc's body lines: what a person reads as the command. */
function redirectedText(node: Node): string {
  return node.text.split('\n')[0]!;
}

function stdinOf(redirects: ReadRedirect[]): Stdin {
  let stdin: Stdin;
  for (const r of redirects) if (r.stdin) stdin = r.stdin;
  return stdin;
}

function joinPath(base: string | undefined, path: string): string {
  if (base === undefined || path.startsWith('/') || path.startsWith('~')) return path;
  return `${base.replace(/\/+$/, '')}/${path}`;
}

function addPaths(words: Word[], into: string[], dynamicInto: string[]): void {
  for (const w of words) {
    if (w.pipe) continue;
    if (!w.static) {
      if (!dynamicInto.includes(w.source)) dynamicInto.push(w.source);
      // "-" is standard input or output for nearly every program that takes a file (cat -, curl -T -, tar -f -).
    } else if (w.text !== '-' && !DEVICE.test(w.text) && !into.includes(w.text)) into.push(w.text);
  }
}
