import { countOf, displayText } from '@airlock/toolkit/display';
import { type ToolResultMessage } from '@airlock/contract';

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

/** A tool name or call id: the model chose it, so it is shown, never interpreted, and kept short. */
const MAX_NAME_CHARS = 80;

/** `airlock: read (call-1) → ok`, one line; the model's tool name and call id shown through displayText. */
export function formatStatus(message: ToolResultMessage, durationMs?: number): string {
  const time = durationMs === undefined ? '' : ` in ${durationMs < 10 ? durationMs.toFixed(1) : Math.round(durationMs)} ms`;
  return `airlock: ${describeCall(message)} → ${MARK[message.outcome]}${time}\n`;
}

/**
 * The line above each result of a batch, so results that run together stay apart and each says
 * which call it answers: `── [2/3] read (call_2) → ok ──`.
 */
export function formatResultHeader(message: ToolResultMessage, index: number, total: number): string {
  return `── [${index + 1}/${total}] ${describeCall(message)} → ${MARK[message.outcome]} ──\n`;
}

/** `read (call_1)`: the model chose both, so both are shown through displayText and kept short. */
function describeCall(message: ToolResultMessage): string {
  const name = displayText(message.toolName, { maxChars: MAX_NAME_CHARS });
  const id = displayText(message.toolCallId, { maxChars: MAX_NAME_CHARS });
  return `${name} (${id})`;
}

/** `3 calls: 2 ok, 1 denied`, the closing line of a batch. */
export function formatBatchSummary(messages: readonly ToolResultMessage[], durationMs: number): string {
  const counts = new Map<string, number>();
  for (const m of messages) counts.set(MARK[m.outcome], (counts.get(MARK[m.outcome]) ?? 0) + 1);
  const parts = [...counts].map(([mark, n]) => `${n} ${mark}`).join(', ');
  const time = durationMs < 10 ? durationMs.toFixed(1) : String(Math.round(durationMs));
  return `airlock: batch of ${countOf(messages.length, 'call')}: ${parts || 'none ran'} in ${time} ms\n`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}

/** A table with left-aligned columns, for `tools` and `extensions`; names there may come from a project's settings. */
export function table(input: readonly (readonly string[])[]): string {
  const rows = input.map((row) => row.map((cell) => displayText(cell, { maxChars: 200 })));
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd()).join('\n') + '\n';
}
