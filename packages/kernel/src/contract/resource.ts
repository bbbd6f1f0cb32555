/**
 * What a call touches, declared by the tool. Policy rules match these kinds, so a rule such as
 * `deny fs.read(**\/.env)` covers every tool that declares an fs.read, including third-party tools
 * the policy author has never heard of.
 */
export type Resource =
  | { kind: 'fs.read'; path: string }
  | { kind: 'fs.write'; path: string }
  | { kind: 'exec'; command: string; argv?: readonly string[]; cwd?: string; touches?: ExecTouches }
  | { kind: 'net'; host: string; port?: number; url?: string };

export type ResourceKind = Resource['kind'];

export const RESOURCE_KINDS: readonly ResourceKind[] = ['fs.read', 'fs.write', 'exec', 'net'];

/**
 * Every file a process reads and writes, when the tool that starts it knows them all (bash after a
 * complete shell analysis). Only the batch scheduler uses it: with it, an `exec` call is ordered
 * against the calls that touch the same files and runs beside the others; without it the call is
 * a barrier. Policy never relies on it (it judges the command itself). Relative paths are taken
 * from the resource's `cwd`.
 *
 * @example { kind: 'exec', command: 'grep TODO a.txt', cwd: '/w', touches: { reads: ['/w/a.txt'], writes: [] } }
 */
export interface ExecTouches {
  reads: readonly string[];
  writes: readonly string[];
}
