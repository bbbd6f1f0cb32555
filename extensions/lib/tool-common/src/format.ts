import type { TruncationResult } from '@airlock/contract';
import { formatSize } from '@airlock/toolkit/util';
import { isAbsolute, relative } from 'node:path';

/** Small wording helpers every built-in tool needs, kept in one place. */

/** A path as the model should see it: relative to cwd when inside it, else absolute; cwd is ".". */
export function displayPath(absolute: string, cwd: string): string {
  if (absolute === cwd) return '.';
  const rel = relative(cwd, absolute);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : absolute;
}

/**
 * Which context limit cut a listing, as its notice names it.
 *
 * @example limitName(ctx.truncate.head(text)) // "50.0KB limit" or "2000-line limit"
 */
export function limitName(truncation: TruncationResult): string {
  return truncation.truncatedBy === 'lines' ? `${truncation.maxLines}-line limit` : `${formatSize(truncation.maxBytes)} limit`;
}
