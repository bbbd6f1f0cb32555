import { posix } from 'node:path';
import { unsure } from './unsure.js';
import { literalWord, type Word } from './words.js';

/** What a git command line does to files besides its own work: config it writes, repositories it creates. */
export interface GitEffects {
  writes: Word[];
  /** Git folders the command creates (`git init`, `git clone`): their config and hooks are code git runs later. */
  gitDirs: Word[];
}

// git configuration keys whose values are commands git runs (or files it loads as config).
const GIT_COMMAND_KEYS =
  /^(core\.(pager|editor|sshcommand|fsmonitor|hookspath|askpass|gitproxy)|alias\..+|pager\..+|diff\.external|diff\..+\.(textconv|command)|merge\..+\.driver|filter\..+|credential\..*helper|gpg\..*program|sequence\.editor|uploadpack\.packobjectshook|remote\..+\.(uploadpack|receivepack|proxy)|include\..+|includeif\..+)$/i;

/**
 * Keys whose values are plain data git never runs or loads: setting them in the repository's own
 * config is not planting code, so `git config user.email x` is not judged as a write of
 * `.git/config`. Everything else is (an allowlist: a key git adds later that runs a command is
 * covered without anyone updating a list).
 */
const DATA_KEYS =
  /^(user\.(name|email)|init\.defaultbranch|pull\.(rebase|ff)|push\.(default|autosetupremote)|advice\.[^.]+|color\.[^.]+|color\.[^.]+\.[^.]+|commit\.verbose|core\.(autocrlf|eol|filemode|ignorecase|quotepath|safecrlf)|branch\.[^.]+\.(remote|merge|rebase|description)|merge\.ff|rebase\.autostash|fetch\.prune)$/i;

/** git's own options that take a value as the next word. */
const GLOBAL_WITH_VALUE = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path', '--super-prefix', '--config-env', '--list-cmds', '--attr-source']);

/**
 * `git [options] SUBCOMMAND …`: refuses `-c` settings that make git run a command (they would
 * run with this one call), and reports as file writes what persists beyond it — the config file
 * `git config` changes, the `.git` folder or pointer `init`, `clone`, `worktree add` and
 * `submodule add` create (with `.gitmodules`). Paths are relative to every `-C` given.
 *
 * @example gitEffects(words('git -C nested config core.fsmonitor x')).writes // ['nested/.git/config']
 */
export function gitEffects(words: Word[]): GitEffects {
  const out: GitEffects = { writes: [], gitDirs: [] };
  const chdirs: Word[] = [];
  let gitDir: Word | undefined;
  let i = 1;
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (!w.static) unsure(`git with a non-literal option or subcommand: ${w.source}`);
    if (!w.text.startsWith('-')) break;
    const eq = w.text.indexOf('=');
    const name = w.text.startsWith('--') && eq !== -1 ? w.text.slice(0, eq) : w.text;
    const inline = w.text.startsWith('--') && eq !== -1 ? literalWord(w.text.slice(eq + 1)) : undefined;
    if (!GLOBAL_WITH_VALUE.has(name)) continue;
    const value = inline ?? words[++i];
    if (value === undefined) return out;
    if (name === '-c' || name === '--config-env') {
      if (!value.static) unsure(`git ${name} with a non-literal setting: ${value.source}`);
      const key = value.text.split('=')[0]!;
      if (GIT_COMMAND_KEYS.test(key)) unsure(`git ${name} ${key} makes git run a configured command`);
    } else if (name === '-C') chdirs.push(value);
    else if (name === '--git-dir') gitDir = value;
  }
  const sub = words[i];
  if (sub === undefined) return out;
  const args = words.slice(i + 1);
  const at = (...parts: (Word | string)[]) => joinWords([...chdirs, ...parts]);
  const repoDir = gitDir === undefined ? at('.git') : at(gitDir);
  // Commands git runs for these are strings this analysis does not see.
  if (sub.text === 'submodule' && args.some((w) => w.static && w.text === 'foreach')) unsure('git submodule foreach runs a command in each submodule');
  if (sub.text === 'rebase' && args.some((w) => w.static && /^(-x|--exec(=.*)?|-x.+)$/.test(w.text))) unsure('git rebase --exec runs a command after each commit');
  if (sub.text === 'bisect' && args[0]?.static && args[0].text === 'run') unsure('git bisect run runs a command at each step');
  switch (sub.text) {
    case 'config':
      out.writes.push(...configWrites(args, at, repoDir));
      break;
    case 'init':
      init(args, at, out);
      break;
    case 'clone':
      clone(args, at, out);
      break;
    case 'worktree':
      if (args[0]?.static && args[0].text === 'add') {
        const ops = operands(args.slice(1), new Set(['-b', '-B', '--reason']));
        if (ops[0] !== undefined) out.writes.push(at(ops[0], '.git'));
      }
      break;
    case 'submodule':
      submoduleAdd(args, at, out);
      break;
  }
  return out;
}

