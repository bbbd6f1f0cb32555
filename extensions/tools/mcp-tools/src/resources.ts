import type { Resource, ToolContext } from '@airlock/kernel';
import { realPathOrSelf, resolveExistingPathSync } from '@airlock/tool-common';

/** Argument name → resource kind, from a server's `resources` setting. */
export type ResourceMap = Readonly<Record<string, 'fs.read' | 'fs.write' | 'net'>>;

/**
 * What a call touches, from the arguments the settings map: `{"path": "fs.read"}` makes
 * `read_file({path: ".env"})` an `fs.read` of `<cwd>/.env` (links resolved, `written` as the model
 * wrote it), so every rule about files applies to a server Airlock has never heard of. An array
 * of strings is one resource per item. A mapped argument that is absent declares nothing; one
 * that is not a string (or a list of strings) throws, which the kernel turns into a refusal:
 * the policy cannot judge what it cannot read.
 *
 * @example
 * mcpResources({ path: 'fs.read' }, { path: '.env' }, ctx) // [{ kind: 'fs.read', path: '/work/.env', written: '.env' }]
 */
export function mcpResources(map: ResourceMap, args: Record<string, unknown>, ctx: Pick<ToolContext, 'cwd'>): Resource[] {
  const out: Resource[] = [];
  for (const [argument, kind] of Object.entries(map)) {
    const value = args[argument];
    if (value === undefined) continue;
    const items = Array.isArray(value) ? value : [value];
    for (const item of items) {
      if (typeof item !== 'string' || item === '')
        throw new Error(`argument "${argument}" is mapped to ${kind} in this server's settings, so it must be a non-empty string (or a list of them); got ${JSON.stringify(item)}`);
      out.push(resourceOf(kind, item, ctx.cwd));
    }
  }
  return out;
}

function resourceOf(kind: 'fs.read' | 'fs.write' | 'net', value: string, cwd: string): Resource {
  if (kind === 'net') return { kind: 'net', host: hostOf(value) };
  return { kind, path: realPathOrSelf(resolveExistingPathSync(value, cwd)), written: value };
}

/** The host of a URL, or the value itself when it is a bare host name (`example.com:443` → `example.com`). */
function hostOf(value: string): string {
  try {
    return new URL(value).hostname;
  } catch {
    return value.replace(/:\d+$/, '');
  }
}
