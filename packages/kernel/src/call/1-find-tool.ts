import type { ToolSelection } from '../registry.js';
import { closestNames } from '../suggest.js';
import type { CallState } from './state.js';
import { notFound } from './wording.js';
import { stop } from './state.js';

/**
 * Stage 1: find the tool in the enabled set. A miss is a result the model can act on: it names
 * the closest enabled tools, and says so when the tool exists but is switched off (and why).
 */
export function findTool(state: CallState, selection: ToolSelection): void {
  const name = state.call.name;
  const found = typeof name === 'string' ? selection.get(name) : undefined;
  if (found !== undefined) {
    state.tool = found;
    return;
  }
  stop(state, 'not_found', notFoundText(name, selection));
}

function notFoundText(name: string, selection: ToolSelection): string {
  const enabled = selection.enabled.map((entry) => entry.tool.name);
  const because = selection.excluded.has(name) ? selection.explain(name) : undefined;
  return notFound(typeof name === 'string' ? name : '', because, closestNames(String(name ?? ''), enabled), enabled);
}
