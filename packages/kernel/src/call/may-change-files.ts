import type { CallState } from './state.js';

/**
 * May this call, once it runs, change what a later call of its batch would touch?
 *
 * A call counts as possibly changing the filesystem when its tool declares an `fs.write` or an
 * `exec` resource for it (a process may do anything), or when its tool declares no `resources`
 * at all: the kernel cannot tell a third-party tool that only reads from one that writes, and
 * guessing "only reads" would let such a tool plant a symlink that a later read follows. A tool
 * that wants its calls to run side by side says what they touch — `fs.read` / `net` resources,
 * or an empty list for a call that touches nothing.
 *
 * @example
 *   mayChangeFiles(stateOf(bash, { command: 'ln -s ~/.ssh/id_rsa k' }))  // true: exec
 *   mayChangeFiles(stateOf(read, { path: 'README.md' }))                // false: fs.read only
 */
export function mayChangeFiles(state: CallState): boolean {
  if (state.tool?.tool.resources === undefined) return true;
  for (const resource of state.resources) {
    if (resource.kind === 'fs.write' || resource.kind === 'exec') return true;
  }
  return false;
}
