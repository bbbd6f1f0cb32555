import type { ToolSelection } from '../registry.js';
import { closestNames } from '../suggest.js';
import type { CallState } from './state.js';
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

const MAX_LISTED = 40;

function notFoundText(name: string, selection: ToolSelection): string {
  const enabled = selection.enabled.map((entry) => entry.tool.name);
  const shown = typeof name === 'string' && name.length > 0 ? `"${name}"` : '(no name given)';
  const lines: string[] = [];
  if (selection.excluded.has(name)) {
    lines.push(`Tool ${shown} is not available in this session: ${selection.explain(name)}`);
  } else {
    lines.push(`Tool ${shown} not found.`);
  }
  const close = closestNames(String(name ?? ''), enabled);
  if (close.length > 0) lines.push(`Did you mean: ${close.join(', ')}?`);
  if (enabled.length === 0) lines.push('No tools are enabled in this session; answer without tools.');
  else {
    const listed = enabled.slice(0, MAX_LISTED).join(', ');
    lines.push(`Available tools: ${listed}${enabled.length > MAX_LISTED ? `, … (${enabled.length - MAX_LISTED} more)` : ''}.`);
  }
  return lines.join(' ');
}
