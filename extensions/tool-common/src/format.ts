import type { TruncationResult } from '@airlock/kernel';
import { isAbsolute, relative } from 'node:path';

/** Small wording helpers every built-in tool needs, kept in one place. */

/** A path as the model should see it: relative to cwd when inside it, else absolute; cwd is ".". */
export function displayPath(absolute: string, cwd: string): string {
  if (absolute === cwd) return '.';
  const rel = relative(cwd, absolute);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : absolute;
}

/** Bytes below 1 KiB, then one decimal of KiB or MiB: `512B`, `50.0KB`, `14.3MB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}

/**
 * Which context limit cut a listing, as its notice names it.
 *
 * @example limitName(ctx.truncate.head(text)) // "50.0KB limit" or "2000-line limit"
 */
export function limitName(truncation: TruncationResult): string {
  return truncation.truncatedBy === 'lines' ? `${truncation.maxLines}-line limit` : `${formatSize(truncation.maxBytes)} limit`;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The `code` of a Node system error (ENOENT, EACCES …), if it has one. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}
