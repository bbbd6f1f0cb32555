import { literalWord, type Word } from './words.js';

/** How one program reads its options, enough to tell option values from operands. */
export interface OptionSpec {
  /** Short option letters that take a value (`-n 5`, `-n5`). */
  short?: string;
  /** Long option names (without `--`) that take a value (`--lines 5`, `--lines=5`). */
  long?: readonly string[];
  /** GNU programs accept options after operands; wrappers stop at the first operand (their command). */
  permute?: boolean;
  /** `-20` is an option (head, tail, nice). */
  numeric?: boolean;
  /**
   * Short flags (no value). Giving flags makes the grammar exact: an option in none of the lists
   * is reported in `unknown`, since it might take a value and hide where the command starts.
   */
  flags?: string;
  /** Long flags, and long options whose value may only be attached (`--mount[=FILE]`). */
  longFlags?: readonly string[];
  /** Short options whose value may only be attached (`-i[R]` of xargs, `-m[FILE]` of nsenter). */
  attached?: string;
  /** Any `--name=value` is self-contained (valgrind, firejail): only bare long options need listing. */
  anyLongWithValue?: boolean;
  /** Every long option is one word, `--flag` or `--name=value` (firejail): none takes the next word. */
  anyLong?: boolean;
  /** Words that end the options and start the command (`gdb --args`, `schedtool -e`). */
  commandAfter?: readonly string[];
}

export interface ParsedOption {
  /** `-n` or `--lines`. */
  name: string;
  value?: Word;
}

export interface ParsedArgs {
  options: ParsedOption[];
  operands: Word[];
  /** Index of the first word not consumed (the command, for a wrapper); words.length when all were. */
  stop: number;
  /** Options not in an exact grammar (see OptionSpec.flags). */
  unknown: string[];
}

export function hasOption(parsed: ParsedArgs, ...names: string[]): boolean {
  return parsed.options.some((o) => names.includes(o.name));
}

export function optionValues(parsed: ParsedArgs, ...names: string[]): Word[] {
  return parsed.options.filter((o) => names.includes(o.name) && o.value).map((o) => o.value!);
}

/** getopt-style parsing of words[start…]. A dynamic word is always an operand: it cannot be read as an option. */
export function parseArgs(words: Word[], start: number, spec: OptionSpec): ParsedArgs {
  const options: ParsedOption[] = [];
  const operands: Word[] = [];
  const unknown: string[] = [];
  const shortWithValue = spec.short ?? '';
  const longWithValue = spec.long ?? [];
  const exact = spec.flags !== undefined;
  const knownShort = (letter: string) => shortWithValue.includes(letter) || (spec.flags ?? '').includes(letter) || (spec.attached ?? '').includes(letter);
  const knownLong = (name: string, withValue: boolean) =>
    longWithValue.includes(name) || (spec.longFlags ?? []).includes(name) || (withValue && spec.anyLongWithValue === true) || spec.anyLong === true;
  let i = start;
  for (; i < words.length; i++) {
    const word = words[i]!;
    const text = word.text;
    if (word.static && spec.commandAfter?.includes(text)) {
      options.push({ name: text });
      return { options, operands, stop: i + 1, unknown };
    }
    if (!word.static || text === '-' || !text.startsWith('-')) {
      if (!spec.permute) break;
      operands.push(word);
      continue;
    }
    if (text === '--') {
      i++;
      if (spec.permute) operands.push(...words.slice(i));
      else return { options, operands, stop: i, unknown };
      i = words.length;
      break;
    }
    if (spec.numeric && /^--?\d+$/.test(text)) {
      options.push({ name: '-#', value: literalWord(text.slice(1)) });
      continue;
    }
    if (text.startsWith('--')) {
      const eq = text.indexOf('=');
      const name = eq === -1 ? text.slice(2) : text.slice(2, eq);
      if (exact && !knownLong(name, eq !== -1)) unknown.push(`--${name}`);
      if (eq !== -1) options.push({ name: `--${name}`, value: literalWord(text.slice(eq + 1)) });
      else if (longWithValue.includes(name)) options.push({ name: `--${name}`, value: words[++i] });
      else options.push({ name: `--${name}` });
      continue;
    }
    for (let j = 1; j < text.length; j++) {
      const letter = text[j]!;
      if (exact && !knownShort(letter)) unknown.push(`-${letter}`);
      if (shortWithValue.includes(letter) || (spec.attached ?? '').includes(letter)) {
        const attached = text.slice(j + 1);
        const value = attached ? literalWord(attached) : shortWithValue.includes(letter) ? words[++i] : undefined;
        options.push(value ? { name: `-${letter}`, value } : { name: `-${letter}` });
        break;
      }
      options.push({ name: `-${letter}` });
    }
  }
  return { options, operands, stop: Math.min(i, words.length), unknown };
}
