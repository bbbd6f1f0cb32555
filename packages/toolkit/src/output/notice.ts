import type { TruncationResult } from '@airlock/contract';
import { formatSize } from './truncate.js';

/**
 * The one place that words truncation notices for the model. Every notice says what was shown,
 * of how much, and how to get the rest, in one bracketed line.
 */

/** How the caller lets the model continue, and where the text sits in its source. */
export interface NoticeOptions {
  /** Line number, in the whole source, of the text's first line (read with an offset). Default 1. */
  startLine?: number;
  /** Lines in the whole source when the truncated text was only a slice of it. Default: all lines of the text. */
  totalLines?: number;
  /** Tool parameter that continues a head read, e.g. "offset" gives "Use offset=2001 to continue." */
  offsetParam?: string;
  /** File holding the full output (a spill file): adds "Full output: PATH". */
  fullOutputPath?: string;
  /** File to show an oversized line from, in the suggested command. Default: `fullOutputPath`. */
  sourcePath?: string;
  /** UTF-8 size of the oversized line (first for head, last for tail), when the caller knows it. */
  lineBytes?: number;
}

/**
 * Notice for a head truncation, or undefined when nothing was cut.
 *
 * @example
 * headNotice(truncateHead(text), { offsetParam: 'offset' })
 * // "[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]"
 */
export function headNotice(result: TruncationResult, options: NoticeOptions = {}): string | undefined {
  if (!result.truncated) return undefined;
  const start = options.startLine ?? 1;
  if (result.firstLineExceedsLimit) return lineTooLongNotice(start, result.maxBytes, options);
  const end = start + result.outputLines - 1;
  const total = options.totalLines ?? start - 1 + result.totalLines;
  const next = options.offsetParam === undefined ? '' : ` Use ${options.offsetParam}=${end + 1} to continue.`;
  return `[Showing lines ${start}-${end} of ${total}${byteLimit(result)}.${next}${fullOutput(options)}]`;
}

/**
 * Notice for a tail truncation, or undefined when nothing was cut.
 *
 * @example
 * tailNotice(acc.end(), { fullOutputPath: info.path, lineBytes: acc.lastLineBytes })
 * // "[Showing lines 1001-3000 of 3000. Full output: /tmp/airlock-spill-1000/s1/…-bash-1a2b3c4d.log]"
 */
export function tailNotice(result: TruncationResult, options: NoticeOptions = {}): string | undefined {
  if (!result.truncated) return undefined;
  const offset = (options.startLine ?? 1) - 1;
  const end = offset + result.totalLines;
  const total = options.totalLines ?? end;
  if (result.lastLinePartial) {
    const size = options.lineBytes === undefined ? '' : ` (line is ${formatSize(options.lineBytes)})`;
    return `[Showing last ${formatSize(result.outputBytes)} of line ${end}${size}.${fullOutput(options)}]`;
  }
  const start = end - result.outputLines + 1;
  return `[Showing lines ${start}-${end} of ${total}${byteLimit(result)}.${fullOutput(options)}]`;
}

/**
 * Notice for whichever mode the caller applied: the entry point of a generic backstop.
 *
 * @example truncationNotice('tail', truncateTail(text), { fullOutputPath })
 */
export function truncationNotice(
  mode: 'head' | 'tail',
  result: TruncationResult,
  options: NoticeOptions = {},
): string | undefined {
  return mode === 'head' ? headNotice(result, options) : tailNotice(result, options);
}

/**
 * Diagnostic for a line too long to show at all, with a command that shows its first bytes when
 * the file is known.
 *
 * @example
 * lineTooLongNotice(1, 51200, { lineBytes: 60000, sourcePath: 'dist/app.min.js' })
 * // "[Line 1 is 58.6KB, exceeds the 50.0KB limit. See its start with bash: sed -n '1p' dist/app.min.js | head -c 51200]"
 */
export function lineTooLongNotice(line: number, maxBytes: number, options: NoticeOptions = {}): string {
  const size = options.lineBytes === undefined ? '' : ` is ${formatSize(options.lineBytes)},`;
  const what = `[Line ${line}${size} exceeds the ${formatSize(maxBytes)} limit`;
  const path = options.sourcePath ?? options.fullOutputPath;
  if (path === undefined) return `${what}, so it is not shown.]`;
  return `${what}. See its start with bash: sed -n '${line}p' ${shellQuote(path)} | head -c ${maxBytes}]`;
}

/**
 * For a read limited by the caller (not by truncation) that stopped before the end.
 * `remainingLines` undefined: the rest was not counted (a file too large to count).
 *
 * @example moreLinesNotice(90, 11) // "[90 more lines in file. Use offset=11 to continue.]"
 */
export function moreLinesNotice(remainingLines: number | undefined, nextLine: number, offsetParam = 'offset'): string {
  if (remainingLines === undefined) return `[More lines in file. Use ${offsetParam}=${nextLine} to continue.]`;
  return `[${remainingLines} more ${remainingLines === 1 ? 'line' : 'lines'} in file. Use ${offsetParam}=${nextLine} to continue.]`;
}

/**
 * Put a notice under the content, separated by one blank line whether or not the content ends
 * with a newline. Returns the content unchanged when there is no notice.
 *
 * @example appendNotice('a\nb\n', '[Showing lines 1-2 of 9.]') // "a\nb\n\n[Showing lines 1-2 of 9.]"
 */
export function appendNotice(content: string, notice: string | undefined): string {
  if (notice === undefined) return content;
  if (content.length === 0) return notice;
  return content.endsWith('\n') ? `${content}\n${notice}` : `${content}\n\n${notice}`;
}

function byteLimit(result: TruncationResult): string {
  return result.truncatedBy === 'bytes' ? ` (${formatSize(result.maxBytes)} limit)` : '';
}

function fullOutput(options: NoticeOptions): string {
  return options.fullOutputPath === undefined ? '' : ` Full output: ${options.fullOutputPath}`;
}

/**
 * Single-quoted for POSIX shells, so a path with spaces or quotes pastes as one argument.
 *
 * @example shellQuote('/tmp/my logs/a.log') // "'/tmp/my logs/a.log'"
 */
export function shellQuote(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}
