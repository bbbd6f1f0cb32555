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
  const name = `${safePart(server)}__${safePart(tool)}`;
  if (name.length <= MAX) return name;
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX - 9)}_${hash}`;
}

const MAX = 64;

/** One part (server or tool) in lowercase snake case, never empty. */
export function safePart(part: string): string {
  const snake = part
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return snake === '' ? 'x' : snake;
}
