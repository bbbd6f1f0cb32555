import type { ToolSelection } from '../registry.js';
import { providerToolName, PROVIDER_IDS } from '@airlock/toolkit';
import { closestNames } from '@airlock/toolkit';
import type { CallState } from '../state/call-state.js';
import { notFound } from '../wording.js';
import { stop } from '../state/call-state.js';

/**
 * Stage 1: find the tool in the enabled set. A miss is a result the model can act on: it names
 * the closest enabled tools, and says so when the tool exists but is switched off (and why).
 */
export function findTool(state: CallState, selection: ToolSelection): void {
  const name = state.call.name;
  const found = typeof name === 'string' ? (selection.get(name) ?? selection.get(aliases(selection).get(name) ?? '')) : undefined;
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

/**
 * Provider-safe names (`mcp:fs/read` is sent as `mcp_fs_read`) lead back to their tool, so a
 * host that forgets to map a provider's name back still reaches the right tool. A name that two
 * tools share after sanitising leads nowhere: guessing between them would be worse than not found.
 */
const aliasCache = new WeakMap<ToolSelection, Map<string, string>>();

function aliases(selection: ToolSelection): Map<string, string> {
  let map = aliasCache.get(selection);
  if (map !== undefined) return map;
  map = new Map();
  const ambiguous = new Set<string>();
  for (const { tool } of selection.enabled) {
    for (const provider of PROVIDER_IDS) {
      const alias = providerToolName(tool.name, provider);
      if (alias === tool.name || selection.has(alias)) continue;
      const taken = map.get(alias);
      if (taken !== undefined && taken !== tool.name) ambiguous.add(alias);
      else map.set(alias, tool.name);
    }
  }
  for (const alias of ambiguous) map.delete(alias);
  aliasCache.set(selection, map);
  return map;
}
