import { createHash } from 'node:crypto';

/**
 * Airlock's name for a server's tool: `<server>__<tool>`, in the characters every provider takes
 * and the kernel requires (lowercase letters, digits, `_`, `-`; at most 64). `getUser` becomes
 * `get_user`, other characters become `_`; a name still too long keeps its start and gets a short
 * hash of the whole, so two long names never collapse into one.
 *
 * @example airlockToolName('GitHub', 'createIssue') // 'github__create_issue'
 */
export function airlockToolName(server: string, tool: string): string {
  const name = `${safePart(server, false)}__${safePart(tool, true)}`;
  if (name.length <= MAX) return name;
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX - 9)}_${hash}`;
}

const MAX = 64;

/** One part in lowercase (`camelCase` → `camel_case` when `splitCamel`: tool names are, server names are usually not), never empty. */
export function safePart(part: string, splitCamel: boolean): string {
  const snake = (splitCamel ? part.replace(/([a-z0-9])([A-Z])/g, '$1_$2') : part)
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return snake === '' ? 'x' : snake;
}
