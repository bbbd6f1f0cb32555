/**
 * Wording for the model, kept identical to the kernel's notices (packages/kernel/src/output/notice.ts).
 * Extensions import only types from @airlock/kernel, so the few pure helpers needed here live here.
 */

/**
 * Human size: bytes below 1 KiB, then one decimal of KiB or MiB.
 *
 * @example formatSize(51200) // "50.0KB"
 */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}

/** Single-quoted for POSIX shells, so a path with spaces or quotes pastes as one argument. */
export function shellQuote(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

/**
 * Put a notice under the content, separated by one blank line whether or not the content ends
 * with a newline.
 *
 * @example appendNotice('a\nb\n', '[Showing lines 1-2 of 9.]') // "a\nb\n\n[Showing lines 1-2 of 9.]"
 */
export function appendNotice(content: string, notice: string | undefined): string {
  if (notice === undefined) return content;
  if (content.length === 0) return notice;
  return content.endsWith('\n') ? `${content}\n${notice}` : `${content}\n\n${notice}`;
}

/**
 * "[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]", with " (50.0KB limit)" when the
 * byte limit cut it. `total` undefined: the file was too large to count its lines.
 */
export function showingNotice(start: number, end: number, total: number | undefined, fileBytes: number, byteLimit?: number): string {
  const limit = byteLimit === undefined ? '' : ` (${formatSize(byteLimit)} limit)`;
  const of = total === undefined ? ` of a ${formatSize(fileBytes)} file` : ` of ${total}`;
  return `[Showing lines ${start}-${end}${of}${limit}. Use offset=${end + 1} to continue.]`;
}

/** "[90 more lines in file. Use offset=11 to continue.]"; `remaining` undefined: not counted. */
export function moreLinesNotice(remaining: number | undefined, next: number): string {
  if (remaining === undefined) return `[More lines in file. Use offset=${next} to continue.]`;
  return `[${remaining} more ${remaining === 1 ? 'line' : 'lines'} in file. Use offset=${next} to continue.]`;
}

/**
 * "[Line 1 is 58.6KB, exceeds the 50.0KB limit. See its start with bash: sed -n '1p' FILE | head -c 51200]"
 */
export function lineTooLongNotice(line: number, lineBytes: number, maxBytes: number, path: string): string {
  return (
    `[Line ${line} is ${formatSize(lineBytes)}, exceeds the ${formatSize(maxBytes)} limit. ` +
    `See its start with bash: sed -n '${line}p' ${shellQuote(path)} | head -c ${maxBytes}]`
  );
}
