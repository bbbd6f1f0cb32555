import { formatSize } from '@airlock/toolkit/util';

/**
 * read's own notice for a slice of a file. The shared notices (sizes, more lines, a line too
 * long) come from `@airlock/toolkit/util`, so read words them as the kernel does.
 */

/**
 * "[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]", with " (50.0KB limit)" when the
 * byte limit cut it. `total` undefined: the file was too large to count its lines.
 */
export function showingNotice(start: number, end: number, total: number | undefined, fileBytes: number, byteLimit?: number): string {
  const limit = byteLimit === undefined ? '' : ` (${formatSize(byteLimit)} limit)`;
  const of = total === undefined ? ` of a ${formatSize(fileBytes)} file` : ` of ${total}`;
  return `[Showing lines ${start}-${end}${of}${limit}. Use offset=${end + 1} to continue.]`;
}
