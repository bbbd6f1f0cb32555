/**
 * What a call touches, declared by the tool. Policy rules match these kinds, so a rule such as
 * `deny fs.read(**\/.env)` covers every tool that declares an fs.read, including third-party tools
 * the policy author has never heard of.
 */
export type Resource =
  | { kind: 'fs.read'; path: string; written?: string }
  | { kind: 'fs.write'; path: string; written?: string }
  | { kind: 'exec'; command: string; argv?: readonly string[]; cwd?: string; touches?: ExecTouches }
  | { kind: 'net'; host: string; port?: number; url?: string };

/**
 * An `fs.read` / `fs.write` resource names its file twice:
 *
 * - `path`: the file the tool will really open: absolute, links resolved (for a file that does not
 *   exist yet, its nearest existing folder resolved and the rest joined on);
 * - `written` (optional): the path as the model wrote it (a relative name, `~/…`, a symlink's own
 *   name), or the tool's default when the model left it out (`.` for a listing). Policy judges
 *   both, so a rule about the link the model named, or about a relative spelling, applies as well
 *   as one about the target. A tool that leaves it out is judged on `path` alone (path-policy then
 *   falls back to a string `path` argument, judged by `Tool(path)` rules only).
 *
 * @example { kind: 'fs.read', path: '/home/me/notes/todo.md', written: 'notes/today.md' } // today.md links to todo.md
 */
export type FileResource = Extract<Resource, { kind: 'fs.read' | 'fs.write' }>;

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
