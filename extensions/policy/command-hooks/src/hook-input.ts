import type { Resource } from '@airlock/contract';
import { openTargetSync, resolveToolPath } from '@airlock/tool-common';
import type { PathTarget, ToolMapping } from './tool-map.js';

type Input = Record<string, unknown>;

/**
 * What the hooks of one call are shown: `tool_input`, whose fields that name a file hold the file
 * the tool will really open (absolute, links followed, a dangling link to the file it would
 * create), and `tool_input_as_written`, the same fields as the model wrote them. A hook that
 * refuses writes under `protected/` must see `protected/x.txt` when the model writes `p2/x.txt`
 * through a link `p2 → protected`, or its rule does not hold; a hook that cares about the
 * spelling reads the second field.
 */
export interface ShownInput {
  readonly toolInput: Input;
  /** Each path field of `toolInput` as the model wrote it; undefined when no field names a path. */
  readonly asWritten: Input | undefined;
}

/**
 * Paths resolved as the built-in tools resolve them right now (tool-common's openTargetSync):
 * what the transform phase has, before the kernel asks the tool for its resources.
 *
 * @example targetNow('/w')('p2/x.txt') // '/w/protected/x.txt' when p2 links to protected
 */
export function targetNow(cwd: string): PathTarget {
  return (written) => {
    try {
      return openTargetSync(written, cwd);
    } catch {
      // An empty path or a NUL byte: the tool refuses it before touching the disk.
      return written;
    }
  };
}

/**
 * Paths as the call's declared resources resolve them: the `path` (the file the tool opens) of the
 * file resource whose `written` is this spelling, else as {@link targetNow} resolves it. From the
 * authorize phase on, these are exactly what path-policy and every other guard judge, also when a
 * batch judges the call again after an earlier call changed the files.
 */
export function targetFromResources(resources: readonly Resource[], cwd: string): PathTarget {
  const now = targetNow(cwd);
  return (written) => {
    for (const r of resources) if ((r.kind === 'fs.read' || r.kind === 'fs.write') && r.written === written) return r.path;
    return now(written);
  };
}

/**
 * The input shown to the hooks of a call to the tool `mapping` describes.
 *
 * A built-in tool's path field holds the resolved target. Any other tool (an MCP server's, a
 * third-party extension's) keeps its arguments as the model sent them, as Claude Code shows MCP
 * tools; but where one of its declared file resources leads somewhere else than its spelling says
 * (a symlink on the way, a spelling variant), that argument is shown resolved too, so a hook on
 * such a tool is never shown a name that hides the real file.
 *
 * @example
 * shownInput(mappingFor('write'), { path: 'p2/x.txt', content: 'x' }, target)
 * // { toolInput: { file_path: '/w/protected/x.txt', content: 'x' }, asWritten: { file_path: 'p2/x.txt' } }
 */
export function shownInput(mapping: ToolMapping, args: Readonly<Input>, target: PathTarget, resources: readonly Resource[] = [], cwd?: string): ShownInput {
  const toolInput = mapping.toCC(args, target);
  if (mapping.pathField !== undefined) {
    const written = args.path;
    return { toolInput, asWritten: typeof written === 'string' && written.trim() !== '' ? { [mapping.pathField]: written } : undefined };
  }
  if (cwd === undefined || resources.length === 0) return { toolInput, asWritten: undefined };
  return linkedArguments(toolInput, resources, cwd);
}

/** Top-level string arguments (or strings in a top-level list) that a file resource resolves elsewhere, shown resolved. */
function linkedArguments(input: Input, resources: readonly Resource[], cwd: string): ShownInput {
  const leads = new Map<string, string>();
  for (const r of resources) {
    if ((r.kind !== 'fs.read' && r.kind !== 'fs.write') || r.written === undefined) continue;
    let spelled: string;
    try {
      spelled = resolveToolPath(r.written, cwd);
    } catch {
      continue;
    }
    if (r.path !== spelled) leads.set(r.written, r.path);
  }
  if (leads.size === 0) return { toolInput: input, asWritten: undefined };
  const shown: Input = { ...input };
  const asWritten: Input = {};
  for (const [key, value] of Object.entries(input)) {
    if (typeof value === 'string' && leads.has(value)) {
      shown[key] = leads.get(value);
      asWritten[key] = value;
    } else if (Array.isArray(value) && value.some((v) => typeof v === 'string' && leads.has(v))) {
      shown[key] = value.map((v) => (typeof v === 'string' ? (leads.get(v) ?? v) : v));
      asWritten[key] = value;
    }
  }
  return Object.keys(asWritten).length === 0 ? { toolInput: input, asWritten: undefined } : { toolInput: shown, asWritten };
}

/** The fields of a hook's stdin JSON that carry a ShownInput. */
export function inputFields(shown: ShownInput): Input {
  return { tool_input: shown.toolInput, ...(shown.asWritten === undefined ? {} : { tool_input_as_written: shown.asWritten }) };
}

/** One string per distinct ShownInput: two calls are shown the same thing exactly when their keys are equal. */
export function shownKey(shown: ShownInput): string {
  return JSON.stringify([shown.toolInput, shown.asWritten ?? null]);
}
