import type { FileIdentity, JudgedFile, ToolContext } from '@airlock/contract';
import { identityOf, judgedFileAt, sameIdentity } from '@airlock/toolkit/util';

/**
 * What the policy judged for one call, so execute can open exactly that.
 *
 * The policy judges the path a tool's `resources()` reports (a real path: links resolved); the
 * tool opens a file later. A process that swaps a name for a symlink in between would otherwise
 * get an unjudged file read or written. The kernel records each file resource as `resources()`
 * returns it, just before the policy judges it (and again when a batch re-judges the call), and
 * hands the record to execute as `ctx.judged()`: no tool has to remember it.
 *
 * Identity is device and inode, read with lstat: the name as judged, not a link's target.
 */

export type { FileIdentity };
/** The kernel's JudgedFile, by the name the tools have used. */
export type JudgedTarget = JudgedFile;

/**
 * `path` (a real path) as a JudgedTarget, as it is now: what a tool holds its open to when it runs
 * outside a kernel and nothing was judged.
 */
export const targetAt: (path: string) => JudgedTarget = judgedFileAt;

/**
 * What the policy judged for this call's first file resource, or undefined when nothing was
 * judged (a tool called directly, outside a kernel: no policy decision to hold it to).
 *
 * @example const judged = judgedFor(ctx) ?? targetAt(realPath);
 */
export function judgedFor(ctx: Partial<Pick<ToolContext, 'judged'>>): JudgedTarget | undefined {
  // A context made by hand (an older test harness) may lack it: then nothing was judged.
  return typeof ctx.judged === 'function' ? ctx.judged()[0] : undefined;
}

export { identityOf, sameIdentity };
