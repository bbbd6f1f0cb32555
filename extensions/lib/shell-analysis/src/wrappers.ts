import { hasOption, optionValues, parseArgs, type ParsedArgs } from './options.js';
import { unsure } from './unsure.js';
import { WRAPPERS, type WrapperSpec } from './wrapper-specs.js';
import { literalWord, type Word } from './words.js';

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
function optionEffects(name: string, spec: WrapperSpec, parsed: ParsedArgs, out: Unwrapped): void {
  if (spec.writes) out.writes.push(...optionValues(parsed, ...spec.writes));
  if (spec.reads) out.reads.push(...optionValues(parsed, ...spec.reads));
  if (name === 'xargs') {
    const replace = optionValues(parsed, '-I', '--replace', '-i')[0];
    if (replace) out.replace = replace.text;
    else if (hasOption(parsed, '-i', '--replace')) out.replace = '{}';
  }
  const chdir = optionValues(parsed, name === 'env' ? '-C' : '-D', '--chdir')[0];
  if (chdir && (name === 'env' || name === 'sudo')) out.chdir = chdir;
}

/** gdb runs a program only in the `--args PROGRAM ARGS…` form; -ex/-x/-batch run gdb commands, which may start any program. */
const GDB_COMMANDS = /^--?(?:ex|x|iex|ix|eval-command|command|init-eval-command|init-command|batch|batch-silent)(?:=|$)/;

function gdbStart(words: Word[]): number | undefined {
  const at = words.findIndex((w, i) => i > 0 && w.static && (w.text === '--args' || w.text === '-args'));
  if (at === -1) return undefined;
  const own = words.slice(1, at);
  const commands = own.find((w) => !w.static || GDB_COMMANDS.test(w.text));
  if (commands) unsure(`gdb ${commands.source} runs gdb commands, which may start other programs; not analysed`);
  return at + 1;
}

/** macOS `arch [-ARCH | -arch ARCH | -c | -d NAME | -e NAME=VALUE]… PROG ARGS…`; plain `arch` prints the architecture. */
function archStart(words: Word[]): number | undefined {
  let i = 1;
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (!w.static || !w.text.startsWith('-')) break;
    if (w.text === '--') return i + 1 < words.length ? i + 1 : undefined;
    if (w.text === '-arch' || w.text === '-d' || w.text === '-e') i++;
    else if (!/^-(?:c|h|i386|x86_64h?|arm64e?|ppc(?:64)?)$/.test(w.text)) unsure(`arch: option ${w.text} is not known to the analysis, so where its command starts is not known`);
  }
  return i;
}

/** `ip netns exec NAME CMD…` runs CMD; another spelling of it (global options, `-all`) is not analysed. */
function ipNetnsExec(words: Word[]): number | undefined {
  const netns = words.findIndex((w, i) => i > 0 && w.static && w.text === 'netns');
  if (netns === -1 || !(words[netns + 1]?.static && words[netns + 1]!.text === 'exec')) return undefined;
  if (netns !== 1) unsure('ip netns exec with options before it is not analysed');
  return 4;
}

/** Wrappers whose grammar getopt does not describe: where their command starts, or undefined for none. */
const CUSTOM: Readonly<Record<string, (words: Word[]) => number | undefined>> = { gdb: gdbStart, arch: archStart, ip: ipNetnsExec };

/** Where the command after a wrapper starts, or undefined when the wrapper runs none. */
function commandStart(name: string, spec: WrapperSpec, words: Word[], first: number, out: Unwrapped): { at: number; parsed: ParsedArgs; spec: WrapperSpec } | undefined {
  const parsed = parseArgs(words, first + (spec.leading ?? 0), spec.options);
  if (parsed.unknown.length) {
    unsure(`${name}: option ${parsed.unknown[0]} is not known to the analysis, so where its command starts is not known`);
  }
  if (spec.noCommandWith && hasOption(parsed, ...spec.noCommandWith)) return undefined;
  if (spec.needs && !hasOption(parsed, ...spec.needs)) return undefined;
  let at = parsed.stop;
  if (spec.subcommands) {
    const sub = words[at];
    const inner = sub?.static && Object.hasOwn(spec.subcommands, sub.text) ? spec.subcommands[sub.text] : undefined;
    if (!inner) return undefined;
    return commandStart(`${name} ${sub!.text}`, inner, words, at + 1, out);
  }
  if (name === 'sudo' && hasOption(parsed, '-e', '--edit')) {
    return { at, parsed, spec };
  }
  // An assignment's value may be dynamic (`env A=$(id) cmd`); its name never is.
  while (spec.assignments && at < words.length && (ASSIGNMENT.test(words[at]!.source) || (name === 'env' && words[at]!.source === '-'))) {
    // `env -` is `env -i`.
    if (words[at]!.source !== '-') out.assignments.push(words[at]!.source);
    at++;
  }
  at += spec.positionals ?? 0;
  if (name === 'flock') {
    const next = words[at];
    if (next?.static && (next.text === '-c' || next.text === '--command')) return undefined;
    // flock creates its lock file.
    if (words[at - 1]?.static) out.writes.push(words[at - 1]!);
  }
  if (spec.optionalNumber && words[at]?.static && /^\d+$/.test(words[at]!.text)) at++;
  return { at, parsed, spec };
}

export const WRAPPER_NAMES: readonly string[] = [...Object.keys(WRAPPERS), ...Object.keys(CUSTOM)];

/** Strips every leading wrapper from words (words[0] is the command name). */
export function unwrap(initial: Word[]): Unwrapped {
  const out: Unwrapped = { words: initial, wrappers: [], assignments: [], reads: [], writes: [], unknownArgs: false };
  for (;;) {
    const words = out.words;
    const head = words[0];
    if (!head?.static) return out;
    const name = basename(head.text);
    const custom = Object.hasOwn(CUSTOM, name) ? CUSTOM[name] : undefined;
    if (custom) {
      const at = custom(words);
      if (at === undefined || at >= words.length) return out;
      if (!words[at]!.static) unsure(`dynamic command after ${name}: ${words[at]!.source}`);
      out.wrappers.push(words.slice(0, at).map((w) => w.source).join(' '));
      out.words = words.slice(at);
      continue;
    }
    const spec = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined;
    if (!spec) return out;
    const before = [out.assignments.length, out.writes.length] as const;
    const restore = () => {
      [out.assignments.length, out.writes.length] = before;
      return out;
    };
    const start = commandStart(name, spec, words, 1, out);
    if (!start) return restore();
    const { at, parsed } = start;
    if (name === 'sudo' && hasOption(parsed, '-e', '--edit')) {
      // sudo -e is sudoedit: its operands are files to edit.
      out.wrappers.push(words.slice(0, at).map((w) => w.source).join(' '));
      out.words = [literalWord('sudoedit'), ...words.slice(at)];
      return out;
    }
    if (name === 'env' && hasOption(parsed, '-S', '--split-string')) unsure('env -S splits a string into a command; not analysed');
    if (at >= words.length) return restore(); // nothing to run: the wrapper is the command (`env`, `exec 3>f`)
    if (!words[at]!.static) unsure(`dynamic command after ${name}: ${words[at]!.source}`);
    optionEffects(name, start.spec, parsed, out);
    out.wrappers.push(words.slice(0, at).map((w) => w.source).join(' '));
    if (start.spec.appendsArgs || spec.appendsArgs) out.unknownArgs = true;
    out.words = words.slice(at);
  }
}
