import type { Resource } from '@airlock/contract';

/**
 * May a call that touches these resources change what a later call of its batch would touch?
 * Yes when it writes a file, or runs a process (a process may do anything) unless its tool analysed
 * the command and found it only reads (`touches` with no writes).
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
    const r = resources[i]!;
    if (r.kind === 'fs.write') return true;
    // A process whose tool listed every file it touches changes only the files it writes.
    if (r.kind === 'exec' && (r.touches === undefined || r.touches.writes.length > 0)) return true;
  }
  return false;
}
