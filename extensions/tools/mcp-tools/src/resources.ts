import type { Resource, ToolContext } from '@airlock/contract';
import { openTargetSync } from '@airlock/tool-common';
import type { Kind } from './mapping.js';

/** Argument name → the resource kind (or kinds) it is judged as. */
export type ResourceMap = Readonly<Record<string, Kind | readonly Kind[]>>;

/**
 * What a call touches, from the arguments its tool's mapping names: `{"path": "fs.read"}` makes
 * `read_file({path: ".env"})` an `fs.read` of `<cwd>/.env` (the file the path leads to, links
 * followed, and `written` as the model wrote it), so every rule about files applies to a server
 * Airlock has never heard of. An argument judged as several kinds gives one resource per kind; an
 * array of strings is one resource per item. A mapped argument that is absent declares nothing;
 * one that is not a string (or a list of strings) throws, which the kernel turns into a refusal:
 * the policy cannot judge what it cannot read.
 *
 * @example
 * mcpResources({ path: 'fs.read' }, { path: '.env' }, ctx) // [{ kind: 'fs.read', path: '/work/.env', written: '.env' }]
 */
export function mcpResources(map: ResourceMap, args: Record<string, unknown>, ctx: Pick<ToolContext, 'cwd'>): Resource[] {
  const out: Resource[] = [];
  for (const [argument, kinds] of Object.entries(map)) {
    const value = args[argument];
    if (value === undefined) continue;
    const items = Array.isArray(value) ? value : [value];
    for (const kind of typeof kinds === 'string' ? [kinds] : kinds) {
      for (const item of items) {
        if (typeof item !== 'string' || item === '')
          throw new Error(`argument "${argument}" is mapped to ${kind} in this server's settings, so it must be a non-empty string (or a list of them); got ${JSON.stringify(item)}`);
        out.push(resourceOf(kind, item, ctx.cwd));
      }
    }
  }
  return out;
}

function resourceOf(kind: Kind, value: string, cwd: string): Resource {
  if (kind === 'net') return { kind: 'net', host: hostOf(value) };
  return { kind, path: openTargetSync(value, cwd), written: value };
}

/** The host of a URL, or the value itself when it is a bare host name (`example.com:443` → `example.com`). */
function hostOf(value: string): string {
  try {
    return new URL(value).hostname;
  } catch {
    return value.replace(/:\d+$/, '');
  }
}
