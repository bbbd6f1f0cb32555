import type { Resource } from '@airlock/contract';
import { commandRule, literalRule } from '@airlock/rules';

/**
 * The rules that allow exactly this call and nothing wider, for "allow for this session" and
 * "always allow", from what the call declared it touches. Glob characters are escaped, so
 * saving `ls *.ts` allows that command, not every `ls … .ts`.
 *
 * - a command line (an `exec` resource, whatever the tool): `<tool>(<the command>)` for a tool
 *   whose rules take commands (`bash(ls \*.ts)`), else `exec(<the command>)`; whitespace runs
 *   count as one space;
 * - a file or host: `fs.write(//real/path)`, `net(host)` … (`//` anchors at the file system's
 *   root; the real path the tool reported, so a symlink cannot stretch it);
 * - a call that declares nothing: the tool's name, which allows every call of that tool; `broad`
 *   says so, and the prompt tells the person before they choose.
 *
 * @example literalRules('bash', [{ kind: 'exec', command: 'ls *.ts' }]) // { rules: ['bash(ls \\*.ts)'], broad: false }
 */
export function literalRules(tool: string, resources: readonly Resource[]): { rules: string[]; broad: boolean } {
  const rules: string[] = [];
  for (const resource of resources) {
    const rule = resourceRule(tool, resource);
    if (rule !== undefined && !rules.includes(rule)) rules.push(rule);
  }
  if (rules.length > 0) return { rules, broad: false };
  return { rules: [tool], broad: true };
}

function resourceRule(tool: string, resource: Resource): string | undefined {
  switch (resource.kind) {
    case 'fs.read':
    case 'fs.write':
      // In path rules "/x" is relative to the workspace roots; "//x" is the absolute path.
      return resource.path === '' ? undefined : literalRule(resource.kind, `${resource.path.startsWith('/') ? '/' : ''}${resource.path}`);
    case 'net':
      return resource.host.trim() === '' ? undefined : literalRule('net', resource.host);
    case 'exec':
      return resource.command.trim() === '' ? undefined : commandRule(tool, resource.command);
    default:
      return undefined;
  }
}
