import type { ToolResultMessage } from '@airlock/kernel';

/**
 * Human output. Content goes to stdout exactly as the model would see it (so it can be piped);
 * the status line goes to stderr, so `airlock call read … > file` keeps only the content.
 */
export function formatContent(message: ToolResultMessage): string {
  const parts = message.content.map((block) =>
    block.type === 'text' ? block.text : `[image ${block.mimeType}, ${formatBytes(Math.floor((block.data.length * 3) / 4))}]`,
  );
  const text = parts.join('\n');
  return text.endsWith('\n') ? text : `${text}\n`;
}

const MARK: Record<ToolResultMessage['outcome'], string> = {
  ok: 'ok',
  error: 'error',
  not_found: 'not found',
  invalid: 'invalid arguments',
  denied: 'denied',
  aborted: 'aborted',
  timeout: 'timed out',
};

/** `airlock: read (call-1) → ok`, one line. */
export function formatStatus(message: ToolResultMessage, durationMs?: number): string {
  const time = durationMs === undefined ? '' : ` in ${durationMs < 10 ? durationMs.toFixed(1) : Math.round(durationMs)} ms`;
  return `airlock: ${message.toolName} (${message.toolCallId}) → ${MARK[message.outcome]}${time}\n`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}

/** A table with left-aligned columns, for `tools` and `extensions`. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd()).join('\n') + '\n';
}
