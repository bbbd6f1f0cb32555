import type { TruncationResult } from '@airlock/kernel';

/**
 * The tail notice, worded exactly as the kernel words it (`tailNotice` in the kernel's
 * output/notice.ts). Extensions import no kernel runtime, so the few lines are repeated here.
 */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}

export function tailNotice(result: TruncationResult, fullOutputPath: string | undefined, lineBytes: number): string | undefined {
  if (!result.truncated) return undefined;
  const full = fullOutputPath === undefined ? '' : ` Full output: ${fullOutputPath}`;
  const end = result.totalLines;
  if (result.lastLinePartial) {
    return `[Showing last ${formatSize(result.outputBytes)} of line ${end} (line is ${formatSize(lineBytes)}).${full}]`;
  }
  const start = end - result.outputLines + 1;
  const limit = result.truncatedBy === 'bytes' ? ` (${formatSize(result.maxBytes)} limit)` : '';
  return `[Showing lines ${start}-${end} of ${end}${limit}.${full}]`;
}

/** One blank line between content and notice, as the kernel's `appendNotice`. */
export function appendNotice(content: string, notice: string | undefined): string {
  if (notice === undefined) return content;
  if (content.length === 0) return notice;
  return content.endsWith('\n') ? `${content}\n${notice}` : `${content}\n\n${notice}`;
}