type ConfigScope = 'local' | 'worktree' | 'global' | 'system';

/** The config file `git config …` changes, if it changes one. */
function configWrites(args: Word[], at: (...p: (Word | string)[]) => Word, repoDir: Word): Word[] {
  let file: Word | undefined;
  let scope: ConfigScope = 'local';
  let mode: 'read' | 'set' | 'always' | undefined;
  const ops: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (!w.static || !w.text.startsWith('-') || w.text === '-') {
      ops.push(w);
      continue;
    }
    const t = w.text;
    if (t === '--') {
      ops.push(...args.slice(i + 1));
      break;
    }
    if (t === '--global' || t === '--system' || t === '--local' || t === '--worktree') scope = t.slice(2) as ConfigScope;
    else if (t === '-f' || t === '--file') file = args[++i];
    else if (t.startsWith('--file=')) file = literalWord(t.slice(7));
    else if (t === '--blob' || t.startsWith('--blob=')) {
      if (t === '--blob') i++;
      mode ??= 'read';
    } else if (['--type', '--default', '--comment', '--value', '--url'].includes(t)) i++;
    else if (/^--(type|default|comment|value|url)=/.test(t)) continue;
    else if (/^--get(-all|-regexp|-urlmatch|-color|-colorbool)?$/.test(t) || t === '-l' || t === '--list') mode = mode === 'always' ? mode : 'read';
    else if (['--add', '--replace-all', '--unset', '--unset-all'].includes(t)) mode = mode === 'always' ? mode : 'set';
    else if (['--rename-section', '--remove-section', '-e', '--edit'].includes(t)) mode = 'always';
    else if (!/^(--(bool|int|bool-or-int|path|expiry-date|null|name-only|show-origin|show-scope|includes|no-includes|fixed-value|all|no-type|regexp)|-z)$/.test(t)) {
      mode = 'always'; // An option this list does not know: count it as a change.
    }
  }
  let keys = ops;
  if (mode === undefined) {
    // git 2.46's verbs, else the classic forms: one operand reads, more set.
    const verb = ops[0]?.static ? ops[0].text : undefined;
    if (verb === 'list' || verb === 'get') mode = 'read';
    else if (verb === 'set' || verb === 'unset') [mode, keys] = ['set', ops.slice(1)];
    else if (verb === 'rename-section' || verb === 'remove-section' || verb === 'edit') mode = 'always';
    else mode = ops.length <= 1 ? 'read' : 'set';
  }
  if (mode === 'read') return [];
  if (file !== undefined) return [at(file)];
  if (scope === 'global') return [literalWord('~/.gitconfig')];
  if (scope === 'system') return [literalWord('/etc/gitconfig')];
  const key = keys[0];
  if (mode === 'set' && key !== undefined && key.static && DATA_KEYS.test(key.text)) return [];
  return [joinWords([repoDir, scope === 'worktree' ? 'config.worktree' : 'config'])];
}

/** `git init [--bare] [--separate-git-dir D] [DIR]`. */
function init(args: Word[], at: (...p: (Word | string)[]) => Word, out: GitEffects): void {
  const { ops, values, flags } = parse(args, new Set(['--template', '--separate-git-dir', '-b', '--initial-branch', '--object-format', '--ref-format']));
  const dir = ops[0] ?? literalWord('.');
  const separate = values.get('--separate-git-dir');
  if (flags.has('--bare')) {
    out.writes.push(at(dir));
    out.gitDirs.push(at(dir));
    return;
  }
  out.writes.push(at(dir, '.git'));
  out.gitDirs.push(separate === undefined ? at(dir, '.git') : at(separate));
  if (separate !== undefined) out.writes.push(at(separate));
}

