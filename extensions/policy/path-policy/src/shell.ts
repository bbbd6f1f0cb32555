import { opendirSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { Analysis, SimpleCommand } from '@airlock/shell-analysis';
import { hasGlobMeta, normalizeCommand, pathGlob } from './glob.js';
import type { Command, Item } from './items.js';
import { canonicalPaths } from './paths/resolve.js';
import { credentialCommand } from './credential-commands.js';
import { revisionItems } from './revision-reads.js';
import { SECRET_SAMPLE_NAMES } from './secrets.js';
import { writtenThenRun } from './written-then-run.js';
import { aliasesOf, targetBase, throughAliases } from './shell-links.js';

/** Stands for a word only known at run time; no literal in a rule matches it, `*` does. */
const RUNTIME_WORD = '\u{F0000}';
/** Entries of one folder a glob is tried against before the policy gives up and asks. */
const MAX_GLOB_ENTRIES = 5000;
const CD = new Set(['cd', 'pushd', 'popd']);
/** Builtins whose operands may be `NAME=value` assignments. */
const ASSIGNERS = new Set(['export', 'declare', 'typeset', 'local', 'readonly']);

/**
 * The items a parsed command line touches: each simple command (nested ones included, the
 * analysis lists them flat), the files it reads and writes (redirect targets included), and an
 * ask for anything that cannot be judged statically.
 */
export function shellItems(analysis: Analysis, cwd: string, home: string): Item[] {
  if (!analysis.ok) return [unparsed(analysis.reason)];
  const result: Item[] = [];
  let relative = false;
  let changesDir = false;
  let tilde = false;
  let setsHome = false;
  const aliases = aliasesOf(analysis.commands, cwd, home);
  for (const [index, c] of analysis.commands.entries()) {
    const items: Item[] = [];
    for (const n of c.nested) if (!n.ok) items.push(unparsed(n.reason));
    if (c.argv.length > 0) {
      const command = toCommand(c);
      items.push({ type: 'exec', command, from: 'shell' });
      const credential = credentialCommand(c.name, c.argv.map((text, i) => ({ text, dynamic: c.dynamicArgs.includes(i) })));
      if (credential !== undefined) items.push({ type: 'credential', command, ...credential });
      // A program whose file use the analysis does not know may still write what it names.
      if (c.reads.length + c.writes.length + c.dynamicReads.length + c.dynamicWrites.length + c.links.length === 0 && c.nested.length === 0) {
        items.push({ type: 'mentions', command: c.argv.join(' ') });
        if (!NEVER_WRITES.has(c.name) && !readsOnlyGit(c.argv)) items.push(mentionsExec(c, cwd, home));
      }
      if (CD.has(c.name)) changesDir = true;
    }
    if ([...c.assignments, ...(ASSIGNERS.has(c.name) ? c.argv.slice(1) : [])].some((a) => /^HOME\+?=/.test(a))) setsHome = true;
    type FileUse = [kind: 'fs.read' | 'fs.write', raw: string, dynamic: boolean];
    const files: FileUse[] = [
      ...c.reads.map((p): FileUse => ['fs.read', p, false]),
      ...c.writes.map((p): FileUse => ['fs.write', p, false]),
      ...c.dynamicReads.map((p): FileUse => ['fs.read', p, true]),
      ...c.dynamicWrites.map((p): FileUse => ['fs.write', p, true]),
    ];
    for (const r of c.redirects) {
      if (r.kind !== 'read' && r.kind !== 'write') continue;
      const kind = r.kind === 'read' ? 'fs.read' : 'fs.write';
      if (r.target === undefined) items.push(runtimePath(kind, `${r.op} (a target only known at run time)`));
      else if (!files.some(([k, p]) => k === kind && p === r.target)) files.push([kind, r.target, false]);
    }
    // After a `cd`, a relative path is also judged in the folder the analysis says the command
    // runs in (the cd-relative ask below stays: the cd may fail, or lead elsewhere at run time).
    const moved = c.cwd === undefined ? undefined : canonicalPaths(c.cwd, cwd, home);
    const alsoIn = moved?.ok ? moved.paths[0] : undefined;
    for (const [kind, raw, dynamic] of files) {
      const isRelative = !isAbsolute(raw) && !raw.startsWith('~');
      if (isRelative) relative = true;
      if (raw.startsWith('~')) tilde = true;
      items.push(...fileItems(kind, raw, dynamic, cwd, home));
      if (isRelative && alsoIn !== undefined && alsoIn !== cwd) items.push(...fileItems(kind, raw, dynamic, alsoIn, home));
    }
    // Files git prints from its history or index: the same rules as the file in the folder.
    for (const read of c.revisionReads) {
      items.push(...revisionItems(read, alsoIn ?? cwd, home, (raw, base) => fileItems('fs.read', raw, false, base, home)));
    }
    // Removing a folder, or linking to one, reaches what is inside it.
    if (c.name !== 'find' || !deletesOnlyNamed(c.argv)) {
      for (const raw of c.removes) {
        const how = c.name === 'find' ? 'find-delete' : 'remove';
        items.push(reachItem(how, raw, cwd, home));
        if (alsoIn !== undefined && alsoIn !== cwd && !isAbsolute(raw) && !raw.startsWith('~')) items.push(reachItem(how, raw, alsoIn, home));
      }
    }
    for (const link of c.links) {
      if (link.kind !== 'symlink' && link.kind !== 'hardlink') continue;
      if (link.dynamic) {
        items.push(runtimePath('fs.write', `a link to ${link.target} (where it leads is only known at run time)`));
        continue;
      }
      const name = canonicalPaths(link.path, cwd, home);
      items.push(reachItem('link', link.target, name.ok ? targetBase(link, name.paths[0]!, cwd) : cwd, home));
    }
    // curl, ssh, git clone …: the same net rules and default as a tool that declares the host.
    for (const host of c.hosts) items.push({ type: 'net', host });
    for (const text of c.dynamicHosts) items.push({ type: 'net-runtime', text });
    result.push(...throughAliases(items, index, aliases, cwd, home));
  }
  const items = markCreatedGitDirs(result, analysis.commands, cwd, home);
  items.push(...writtenThenRun(analysis.commands, (raw, c) => {
    const base = c.cwd === undefined ? undefined : canonicalPaths(c.cwd, cwd, home);
    const resolved = canonicalPaths(raw, base?.ok ? base.paths[0]! : cwd, home);
    return resolved.ok ? resolved.paths : [];
  }));
  if (setsHome && tilde) {
    items.push({
      type: 'fixed',
      subject: 'HOME',
      effect: 'ask',
      rule: 'default:runtime-path',
      reason: 'the command sets HOME and then uses ~, which then means another folder than the one it is judged against; use absolute paths',
    });
  }
  if (changesDir && relative) {
    items.push({
      type: 'fixed',
      subject: 'cd',
      effect: 'ask',
      rule: 'default:cd-relative',
      reason: 'the command changes folder (cd/pushd) and then uses relative paths, which cannot be judged against the folder they will really be in; use absolute paths',
    });
  }
  return items;
}

/**
 * A repository the line creates (`git init --bare store.git && printf … > store.git/config`)
 * is not a git folder yet when the line is judged, by name or by content: writes into it, the
 * creation included, are marked as planting code.
 */
function markCreatedGitDirs(items: Item[], commands: readonly SimpleCommand[], cwd: string, home: string): Item[] {
  const dirs = commands.flatMap((c) => {
    const moved = c.cwd === undefined ? undefined : canonicalPaths(c.cwd, cwd, home);
    const base = moved?.ok ? moved.paths[0]! : cwd;
    return c.gitDirs.flatMap((d) => {
      const p = canonicalPaths(d, base, home);
      return p.ok ? p.paths : [];
    });
  });
  if (dirs.length === 0) return items;
  return items.map((item) => {
    if (item.type !== 'fs' || item.kind !== 'fs.write') return item;
    const dir = dirs.find((d) => item.paths.some((p) => p === d || p.startsWith(`${d}/`)));
    return dir === undefined ? item : { ...item, execConfig: `it is in ${dir}, a git repository this command line creates: git runs commands from a repository's config and hooks (core.fsmonitor on every \`git status\`, hooks on commit)` };
  });
}

function toCommand(c: SimpleCommand): Command {
  const dynamic = c.dynamicArgs.length > 0;
  const words = normalizeCommand(c.argv.join(' '));
  const forAllow = normalizeCommand(c.argv.map((w, i) => (c.dynamicArgs.includes(i) ? RUNTIME_WORD : w)).join(' '));
  const byName = c.name !== '' && c.name !== c.argv[0] ? [normalizeCommand([c.name, ...c.argv.slice(1)].join(' '))] : [];
  return {
    words,
    wordsForAllow: forAllow,
    alsoForDeny: [...new Set([normalizeCommand(c.text), ...byName])].filter((t) => t !== words),
    argv0: c.argv[0] ?? '',
    name: c.name,
    dynamic,
    wrappers: c.wrappers,
    unknownArgs: c.unknownArgs,
  };
}

/** Programs and builtins that never write a file they name (`cd .git`, `echo .vscode/x`, `realpath .git`). */
const NEVER_WRITES = new Set(['cd', 'pushd', 'popd', 'echo', 'printf', 'test', '[', 'true', 'false', 'type', 'which', 'pwd', 'basename', 'dirname', 'realpath', 'readlink', 'exit', 'return', 'set', 'unset', 'shift', 'export', 'local', 'declare', 'typeset', 'readonly', 'sleep', 'date', 'whoami', 'id', 'uname', 'env', 'printenv', 'tree']);

/** git subcommands that write no work-tree file: naming `.vscode/x` in them (`git add`, `git diff`) plants nothing. */
const GIT_READS_ONLY = new Set(['status', 'log', 'show', 'diff', 'blame', 'add', 'commit', 'ls-files', 'ls-tree', 'grep', 'rev-parse', 'describe', 'shortlog', 'fetch', 'push', 'tag', 'branch', 'cat-file', 'whatchanged', 'reflog', 'check-ignore', 'check-attr', 'version', 'help']);

function readsOnlyGit(argv: readonly string[]): boolean {
  if (argv[0] === undefined || !/(^|\/)git$/.test(argv[0])) return false;
  for (let i = 1; i < argv.length; i++) {
    const w = argv[i]!;
    if (w === '-C' || w === '-c' || w === '--git-dir' || w === '--work-tree') i++;
    else if (!w.startsWith('-')) return GIT_READS_ONLY.has(w);
  }
  return true;
}

/** Each word of a command whose file use is unknown, as a path (an option's `=value` too), for the executable-config check. */
function mentionsExec(c: SimpleCommand, cwd: string, home: string): Item {
  const moved = c.cwd === undefined ? undefined : canonicalPaths(c.cwd, cwd, home);
  const base = moved?.ok ? moved.paths[0]! : cwd;
  const words: { given: string; paths: string[] }[] = [];
  c.argv.forEach((raw, i) => {
    if (i === 0 || c.dynamicArgs.includes(i) || raw.includes('\n')) return;
    const word = /^--?[A-Za-z][\w-]*=/.test(raw) ? raw.slice(raw.indexOf('=') + 1) : raw;
    if (word === '' || (word.startsWith('-') && word === raw)) return;
    const p = canonicalPaths(word, base, home);
    if (p.ok) words.push({ given: word, paths: p.paths });
  });
  return { type: 'mentions-exec', command: c.argv.join(' '), words };
}

/** Names of Airlock's files a `find -delete` name test is tried against. */
const AIRLOCK_SAMPLE_NAMES = ['.airlockrc', '.airlockrc.json', 'airlock.config.ts', '.airlock', 'settings.local.json', 'settings.json', 'trust.json', 'audit.jsonl', 'config.json'];

/**
 * `find . -name '*.o' -delete` deletes only files its name tests select: when every such test is
 * a literal pattern that matches none of Airlock's file names (and nothing negates one), the
 * starting points are not removed as a whole.
 */
function deletesOnlyNamed(argv: readonly string[]): boolean {
  const patterns: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const w = argv[i]!;
    if (w === '!' || w === '-not' || w === '-o' || w === '-or') return false;
    if (w === '-name' || w === '-iname') patterns.push(argv[++i] ?? '*');
  }
  if (patterns.length === 0) return false;
  return patterns.every((p) => {
    try {
      const re = pathGlob(p, true);
      return !AIRLOCK_SAMPLE_NAMES.some((n) => re.test(n));
    } catch {
      return false;
    }
  });
}

