import { hasOption, optionValues, parseArgs, type OptionSpec, type ParsedArgs } from './options.js';
import { unsure } from './unsure.js';
import { literalWord, type Word } from './words.js';

/**
 * Programs that run a command given in their arguments but are not plain wrappers: their command
 * is a string a shell runs (`su -c`, `script -c`, `trap`), or sits among their own operands
 * (`runuser -u U CMD`, `parallel CMD ::: ARGS`). Each grammar is exact: an option it does not know
 * makes the analysis unsure, since it might take a value and hide the command.
 */
export interface CommandRuns {
  /** Strings run as shell scripts. */
  scripts: string[];
  /** Argument lists run as commands. */
  commands: { words: Word[]; unknownArgs: boolean }[];
  /** Words a shell gets as its own arguments (`su USER ARGS…` runs `sh ARGS…`). */
  shellArgs?: Word[];
  writes: Word[];
  /** The scripts' commands get arguments only known at run time (parallel). */
  appendsArgs?: boolean;
}

const HELP = ['help', 'version'];

function exactArgs(name: string, words: Word[], spec: OptionSpec): ParsedArgs {
  const parsed = parseArgs(words, 1, spec);
  if (parsed.unknown.length) unsure(`${name}: option ${parsed.unknown[0]} is not known to the analysis, so what it runs is not known`);
  return parsed;
}

function literal(name: string, word: Word): string {
  if (!word.static) unsure(`${name} runs a non-literal command: ${word.source}`);
  return word.text;
}

const POSIX_SHELL = /^(?:bash|sh|zsh|dash|ksh|ash|mksh|rbash)$/;

/** The shell `-s SHELL` picks must read `-c` like sh, or its script is a language not analysed. */
function checkShell(name: string, parsed: ParsedArgs): void {
  const shell = optionValues(parsed, '-s', '--shell')[0];
  if (!shell) return;
  if (!shell.static || !POSIX_SHELL.test(shell.text.slice(shell.text.lastIndexOf('/') + 1))) {
    unsure(`${name} runs its command with the shell ${shell.source}, whose scripts are not analysed`);
  }
}

const SU: OptionSpec = {
  short: 'cgGswu',
  flags: 'flmpPhV',
  long: ['command', 'session-command', 'group', 'supp-group', 'shell', 'whitelist-environment', 'user'],
  longFlags: ['fast', 'login', 'preserve-environment', 'pty', ...HELP],
  permute: true,
};

/** su/runuser [options] [-] [USER [ARGS…]]: -c strings run through the user's shell; ARGS go to that shell. */
function su(name: string, words: Word[], out: CommandRuns): void {
  // runuser -u USER [--] COMMAND [ARGS…] runs COMMAND directly; its options end at the command.
  if (name === 'runuser' && words.some((w) => w.static && (w.text === '-u' || w.text.startsWith('--user')))) {
    const parsed = exactArgs(name, words, { ...SU, permute: false });
    const command = words.slice(parsed.stop);
    if (command.length) out.commands.push({ words: command, unknownArgs: false });
    return;
  }
  const parsed = exactArgs(name, words, SU);
  checkShell(name, parsed);
  for (const script of optionValues(parsed, '-c', '--command', '--session-command')) out.scripts.push(literal(name, script));
  const operands = parsed.operands[0]?.static && parsed.operands[0].text === '-' ? parsed.operands.slice(1) : parsed.operands;
  const shellArgs = operands.slice(1);
  // With -c the extra words are the script's $0, $1…; without, the shell gets them (`su U -- -c CMD`).
  if (shellArgs.length && optionValues(parsed, '-c', '--command', '--session-command').length === 0) out.shellArgs = shellArgs;
}

/** sg [-] [GROUP [-c] COMMAND]: the command is a string run by /bin/sh -c. */
function sg(words: Word[], out: CommandRuns): void {
  let i = 1;
  if (words[i]?.static && words[i]!.text === '-') i++;
  i++; // the group
  if (words[i]?.static && words[i]!.text === '-c') i++;
  const command = words[i];
  if (command) out.scripts.push(literal('sg', command));
  if (words.length > i + 1) unsure('sg takes one command string; the extra words are not analysed');
}

const SCRIPT: OptionSpec = {
  short: 'cEIOBTom',
  attached: 't',
  flags: 'aeFfqhVw',
  long: ['command', 'echo', 'log-in', 'log-out', 'log-io', 'log-timing', 'logging-format', 'output-limit'],
  longFlags: ['append', 'return', 'flush', 'force', 'quiet', 'timing', ...HELP],
};

/**
 * script [options] [FILE [COMMAND ARGS…]]: -c runs a string through the shell (util-linux, which
 * also takes options after FILE); macOS runs the words after FILE as a command.
 */
