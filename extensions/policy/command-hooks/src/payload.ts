import type { Content } from '@airlock/contract';
import type { ToolEvent } from './options.js';

/** What every event's stdin JSON carries (hooks.md, "Common input fields"), read when a hook runs. */
export interface SessionFacts {
  readonly sessionId: string;
  readonly cwd: string;
  /** Whether a person (terminal, RPC or MCP client, SDK UI) can answer an ask now. */
  readonly canAsk: () => boolean;
  /** The session transcript's file, once the program driving the host opened one. */
  readonly transcriptPath: () => string | undefined;
}

/**
 * Claude Code's `permission_mode` for how Airlock decides now. Airlock has no plan, acceptEdits or
 * bypass modes: its rules decide, and an ask goes to a person when one can answer (`default`, as
 * in Claude Code) or is denied when nobody can, which is Claude Code's `dontAsk` ("denies what is
 * not pre-approved"). A hook that relaxes itself when a person is watching reads this.
 */
export function permissionMode(facts: SessionFacts): 'default' | 'dontAsk' {
  return facts.canAsk() ? 'default' : 'dontAsk';
}

/**
 * The JSON a hook reads on stdin, with Claude Code's field names and every common field Airlock
 * can fill truthfully. `transcript_path` is the session's transcript (`airlock run`, an SDK agent
 * that records one): Airlock's JSONL, not Claude Code's message format. A lone call (`airlock
 * call`, an MCP or RPC client's call) has no transcript: the field is then `""`, present as Claude
 * Code always sends it (scripts that index it do not crash) and empty so that scripts that check
 * it before opening (`if transcript_path:`, `os.path.exists`) skip it.
 *
 * @example
 * hookInput(facts, 'PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'c1' })
 */
export function hookInput(facts: SessionFacts, event: ToolEvent, fields: Record<string, unknown>): string {
  return JSON.stringify({
    session_id: facts.sessionId,
    transcript_path: facts.transcriptPath() ?? '',
    cwd: facts.cwd,
    hook_event_name: event,
    permission_mode: permissionMode(facts),
    ...fields,
  });
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