function reachItem(how: 'remove' | 'find-delete' | 'link', raw: string, cwd: string, home: string): Item {
  const c = canonicalPaths(raw, cwd, home);
  return c.ok
    ? { type: 'reach', how, given: raw, paths: c.paths }
    : { type: 'fixed', subject: `${how} ${JSON.stringify(raw)}`, effect: 'deny', rule: 'default:unresolvable-path', reason: `${JSON.stringify(raw)}: ${c.reason}` };
}

function unparsed(reason: string): Item {
  return {
    type: 'fixed',
    subject: 'bash',
    effect: 'ask',
    rule: 'default:unparsed-command',
    reason: `the command could not be fully analysed (${reason}), so a person decides`,
  };
}

function runtimePath(kind: 'fs.read' | 'fs.write', text: string): Item {
  return {
    type: 'fixed',
    subject: `${kind} ${text}`,
    effect: 'ask',
    rule: 'default:runtime-path',
    reason: `${kind === 'fs.read' ? 'reads' : 'writes'} ${text}: which file is only known when the command runs`,
  };
}

/** A static path becomes one item; a glob the files it matches now (plus an ask if it could match a secret). */
function fileItems(kind: 'fs.read' | 'fs.write', raw: string, dynamic: boolean, cwd: string, home: string): Item[] {
  const asItem = (path: string): Item => {
    const c = canonicalPaths(path, cwd, home);
    return c.ok
      ? { type: 'fs', kind, given: raw, paths: c.paths, from: 'shell' }
      : { type: 'fixed', subject: `${kind} ${JSON.stringify(raw)}`, effect: 'deny', rule: 'default:unresolvable-path', reason: `${JSON.stringify(raw)}: ${c.reason}` };
  };
  if (!dynamic) return [asItem(raw)];
  if (/[$`]|<runtime-args>/.test(raw) || raw.startsWith('~') && !raw.startsWith('~/')) return [runtimePath(kind, raw)];
  if (!hasGlobMeta(raw)) return [asItem(raw)];
  const cut = raw.lastIndexOf('/');
  const dir = cut === -1 ? '.' : raw.slice(0, cut) || '/';
  const base = raw.slice(cut + 1);
  if (hasGlobMeta(dir) || base === '') return [runtimePath(kind, raw)];
  let re: RegExp;
  try {
    re = pathGlob(base, false);
  } catch {
    return [runtimePath(kind, raw)];
  }
  const items: Item[] = [];
  // A glob that could name a secret file is never allowed outright, even if none exists now.
  const sample = SECRET_SAMPLE_NAMES.find((name) => re.test(name) || pathGlob(base, true).test(name));
  if (sample !== undefined) {
    items.push({
      type: 'fixed',
      subject: `${kind} ${raw}`,
      effect: 'ask',
      rule: 'default:glob-could-match-secret',
      reason: `the pattern ${raw} could match a secret file such as ${sample}; name the files instead`,
    });
  }
  const folder = canonicalPaths(dir, cwd, home);
  if (!folder.ok) return [...items, asItem(raw)];
  const names: string[] = [];
  try {
    // One past the bound is enough to know: a folder of millions of names is not read whole.
    const handle = opendirSync(folder.paths[folder.paths.length - 1]!, { bufferSize: 256 });
    try {
      for (let entry = handle.readSync(); entry !== null && names.length <= MAX_GLOB_ENTRIES; entry = handle.readSync()) names.push(entry.name);
    } finally {
      handle.closeSync();
    }
  } catch {
    return [...items, asItem(raw)]; // No such folder: the shell passes the pattern on as written.
  }
  if (names.length > MAX_GLOB_ENTRIES) return [...items, runtimePath(kind, raw)];
  // Dot files too: `shopt -s dotglob` earlier in the same script would make * match them.
  const hits = names.filter((n) => re.test(n.normalize('NFC')));
  if (hits.length === 0) return [...items, asItem(raw)];
  const prefix = cut === -1 ? '' : `${raw.slice(0, cut)}/`;
  return [...items, ...hits.map((n) => asItem(`${prefix}${n}`))];
}
