import type { AnyAgentTool, Logger, ToolSet, ToolSetChange } from '@airlock/contract';
import type { Kernel, ToolSource } from '@airlock/kernel';
import { errorText } from './diagnostics.js';
import { unknownToolKeys } from './tool-checks.js';

/**
 * The host's side of `api.toolSet(name)`: tools an extension may swap after setup (an MCP
 * server's list changed). The only registration path that stays open once an extension is
 * sealed, so it is narrow: a set only ever touches the names it registered itself, every change
 * is logged, and once the extension is rolled back or the host closes it refuses to add anything.
 */

export interface ToolSetContext {
  kernel: Kernel;
  extension: string;
  origin: string;
  toolSource: ToolSource;
  log: Logger;
  /** The extension's list of registered tool names (kept in step). */
  tools: string[];
}

/** A ToolSet plus the host's handle to remove all its tools (rollback, close). */
export interface HostToolSet extends ToolSet {
  /** Remove every tool of the set and refuse later changes. */
  close(): void;
}

/**
 * @example
 * const set = createToolSet(ctx, 'github');
 * set.replace([issuesTool]); // { added: ['github__issues'], removed: [], replaced: [], refused: [] }
 */
export function createToolSet(ctx: ToolSetContext, name: string): HostToolSet {
  if (typeof name !== 'string' || name.trim() === '') throw new TypeError('api.toolSet needs a non-empty name, e.g. the MCP server the tools come from');
  const current = new Map<string, { tool: AnyAgentTool; off: () => void }>();
  let closed = false;

  const unregister = (toolName: string): void => {
    const entry = current.get(toolName);
    if (entry === undefined) return;
    entry.off();
    current.delete(toolName);
    const i = ctx.tools.indexOf(toolName);
    if (i >= 0) ctx.tools.splice(i, 1);
  };

  return {
    name,
    get names() {
      return [...current.keys()];
    },
    replace(tools) {
      const change: ToolSetChange = { added: [], removed: [], replaced: [], refused: [] };
      if (closed) {
        for (const tool of tools) change.refused.push({ name: nameOf(tool), error: `the tool set "${name}" is closed (the host closed or the extension was unloaded)` });
        return change;
      }
      const wanted = new Set(tools.map(nameOf));
      for (const old of [...current.keys()]) {
        if (wanted.has(old)) continue;
        unregister(old);
        change.removed.push(old);
      }
      for (const tool of tools) {
        const toolName = nameOf(tool);
        const previous = current.get(toolName);
        if (previous?.tool === tool) continue;
        if (previous !== undefined) unregister(toolName);
        try {
          const unknown = unknownToolKeys(tool);
          if (unknown.length > 0) throw new Error(`tool "${toolName}" has keys the kernel does not read: ${unknown.join('; ')}`);
          const off = ctx.kernel.registry.register(tool, { source: ctx.toolSource, origin: ctx.origin });
          current.set(toolName, { tool, off });
          ctx.tools.push(toolName);
          (previous === undefined ? change.added : change.replaced).push(toolName);
        } catch (error) {
          change.refused.push({ name: toolName, error: errorText(error) });
          if (previous !== undefined) change.removed.push(toolName);
        }
      }
      logChange(ctx, name, change);
      return change;
    },
    close() {
      closed = true;
      for (const toolName of [...current.keys()]) unregister(toolName);
    },
  };
}

function nameOf(tool: unknown): string {
  const name = (tool as { name?: unknown } | null)?.name;
  return typeof name === 'string' && name !== '' ? name : '?';
}

/** One line per change, so a person can see which tools a source added or took away mid-session. */
function logChange(ctx: ToolSetContext, set: string, change: ToolSetChange): void {
  const parts: string[] = [];
  if (change.added.length > 0) parts.push(`added ${change.added.join(', ')}`);
  if (change.removed.length > 0) parts.push(`removed ${change.removed.join(', ')}`);
  if (change.replaced.length > 0) parts.push(`replaced ${change.replaced.join(', ')}`);
  if (parts.length > 0) ctx.log.info(`tool set "${set}": ${parts.join('; ')}`);
  for (const r of change.refused) ctx.log.warn(`tool set "${set}": tool "${r.name}" refused: ${r.error}`);
}
