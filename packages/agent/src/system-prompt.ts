import type { AnyAgentTool } from '@airlock/contract';

export interface SystemPromptOptions {
  /** The enabled tools: the same list the provider serializes (`ModelRequest.tools`). */
  tools: readonly AnyAgentTool[];
  /** How the provider spells a tool's name (`ModelProvider.toolName`); default: unchanged. */
  toolName?: (name: string) => string;
  /** Replaces the opening paragraph. */
  intro?: string;
  /** The folder relative paths resolve in, stated at the end. */
  cwd?: string;
  /** Appended last, after a blank line (project instructions, say). */
  append?: string;
}

const INTRO =
  'You are a coding agent. You act on the machine only through the tools listed below. Every call passes Airlock: a call that is denied, invalid or fails comes back as a result that says why and what to do next; read it and adapt instead of repeating the call.';

/**
 * The system prompt: an opening paragraph, then exactly the enabled tools, one line each
 * (`- name: the first sentence of its description`), each followed by its `promptGuidelines`.
 * Built from the same list the provider serializes, so the prompt never names a tool the model
 * cannot call, nor leaves out one it can.
 *
 * @example
 * buildSystemPrompt({ tools: runner.tools, cwd: '/work/app' });
 * // "You are a coding agent. …\n\nTools:\n- read: Read a file.\n- bash: Run a shell command.\n\nWorking folder: /work/app"
 */
export function buildSystemPrompt(options: SystemPromptOptions): string {
  const parts = [options.intro ?? INTRO];
  const lines = toolPromptLines(options.tools, options.toolName);
  parts.push(lines.length === 0 ? 'Tools: none are enabled in this session. Answer from the conversation alone.' : `Tools:\n${lines.join('\n')}`);
  if (options.cwd !== undefined) parts.push(`Working folder: ${oneLine(options.cwd)}`);
  if (options.append !== undefined && options.append.trim() !== '') parts.push(options.append.trim());
  return parts.join('\n\n');
}

/**
 * The tool section, one entry per tool in the given order: its line, then its guidelines
 * indented under it.
 *
 * @example
 * toolPromptLines([readTool]); // ['- read: Read a file.', '  - Prefer offset/limit over reading a huge file whole.']
 */
export function toolPromptLines(tools: readonly AnyAgentTool[], toolName: (name: string) => string = (n) => n): string[] {
  const lines: string[] = [];
  for (const tool of tools) {
    const summary = firstSentence(tool.description);
    lines.push(`- ${toolName(tool.name)}${summary === '' ? '' : `: ${summary}`}`);
    for (const rule of tool.promptGuidelines ?? []) {
      const text = typeof rule === 'string' ? oneLine(rule) : '';
      if (text !== '') lines.push(`  - ${text}`);
    }
  }
  return lines;
}

/**
 * The description's first sentence, on one line: a description (an extension's words) cannot add
 * lines to the prompt that look like another tool.
 */
export function firstSentence(description: unknown): string {
  const text = typeof description === 'string' ? oneLine(description) : '';
  const end = /[.!?](\s|$)/.exec(text);
  return end === null ? text : text.slice(0, end.index + 1);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
