import type { Resource } from '../contract/resource.js';

/**
 * May a call that touches these resources change what a later call of its batch would touch?
 * Yes when it writes a file or runs a process (a process may do anything).
 *
 * A call whose tool declares no `resources` at all never gets here: it counts as possibly
 * changing files (`CallState.mayChangeFiles` starts true). The kernel cannot tell a third-party
 * tool that only reads from one that writes, and guessing "only reads" would let such a tool
 * plant a symlink that a later read follows. A tool that wants its calls to run side by side says
 * what they touch — `fs.read` / `net` resources, or an empty list for a call that touches nothing.
 *
 * @example
 *   resourcesMayChangeFiles([{ kind: 'exec', command: 'ln -s ~/.ssh/id_rsa k' }])  // true
 *   resourcesMayChangeFiles([{ kind: 'fs.read', path: '/work/README.md' }])        // false
 */
export function resourcesMayChangeFiles(resources: readonly Resource[]): boolean {
  for (let i = 0; i < resources.length; i++) {
    const kind = resources[i]!.kind;
    if (kind === 'fs.write' || kind === 'exec') return true;
  }
  return false;
}
