import { commandStringRuns } from './command-strings.js';
import { gitEffects } from './git.js';
import { parseArgs } from './options.js';
import { unsure } from './unsure.js';
import { literalWord, type Word } from './words.js';

/** Where a command's standard input comes from, as far as a shell reading a script from it cares. */
export type Stdin = { kind: 'pipe' } | { kind: 'file' } | { kind: 'text'; body: string | undefined } | undefined;

/** What a program runs besides itself: script strings to parse, or argument lists to treat as commands. */
export interface Runs {
  scripts: string[];
  commands: { words: Word[]; unknownArgs: boolean }[];
  reads: Word[];
  writes: Word[];
  /** Paths removed with everything below them (find -delete). */
  removes?: Word[];
  /** Git folders created (git init, clone). */
  gitDirs?: Word[];
  /** The scripts' commands get arguments only known at run time (parallel ::: ARGS). */
  scriptsAppendArgs?: boolean;
}

/** A script file that is a stream (`bash /dev/stdin <<< "$X"`, `. /dev/fd/0`): its content is only known at run time. */
const STREAM = /^\/dev\/(?:stdin|fd\/\d+)$|^\/proc\/(?:self|thread-self|\d+)\/fd\/\d+$/;

const POSIX_SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'ash', 'mksh', 'rbash']);
const OTHER_SHELLS = new Set(['fish', 'csh', 'tcsh', 'pwsh', 'nu', 'xonsh', 'elvish']);

/** bash [options] [-c SCRIPT [ARG0 ARGS…] | FILE ARGS… | -s ARGS…]. */
function shell(words: Word[], stdin: Stdin, runs: Runs): void {
  let commandMode = false;
  let stdinMode = false;
  let i = 1;
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (!w.static) break;
    const t = w.text;
    if (t === '--' || t === '-') {
      i++;
      break;
    }
    if (t.startsWith('--')) {
      if (t === '--rcfile' || t === '--init-file') i++;
      continue;
    }
    if (!/^[-+]./.test(t)) break;
    for (const letter of t.slice(1)) {
      if (letter === 'c') commandMode = true;
      else if (letter === 's') stdinMode = true;
      else if (letter === 'o' || letter === 'O') i++; // -o pipefail, -O extglob
    }
  }
  const operands = words.slice(i);
  if (commandMode) {
    const script = operands[0];
    if (!script) unsure(`${words[0]!.text} -c without a script`);
    if (!script.static) unsure(`script for ${words[0]!.text} -c is not a literal: ${script.source}`);
    runs.scripts.push(script.text);
    return;
  }
  if (!stdinMode && operands.length > 0) {
    const file = operands[0]!;
    if (!file.static) unsure(`${words[0]!.text} runs a script from a non-literal source: ${file.source}`);
    if (STREAM.test(file.text)) unsure(`${words[0]!.text} runs a script from ${file.text}, whose content is only known when the command runs`);
    runs.reads.push(file);
    return;
  }
  // The script comes from standard input.
  if (stdin?.kind === 'pipe') unsure(`${words[0]!.text} reads its script from a pipe`);
  if (stdin?.kind === 'text') {
    if (stdin.body === undefined) unsure(`heredoc fed to ${words[0]!.text} contains expansions`);
    runs.scripts.push(stdin.body);
  }
}

function evalScript(words: Word[], runs: Runs): void {
  const args = words.slice(1);
  const dynamic = args.find((w) => !w.static);
  if (dynamic) unsure(`eval of a non-literal: ${dynamic.source}`);
  runs.scripts.push(args.map((w) => w.text).join(' '));
}

/** find PATHS… EXPRESSION: -exec/-execdir/-ok/-okdir run commands, -delete and -fprint* write. */
function find(words: Word[], runs: Runs): void {
  let i = 1;
  const starts: Word[] = [];
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (w.static && (w.text.startsWith('-') || w.text === '(' || w.text === '!')) break;
    starts.push(w);
  }
  runs.reads.push(...starts);
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (!w.static) continue;
    if (['-exec', '-execdir', '-ok', '-okdir'].includes(w.text)) {
      const end = words.findIndex((x, j) => j > i && x.static && (x.text === ';' || x.text === '+'));
      if (end === -1) unsure(`find ${w.text} without a terminating ';' or '+'`);
      const command = words.slice(i + 1, end).map((x) => (x.static && x.text.includes('{}') ? literalWord(x.text, false) : x));
      if (command.length === 0) unsure(`find ${w.text} without a command`);
      runs.commands.push({ words: command, unknownArgs: words[end]!.text === '+' });
      i = end;
    } else if (w.text === '-delete') {
      const deleted = starts.length ? starts : [literalWord('.')];
      runs.writes.push(...deleted);
      (runs.removes ??= []).push(...deleted);
    } else if (['-fprint', '-fprint0', '-fls', '-fprintf'].includes(w.text) && words[i + 1]) {
      runs.writes.push(words[i + 1]!);
      i++;
    }
  }
}

/** watch runs its arguments joined by spaces through `sh -c`, or directly with -x. */
function watch(words: Word[], runs: Runs): void {
  const parsed = parseArgs(words, 1, { short: 'nq', long: ['interval', 'equexit'] });
  const rest = words.slice(parsed.stop);
  if (rest.length === 0) return;
  if (parsed.options.some((o) => o.name === '-x' || o.name === '--exec')) {
    runs.commands.push({ words: rest, unknownArgs: false });
    return;
  }
  const dynamic = rest.find((w) => !w.static);
  if (dynamic) unsure(`watch runs a non-literal command: ${dynamic.source}`);
  runs.scripts.push(rest.map((w) => w.text).join(' '));
}

/** What the program named `name` (argv = words) runs in turn. */
export function programRuns(name: string, words: Word[], stdin: Stdin): Runs {
  const runs: Runs = { scripts: [], commands: [], reads: [], writes: [] };
  const strings = commandStringRuns(name, words);
  if (strings) {
    runs.scripts.push(...strings.scripts);
    runs.commands.push(...strings.commands);
    runs.writes.push(...strings.writes);
    if (strings.shellArgs) shell([literalWord('sh'), ...strings.shellArgs], stdin, runs);
    if (strings.appendsArgs) runs.scriptsAppendArgs = true;
  } else if (POSIX_SHELLS.has(name)) shell(words, stdin, runs);
  else if (OTHER_SHELLS.has(name) && words.length > 1) unsure(`${name} scripts are not analysed`);
  else if (name === 'eval') evalScript(words, runs);
  else if ((name === 'source' || name === '.') && words[1] && !words[1].static) {
    unsure(`${name} runs a script from a non-literal source: ${words[1].source}`);
  } else if ((name === 'source' || name === '.') && words[1] && STREAM.test(words[1].text)) {
    unsure(`${name} runs a script from ${words[1].text}, whose content is only known when the command runs`);
  }
  else if (name === 'find') find(words, runs);
  else if (name === 'git') {
    const git = gitEffects(words);
    runs.writes.push(...git.writes);
    runs.gitDirs = git.gitDirs;
  }
  else if (name === 'watch') watch(words, runs);
  else if (name === 'shopt' && words.some((w) => w.text === 'expand_aliases')) {
    unsure('shopt expand_aliases: later aliases would be expanded, which this analysis does not do');
  }
  return runs;
}
