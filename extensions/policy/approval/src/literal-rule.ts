import type { Resource } from '@airlock/kernel';

/**
 * The rules that allow exactly this call and nothing wider, for "allow for this session" and
 * "always allow". Glob characters in the call are escaped, so saving `ls *.ts` allows that
 * command, not every `ls … .ts`.
 *
 * - bash: `bash(<the command, whitespace runs as one space>)`;
 * - a call that declares files or hosts: one rule per resource, `fs.write(//real/path)` …
 *   (`//` anchors at the file system's root; the real path the tool reported, so a symlink
 *   cannot stretch it);
 * - anything else: the tool's name, which allows every call of that tool; `broad` says so, and
 *   the prompt tells the person before they choose.
 *
 * @example literalRules('bash', { command: 'ls *.ts' }, []) // { rules: ['bash(ls \\*.ts)'], broad: false }
 */
export function literalRules(tool: string, args: unknown, resources: readonly Resource[]): { rules: string[]; broad: boolean } {
  const command = tool === 'bash' ? (args as { command?: unknown } | undefined)?.command : undefined;
  if (typeof command === 'string' && command.trim() !== '') {
    return { rules: [`bash(${escapeGlob(command.trim().replace(/\s+/g, ' '))})`], broad: false };
  }
  const rules: string[] = [];
  for (const resource of resources) {
    const rule = resourceRule(resource);
    if (rule !== undefined && !rules.includes(rule)) rules.push(rule);
  }
  if (rules.length > 0) return { rules, broad: false };
  return { rules: [tool], broad: true };
}

function resourceRule(resource: Resource): string | undefined {
  switch (resource.kind) {
    case 'fs.read':
    case 'fs.write':
      // In path rules "/x" is relative to the workspace roots; "//x" is the absolute path.
      return `${resource.kind}(${resource.path.startsWith('/') ? '/' : ''}${escapeGlob(resource.path)})`;
    case 'net':
      return `net(${escapeGlob(resource.host)})`;
    case 'exec':
      return `exec(${escapeGlob(resource.command)})`;
    default:
      return undefined;
  }
}

/** A backslash makes the next character literal in every rule pattern (paths, commands, hosts). */
export function escapeGlob(text: string): string {
  return text.replace(/[\\*?[\]{}()]/g, '\\$&');
}
