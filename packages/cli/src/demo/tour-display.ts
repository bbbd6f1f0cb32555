import type { AgentEvent } from '@airlock/agent';
import { displayText, displayValue } from '@airlock/toolkit/display';
import { type Content, type ToolResultMessage } from '@airlock/contract';
import { formatStatus } from '../format.js';
import type { IO } from '../io.js';
import { liveOutput } from '../live-output.js';

/** A result of at most this many lines is shown whole; a longer one by its first and last lines. */
const PREVIEW_LINES = 8;
const HEAD_LINES = 3;
const TAIL_LINES = 3;
/** Denials explain themselves in one long line (the rule, the reason, how to allow it): shown whole up to this. */
const LINE_CHARS = 1200;

/**
 * The tour for a person: the prompt, each reply's text and calls as the model sends them, each
 * result as it ends (its status and first lines), and a running command's output live on a
 * terminal. Everything shown through displayText: results quote files and commands.
 */
export function tourDisplay(io: IO): (event: AgentEvent) => void {
  const out = (text: string): void => void io.stdout.write(text);
  const live = new Map<string, ReturnType<typeof liveOutput>>();
  const watching = io.stderrIsTTY === true;
  return (event) => {
    if (event.type === 'message_end' && event.message.role === 'user') {
      const text = typeof event.message.content === 'string' ? event.message.content : event.message.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
      out(`\nyou › ${show(text)}\n`);
    } else if (event.type === 'message_end' && event.message.role === 'assistant') {
      for (const block of event.message.content) {
        if (block.type === 'text' && block.text.trim() !== '') out(`\nmodel › ${show(block.text)}\n`);
        else if (block.type === 'toolCall') out(`  → ${displayText(block.name, { maxChars: 80 })} ${displayValue(block.arguments ?? block.argumentsText ?? {}, { maxChars: 200 })}\n`);
      }
      if (event.message.stopReason === 'error' && event.message.errorMessage !== undefined) out(`\nmodel › (failed) ${show(event.message.errorMessage)}\n`);
    } else if (event.type === 'tool_execution_update' && watching) {
      let stream = live.get(event.toolCallId);
      if (stream === undefined) live.set(event.toolCallId, (stream = liveOutput((text) => void io.stderr.write(text))));
      stream.update(textOf(event.partial.content));
    } else if (event.type === 'tool_execution_end') {
      live.get(event.toolCallId)?.end();
      live.delete(event.toolCallId);
      out(`  ${formatStatus(event.result).replace(/^airlock: /, '')}${preview(event.result)}`);
    }
  };
}

/**
 * A result under its status line, indented: whole when short, else its first and last lines (a
 * command's summary, its truncation notice and exit code are at the end) with a count between.
 */
export function preview(result: ToolResultMessage): string {
  const lines = textOf(result.content).replace(/\n+$/, '').split('\n');
  let shown = lines;
  if (lines.length > PREVIEW_LINES) {
    // The last lines that say something: a notice is set off from the output by a blank line.
    const tail = lines.slice(HEAD_LINES).filter((line) => line.trim() !== '').slice(-TAIL_LINES);
    shown = [...lines.slice(0, HEAD_LINES), `… ${lines.length - HEAD_LINES - tail.length} more lines …`, ...tail];
  }
  return shown.map((line) => `      │ ${displayText(line, { maxChars: LINE_CHARS })}\n`).join('');
}

function show(text: string): string {
  return displayText(text, { multiline: true, maxChars: 4000 });
}

function textOf(content: readonly Content[]): string {
  return content.map((c) => (c.type === 'text' ? c.text : `[image ${c.mimeType}]`)).join('\n');
}
