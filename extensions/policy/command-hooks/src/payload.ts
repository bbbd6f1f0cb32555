import type { Content } from '@airlock/contract';
import type { ToolEvent } from './options.js';

/** What every event's stdin JSON carries (hooks.md, "Common input fields"). */
export interface SessionFacts {
  readonly sessionId: string;
  readonly cwd: string;
}

/**
 * The JSON a hook reads on stdin, with Claude Code's field names. `permission_mode` is always
 * `default` (Airlock has no such modes; its policy decides). There is no `transcript_path`:
 * Airlock's transcript is not Claude Code's JSONL.
 *
 * @example
 * hookInput(facts, 'PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'c1' })
 */
export function hookInput(facts: SessionFacts, event: ToolEvent, fields: Record<string, unknown>): string {
  return JSON.stringify({ session_id: facts.sessionId, cwd: facts.cwd, hook_event_name: event, permission_mode: 'default', ...fields });
}

/** The text of a result's content (images as a placeholder). */
export function contentText(content: readonly Content[]): string {
  return content.map((c) => (c.type === 'text' ? c.text : `[image ${c.mimeType}]`)).join('\n');
}

/**
 * `tool_response` for PostToolUse in the shape of Claude Code's tool of that name, as far as
 * Airlock's result can fill it (the SDK's ToolOutputSchemas); other tools get `{ content }`.
 */
export function toolResponse(ccName: string, ccInput: Readonly<Record<string, unknown>>, content: readonly Content[]): Record<string, unknown> {
  const text = contentText(content);
  switch (ccName) {
    case 'Bash':
      return { stdout: text, stderr: '', interrupted: false, isImage: false };
    case 'Read':
      return { type: 'text', file: { filePath: ccInput.file_path, content: text } };
    case 'Write':
      return { filePath: ccInput.file_path, content: ccInput.content, success: true };
    case 'Edit':
      return { filePath: ccInput.file_path, oldString: ccInput.old_string, newString: ccInput.new_string, replaceAll: false, message: text };
    default:
      return { content: text };
  }
}