function script(words: Word[], out: CommandRuns): void {
  const first = exactArgs('script', words, SCRIPT);
  const file = words[first.stop];
  const tail = words.slice(first.stop + 1);
  const options = [...first.options];
  if (tail[0]?.static && tail[0].text.startsWith('-')) {
    const later = exactArgs('script', [words[0]!, ...tail], { ...SCRIPT, permute: true });
    options.push(...later.options);
    if (later.operands.length) unsure('script: words after its file and options are not analysed');
  } else if (tail.length) out.commands.push({ words: tail, unknownArgs: false });
  const parsed = { options, operands: [], stop: 0, unknown: [] };
  for (const command of optionValues(parsed, '-c', '--command')) out.scripts.push(literal('script', command));
  out.writes.push(...optionValues(parsed, '-I', '--log-in', '-O', '--log-out', '-B', '--log-io', '-T', '--log-timing'));
  out.writes.push(file ?? literalWord('typescript'));
}

/** trap [-lpP] [ACTION SIGNAL…]: the action is a command line bash runs later, like eval. */
function trap(words: Word[], out: CommandRuns): void {
  const parsed = exactArgs('trap', words, { flags: 'lpP' });
  const operands = words.slice(parsed.stop);
  // One operand is a signal to reset; `-` and a number as the first of several are signals too (POSIX).
  if (operands.length < 2) return;
  const action = operands[0]!;
  if (action.static && (action.text === '-' || /^\d+$/.test(action.text))) return;
  out.scripts.push(literal('trap', action));
}

/** flock [options] FILE -c STRING: the string runs through sh -c (the argv form is a wrapper, wrappers.ts). */
function flock(words: Word[], out: CommandRuns): void {
  const parsed = exactArgs('flock', words, {
    short: 'wE',
    flags: 'sxenouFhV',
    long: ['wait', 'timeout', 'conflict-exit-code'],
    longFlags: ['shared', 'exclusive', 'unlock', 'nonblock', 'nb', 'close', 'no-fork', 'verbose', ...HELP],
  });
  const file = words[parsed.stop];
  const flag = words[parsed.stop + 1];
  if (!file || !flag?.static || (flag.text !== '-c' && flag.text !== '--command')) return;
  out.writes.push(file);
  const command = words[parsed.stop + 2];
  if (!command) unsure('flock -c without a command');
  out.scripts.push(literal('flock', command));
}

const SEPARATORS = new Set([':::', ':::+', '::::', '::::+']);

const PARALLEL: OptionSpec = {
  short: 'jnNIdaCSPsE',
  attached: 'il',
  flags: 'kq0mXuvrtDVgH',
  long: ['jobs', 'max-args', 'max-replace-args', 'delimiter', 'arg-file', 'colsep', 'sshlogin', 'max-procs', 'max-chars', 'eof', 'halt', 'timeout', 'retries', 'joblog', 'results', 'delay', 'load', 'memfree', 'workdir', 'wd', 'basefile', 'tmpdir', 'env', 'nice', 'tag-string', 'block', 'block-size', 'header', 'sshloginfile', 'slf', 'return', 'id', 'semaphorename', 'semaphoretimeout', 'trim', 'arg-sep', 'arg-file-sep', 'termseq', 'rpl'],
  longFlags: ['keep-order', 'quote', 'null', 'xargs', 'dry-run', 'bar', 'eta', 'progress', 'tag', 'line-buffer', 'lb', 'group', 'ungroup', 'will-cite', 'no-notice', 'pipe', 'pipepart', 'no-run-if-empty', 'verbose', 'shuf', 'resume', 'resume-failed', 'semaphore', 'fg', 'bg', 'citation', 'linebuffer', 'keep-order', 'group-by', 'round-robin', 'plus', 'silent', 'quote', 'max-line-length-allowed', 'number-of-cpus', 'number-of-cores', 'show-limits', 'transfer', 'cleanup', 'nonall', 'onall', ...HELP],
};

/** parallel [options] [COMMAND] (::: ARGS | :::: FILES)…: COMMAND's words are joined and run by a shell, with each input appended. */
function parallel(name: string, words: Word[], out: CommandRuns): void {
  const parsed = exactArgs(name, words, PARALLEL);
  if (hasOption(parsed, '--arg-sep', '--arg-file-sep', '--rpl')) unsure(`${name}: a changed separator or replacement string is not analysed`);
  const rest = words.slice(parsed.stop);
  const end = rest.findIndex((w) => w.static && SEPARATORS.has(w.text));
  const command = end === -1 ? rest : rest.slice(0, end);
  out.appendsArgs = true;
  if (command.length && hasOption(parsed, '-q', '--quote')) {
    out.commands.push({ words: command, unknownArgs: true });
    return;
  }
  if (command.length) {
    out.scripts.push(command.map((w) => literal(name, w)).join(' '));
    return;
  }
  if (name === 'sem') return;
  // No command: every input is a command line of its own.
  const inputs = rest.slice(end + 1);
  if (end === -1 || rest[end]!.text !== ':::' || inputs.some((w) => w.static && SEPARATORS.has(w.text))) {
    unsure(`${name} without a command runs command lines it reads at run time; not analysed`);
  }
  out.appendsArgs = false;
  for (const input of inputs) out.scripts.push(literal(name, input));
}

