import { hasOption, optionValues, parseArgs, type OptionSpec, type ParsedArgs } from './options.js';
import { unsure } from './unsure.js';
import { literalWord, type Word } from './words.js';

/**
 * Programs that run another program given as their remaining arguments. Stripping them lets a
 * rule about `cat` see `sudo -u x timeout 5 cat`. Programs not listed here (strace, taskset,
 * flock, nsenter, …) stay the command name, so only rules about them apply.
 */
interface WrapperSpec {
  options: OptionSpec;
  /** Words between the options and the command (timeout's duration). */
  positionals?: number;
  /** NAME=value words before the command are the command's environment. */
  assignments?: boolean;
  /** Options after which the wrapper runs no command of its own (sudo -l, command -v). */
  noCommandWith?: readonly string[];
  /** The wrapper appends arguments that exist only at run time. */
  appendsArgs?: boolean;
}

const WRAPPERS: Record<string, WrapperSpec> = {
  env: { options: { short: 'uCS', long: ['unset', 'chdir', 'split-string'] }, assignments: true },
  sudo: {
    options: {
      short: 'ugCDhprtTU',
      long: ['user', 'group', 'close-from', 'chdir', 'host', 'prompt', 'role', 'type', 'command-timeout', 'other-user'],
    },
    assignments: true,
    noCommandWith: ['-l', '--list', '-v', '--validate', '-k', '--reset-timestamp', '-K', '--remove-timestamp', '-V', '--version'],
  },
  doas: { options: { short: 'uC' }, noCommandWith: ['-C'] },
  timeout: { options: { short: 'sk', long: ['signal', 'kill-after'] }, positionals: 1 },
  nice: { options: { short: 'n', long: ['adjustment'], numeric: true } },
  nohup: { options: {} },
  time: { options: { short: 'fo', long: ['format', 'output'] } },
  xargs: {
    // -e, -i and -l take only an attached value in GNU xargs, so they are flags here.
    options: {
      short: 'adEILnPs',
      long: ['arg-file', 'delimiter', 'eof', 'replace', 'max-lines', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'],
    },
    appendsArgs: true,
  },
  command: { options: {}, noCommandWith: ['-v', '-V'] },
  builtin: { options: {} },
  exec: { options: { short: 'a' } },
  stdbuf: { options: { short: 'ioe', long: ['input', 'output', 'error'] } },
  ionice: { options: { short: 'cnp', long: ['class', 'classdata', 'pid', 'pgid', 'uid'] }, noCommandWith: ['-p', '--pid', '-P', '--pgid', '-u', '--uid'] },
  setsid: { options: {} },
  chronic: { options: {} },
  noglob: { options: {} },
};

export const WRAPPER_NAMES: readonly string[] = Object.keys(WRAPPERS);

export interface Unwrapped {
  /** The words from the real command on. */
  words: Word[];
  wrappers: string[];
  assignments: string[];
  reads: Word[];
  writes: Word[];
  unknownArgs: boolean;
  /** xargs -I: words containing this string are replaced at run time. */
  replace?: string;
  /** env -C / sudo -D: the command runs in another folder. */
  chdir?: Word;
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** Side effects of a wrapper's own options: files it reads or writes, a changed folder. */
function optionEffects(name: string, parsed: ParsedArgs, out: Unwrapped): void {
  if (name === 'time') out.writes.push(...optionValues(parsed, '-o', '--output'));
  if (name === 'xargs') {
    out.reads.push(...optionValues(parsed, '-a', '--arg-file'));
    const replace = optionValues(parsed, '-I', '--replace')[0];
    if (replace) out.replace = replace.text;
    else if (hasOption(parsed, '-i')) out.replace = '{}';
  }
  const chdir = optionValues(parsed, name === 'env' ? '-C' : '-D', '--chdir')[0];
  if (chdir && (name === 'env' || name === 'sudo')) out.chdir = chdir;
}

/** Strips every leading wrapper from words (words[0] is the command name). */
export function unwrap(initial: Word[]): Unwrapped {
  const out: Unwrapped = { words: initial, wrappers: [], assignments: [], reads: [], writes: [], unknownArgs: false };
  for (;;) {
    const words = out.words;
    const head = words[0];
    if (!head?.static) return out;
    const name = basename(head.text);
    const spec = WRAPPERS[name];
    if (!spec) return out;
    const parsed = parseArgs(words, 1, spec.options);
    if (spec.noCommandWith && hasOption(parsed, ...spec.noCommandWith)) return out;
    let at = parsed.stop;
    const own: string[] = [];
    if (name === 'sudo' && hasOption(parsed, '-e', '--edit')) {
      // sudo -e is sudoedit: its operands are files to edit.
      out.wrappers.push(words.slice(0, at).map((w) => w.source).join(' '));
      out.words = [literalWord('sudoedit'), ...words.slice(at)];
      return out;
    }
    // An assignment's value may be dynamic (`env A=$(id) cmd`); its name never is.
    while (spec.assignments && at < words.length && ASSIGNMENT.test(words[at]!.source)) {
      own.push(words[at]!.source);
      at++;
    }
    at += spec.positionals ?? 0;
    if (name === 'env' && hasOption(parsed, '-S', '--split-string')) unsure('env -S splits a string into a command; not analysed');
    if (at >= words.length) return out; // nothing to run: the wrapper is the command (`env`, `exec 3>f`)
    if (!words[at]!.static) unsure(`dynamic command after ${name}: ${words[at]!.source}`);
    optionEffects(name, parsed, out);
    out.wrappers.push(words.slice(0, at).map((w) => w.source).join(' '));
    out.assignments.push(...own);
    if (spec.appendsArgs) out.unknownArgs = true;
    out.words = words.slice(at);
  }
}
