import { statSync } from 'node:fs';
import { createScriptedProvider, type Message, type ModelProvider, type ScriptBlock, type ScriptEntry } from '@airlock/agent';
import type { ToolResultMessage } from '@airlock/contract';

/**
 * A scripted model for the tour: it plays the script's replies in order, like `scripted:FILE`,
 * and first fills in placeholders from the results the model has seen so far — what a real
 * model does when it reads a path out of a result:
 *
 * - `{{spill:CALL_ID}}`: the full-output file that call's result names ("Full output: PATH");
 * - `{{outcome:CALL_ID}}`: that call's outcome (`ok`, `denied`, …).
 *
 * A placeholder that cannot be filled (no such call yet, no spill file named) makes that reply
 * an error saying so, so the run fails instead of sending a wrong path on.
 *
 * @example
 * const provider = tourProvider(await loadScript('examples/tour/tour.jsonl'));
 * await runAgentLoop([userMessage(prompt)], { provider, model: 'tour', runner });
 */
export function tourProvider(script: readonly ScriptEntry[]): ModelProvider {
  // The scripted provider reads the n-th entry when the n-th request comes: each is filled in
  // just before that, from the messages the request carries.
  const filled: ScriptEntry[] = [];
  const scripted = createScriptedProvider(filled);
  return {
    id: 'scripted',
    stream(request, signal) {
      const next = script[filled.length];
      if (next !== undefined) filled.push(fillReply(next, request.messages));
      return scripted.stream(request, signal);
    },
  };
}

const PLACEHOLDER = /\{\{(spill|outcome):([^{}\s]+)\}\}/g;
/**
 * How a cut result names the file holding the full output: the kernel's notice ends
 * "Full output: PATH]", its size backstop says "Full output: PATH (read it with offset=…)".
 */
const FULL_OUTPUT = /Full output: ([^\n]+)/g;

/** One reply with its placeholders filled from `messages`, or an error reply saying which one could not be. */
export function fillReply(entry: ScriptEntry, messages: readonly Message[]): ScriptEntry {
  try {
    return { ...entry, content: entry.content.map((block) => fillBlock(block, messages)) };
  } catch (error) {
    if (!(error instanceof PlaceholderError)) throw error;
    return { content: [], stopReason: 'error', errorMessage: error.message };
  }
}

class PlaceholderError extends Error {}

function fillBlock(block: ScriptBlock, messages: readonly Message[]): ScriptBlock {
  if (block.type === 'text') return { ...block, text: fillText(block.text, messages) };
  if (block.type === 'thinking') return { ...block, thinking: fillText(block.thinking, messages) };
  return {
    ...block,
    ...(block.arguments === undefined ? {} : { arguments: fillValue(block.arguments, messages) }),
    ...(block.argumentsText === undefined ? {} : { argumentsText: fillText(block.argumentsText, messages) }),
  };
}

function fillValue(value: unknown, messages: readonly Message[]): unknown {
  if (typeof value === 'string') return fillText(value, messages);
  if (Array.isArray(value)) return value.map((v) => fillValue(v, messages));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillValue(v, messages)]));
  return value;
}

function fillText(text: string, messages: readonly Message[]): string {
  return text.replace(PLACEHOLDER, (_whole, kind: 'spill' | 'outcome', id: string) => {
    const result = messages.find((m): m is ToolResultMessage => m.role === 'toolResult' && m.toolCallId === id);
    if (result === undefined) throw new PlaceholderError(`The tour script refers to call ${id}, which has no result yet. Refer only to calls of earlier replies.`);
    if (kind === 'outcome') return result.outcome;
    const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    const named = [...text.matchAll(FULL_OUTPUT)].at(-1)?.[1];
    const path = named === undefined ? undefined : existingFile(named);
    if (path === undefined) throw new PlaceholderError(`The tour script reads the spill file of call ${id}, but that call's result (${result.outcome}) names no full-output file: its output was not cut.`);
    return path;
  });
}

/**
 * The file at the start of `text`: a path may hold spaces and brackets, and the wording after it
 * varies, so each place a word ends is tried and the longest prefix naming a file wins.
 */
function existingFile(text: string): string | undefined {
  let found: string | undefined;
  for (let end = 1; end <= text.length; end++) {
    if (end < text.length && !/[\s\]]/.test(text[end]!)) continue;
    const candidate = text.slice(0, end);
    try {
      if (statSync(candidate).isFile()) found = candidate;
    } catch {
      // Not a file (yet): a longer prefix may be.
    }
  }
  return found;
}