/** `git clone [options] REPO [DIR]`: creates DIR/.git (or DIR itself with --bare/--mirror). */
function clone(args: Word[], at: (...p: (Word | string)[]) => Word, out: GitEffects): void {
  const { ops, values, flags } = parse(
    args,
    new Set(['-o', '--origin', '-b', '--branch', '-u', '--upload-pack', '--reference', '--reference-if-able', '--separate-git-dir', '--depth', '--shallow-since', '--shallow-exclude', '-j', '--jobs', '--template', '-c', '--config', '--filter', '--bundle-uri', '--server-option', '--ref-format', '--revision']),
  );
  if (values.has('-u') || values.has('--upload-pack')) unsure('git clone --upload-pack runs a command');
  const repo = ops[0];
  if (repo === undefined) return;
  const dir = ops[1] ?? humanish(repo);
  const bare = flags.has('--bare') || flags.has('--mirror');
  const gitDir = bare ? at(dir) : at(dir, '.git');
  out.writes.push(gitDir);
  const separate = values.get('--separate-git-dir');
  out.gitDirs.push(separate === undefined ? gitDir : at(separate));
  if (separate !== undefined) out.writes.push(at(separate));
}

/** `git submodule [--quiet] add [options] REPO [PATH]`: writes .gitmodules and PATH/.git. */
function submoduleAdd(args: Word[], at: (...p: (Word | string)[]) => Word, out: GitEffects): void {
  const start = args.findIndex((w) => w.static && !w.text.startsWith('-'));
  if (start === -1 || args[start]!.text !== 'add') return;
  const ops = operands(args.slice(start + 1), new Set(['-b', '--branch', '--name', '--reference', '--depth']));
  const repo = ops[0];
  if (repo === undefined) return;
  out.writes.push(at('.gitmodules'), at(ops[1] ?? humanish(repo), '.git'));
}

/** The folder git clone names after a repository: its last path part without `.git`. */
function humanish(repo: Word): Word {
  if (!repo.static) return literalWord(`$(basename ${repo.source})`, false);
  const name = repo.text.replace(/\/+$/, '').replace(/\/\.git$/, '').replace(/\.git$/, '').split(/[/:]/).pop() ?? '';
  return literalWord(name === '' ? '.' : name);
}

function operands(args: Word[], withValue: Set<string>): Word[] {
  return parse(args, withValue).ops;
}

function parse(args: Word[], withValue: Set<string>): { ops: Word[]; values: Map<string, Word>; flags: Set<string> } {
  const ops: Word[] = [];
  const values = new Map<string, Word>();
  const flags = new Set<string>();
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (!w.static || !w.text.startsWith('-') || w.text === '-') ops.push(w);
    else if (w.text === '--') {
      ops.push(...args.slice(i + 1));
      break;
    } else {
      const eq = w.text.indexOf('=');
      const name = w.text.startsWith('--') && eq !== -1 ? w.text.slice(0, eq) : w.text;
      if (eq !== -1 && w.text.startsWith('--')) values.set(name, literalWord(w.text.slice(eq + 1)));
      else if (withValue.has(name)) values.set(name, args[++i] ?? literalWord(''));
      else flags.add(name);
    }
  }
  return { ops, values, flags };
}

/**
 * Path parts joined as git would after each `-C`: an absolute part starts again. A part only
 * known at run time makes the whole path so (kept as source text, e.g. `"$D"/.git/config`).
 */
function joinWords(parts: (Word | string)[]): Word {
  const words = parts.map((p) => (typeof p === 'string' ? literalWord(p) : p));
  const last = words.map((w) => w.static && w.text.startsWith('/')).lastIndexOf(true);
  const used = last === -1 ? words : words.slice(last);
  if (used.every((w) => w.static)) return literalWord(posix.join(...used.map((w) => w.text)));
  return literalWord(used.map((w) => w.source).join('/'), false);
}
