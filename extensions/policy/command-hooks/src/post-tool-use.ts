import type { Content, ResultPatch, ToolResultEvent } from '@airlock/contract';
import { readAnswer } from './answer.js';
import { hookLabel, type CompiledHook } from './hook-set.js';
import type { ToolEvent } from './options.js';
import { inputFields, shownInput, targetNow } from './hook-input.js';
import { contentText, hookInput, toolResponse } from './payload.js';
import type { PreDeps, VerdictStore } from './pre-tool-use.js';
import { runHook } from './run-hook.js';
import { mappingFor } from './tool-map.js';

/**
 * Claude Code fires PostToolUse when a tool succeeded and PostToolUseFailure when it failed
 * (threw, timed out); a call that was denied, invalid, unknown or aborted fires neither.
 */
export function postEventOf(outcome: ToolResultEvent['outcome']): ToolEvent | undefined {
  if (outcome === 'ok') return 'PostToolUse';
  if (outcome === 'error' || outcome === 'timeout') return 'PostToolUseFailure';
  return undefined;
}

/**
 * The tool_result transform: runs the call's PostToolUse / PostToolUseFailure hooks and appends to
 * what the model sees what they said (exit 2's stderr, `decision: "block"`'s reason,
 * `additionalContext`) and the PreToolUse hooks' `additionalContext`. The tool already ran, so
 * nothing is undone. A failed hook whose failure mode is closed withholds the result.
 */
export function postToolUseHandler(deps: PreDeps, verdicts: VerdictStore) {
  return async (event: ToolResultEvent): Promise<ResultPatch | undefined> => {
    if (event.partial) return undefined;
    const pre = verdicts.take(event.toolCallId);
    const notes = (pre?.context ?? []).map((c) => `PreToolUse hook context: ${c}`);
    const name = postEventOf(event.outcome);
    const mapping = mappingFor(event.toolName);
    const hooks = name === undefined ? [] : deps.hooks.matching(name, mapping.ccName);
    if (name !== undefined && hooks.length > 0) {
      // What the PreToolUse hooks were last shown (paths as the policy judged them); without them, resolved now.
      const shown = pre?.shown ?? shownInput(mapping, event.args ?? {}, targetNow(deps.facts.cwd));
      const toolInput = shown.toolInput;
      const fields: Record<string, unknown> = { tool_name: mapping.ccName, ...inputFields(shown), tool_use_id: event.toolCallId, duration_ms: event.durationMs };
      if (name === 'PostToolUse') fields.tool_response = toolResponse(mapping.ccName, toolInput, event.content);
      else fields.error = contentText(event.content);
      const input = hookInput(deps.facts, name, fields);
      const said = await Promise.all(hooks.map((hook) => postOne(deps, hook, name, input, event.signal)));
      const withheld = said.find((s) => s.withhold !== undefined);
      if (withheld !== undefined) {
        return { content: [{ type: 'text', text: withheld.withhold! }], details: undefined, isError: true };
      }
      for (const s of said) notes.push(...s.notes);
    }
    if (notes.length === 0) return undefined;
    const added: Content[] = notes.map((text) => ({ type: 'text', text }));
    return { content: [...event.content, ...added] };
  };
}

async function postOne(deps: PreDeps, hook: CompiledHook, name: ToolEvent, input: string, signal: AbortSignal | undefined): Promise<{ notes: string[]; withhold?: string }> {
  const label = hookLabel(hook);
  const answer = readAnswer(await runHook(deps.runner, hook.command, input, hook.timeoutMs, signal), name);
  if (answer.kind === 'failure') {
    if (hook.failure === 'closed') return { notes: [], withhold: `The result is withheld: ${name} hook "${label}" failed (${answer.problem}), and its failure mode is "closed".` };
    deps.log.warn(`${name} hook "${label}" failed (${answer.problem}); the result goes on unchanged.`);
    return { notes: [] };
  }
  const out = answer.output;
  if (out?.systemMessage !== undefined) deps.log.warn(`${name} hook "${label}": ${out.systemMessage}`);
  const notes: string[] = [];
  if (answer.blocking !== undefined) notes.push(`${name} hook feedback: ${answer.blocking}`);
  else if (out?.decision === 'block') notes.push(`${name} hook feedback: ${out.reason ?? 'the hook flagged this result'}`);
  const context = out?.hookSpecificOutput?.additionalContext;
  if (context !== undefined && context !== '') notes.push(`${name} hook context: ${context}`);
  return { notes };
}