/** entr -s UTILITY: the utility is a string $SHELL runs (the argv form is a wrapper, wrappers.ts). */
function entr(words: Word[], out: CommandRuns): void {
  const parsed = exactArgs('entr', words, { flags: 'acdnprsz' });
  if (!hasOption(parsed, '-s')) return;
  const utility = words[parsed.stop];
  if (utility) out.scripts.push(literal('entr', utility));
}

/** hyperfine's operands and its -p/-c/-s values are command strings, with parameters substituted at run time. */
function hyperfine(words: Word[]): void {
  if (words.length > 1 && !words.slice(1).every((w) => w.static && /^(?:-h|--help|-V|--version)$/.test(w.text))) {
    unsure('hyperfine runs command strings with parameters filled in at run time; not analysed');
  }
}

/** tmux subcommands that start no command of their own; the rest (new-session, send-keys, run-shell, …) take command strings. */
const TMUX_QUIET = new Set(['ls', 'list-sessions', 'attach', 'a', 'at', 'attach-session', 'detach', 'detach-client', 'kill-session', 'kill-server', 'kill-window', 'kill-pane', 'has-session', 'has', 'list-windows', 'lsw', 'list-panes', 'lsp', 'list-clients', 'lsc', 'capture-pane', 'capturep', 'show-options', 'show', 'show-window-options', 'showw', 'display-message', 'display', 'info', 'list-keys', 'lsk', 'list-buffers', 'lsb', 'rename-session', 'rename', 'rename-window', 'renamew', 'select-window', 'selectw', 'select-pane', 'selectp', 'switch-client', 'switchc', 'resize-pane', 'resizep']);

/** tmux [options] [COMMAND [flags]]: -c and most commands run shell strings, which this analysis does not follow. */
function tmux(words: Word[], out: CommandRuns): void {
  const parsed = exactArgs('tmux', words, { short: 'cfLST', flags: '2CDlNuvV' });
  const command = optionValues(parsed, '-c')[0];
  if (command) out.scripts.push(literal('tmux', command));
  const sub = words[parsed.stop];
  if (!sub) return;
  const chained = words.some((w) => w.text === ';' || w.text.endsWith(';'));
  if (!sub.static || !TMUX_QUIET.has(sub.text) || chained) {
    unsure(`tmux ${sub.source} may run command strings (new-session, send-keys, run-shell …); not analysed`);
  }
}

/** screen: only listing, attaching to and detaching sessions is analysed; anything else may start a command. */
function screen(words: Word[]): void {
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    const text = w.static ? w.text : '';
    if (['-ls', '-list', '-wipe', '-v', '-version', '-q'].includes(text)) continue;
    if (['-r', '-x', '-d', '-D', '-S'].includes(text)) {
      const next = words[i + 1];
      if (next?.static && !next.text.startsWith('-')) i++;
      continue;
    }
    unsure(`screen ${w.source} may start a command in a new window; not analysed`);
  }
}

const RUNNERS: Readonly<Record<string, (name: string, words: Word[], out: CommandRuns) => void>> = {
  su,
  runuser: su,
  sg: (_name, words, out) => sg(words, out),
  script: (_name, words, out) => script(words, out),
  trap: (_name, words, out) => trap(words, out),
  flock: (_name, words, out) => flock(words, out),
  parallel,
  sem: parallel,
  entr: (_name, words, out) => entr(words, out),
  hyperfine: (_name, words) => hyperfine(words),
  tmux: (_name, words, out) => tmux(words, out),
  screen: (_name, words) => screen(words),
};

/** What a program in this module runs; undefined for any other program (one map lookup per command). */
export function commandStringRuns(name: string, words: Word[]): CommandRuns | undefined {
  const runner = Object.hasOwn(RUNNERS, name) ? RUNNERS[name] : undefined;
  if (!runner) return undefined;
  const out: CommandRuns = { scripts: [], commands: [], writes: [] };
  runner(name, words, out);
  return out;
}

export const COMMAND_STRING_PROGRAMS: readonly string[] = Object.keys(RUNNERS);
