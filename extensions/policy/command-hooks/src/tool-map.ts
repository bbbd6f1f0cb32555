type Input = Record<string, unknown>;

/**
 * Turns a path as the model wrote it into the absolute path of the file the call opens (links
 * followed): what every field of `tool_input` that names a file holds. See hook-input.ts.
 */
export type PathTarget = (written: string) => string;

/**
 * How one Airlock tool looks to a Claude Code hook: its name there, its arguments as that tool's
 * `tool_input`, and the way back for a hook's `updatedInput` (which replaces the whole input).
 * The way back refuses a field it cannot carry over, so a rewrite never silently loses a part.
 */
export interface ToolMapping {
  /** The `tool_name` a hook sees and its matcher is tested against. */
  readonly ccName: string;
  /** The `tool_input` field that names the file or folder the call opens (from the `path` argument), when the tool has one. */
  readonly pathField?: 'file_path' | 'path';
  /** `target` resolves the path argument: `tool_input` names the file the tool will really open. */
  toCC(args: Readonly<Input>, target: PathTarget): Input;
  /** Throws with a message naming the field when `input` cannot become this tool's arguments. */
  fromCC(input: Readonly<Input>): Input;
}

/** Copies `keys` (CC name → Airlock name) that are present; refuses any other key of `input`. */
function pick(tool: string, input: Readonly<Input>, keys: Record<string, string>, drop: readonly string[] = []): Input {
  const out: Input = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined || drop.includes(key)) continue;
    const to = keys[key];
    if (to === undefined) {
      throw new Error(`updatedInput for ${tool} has the field "${key}", which Airlock's tool cannot take; the fields it maps are ${Object.keys(keys).join(', ')}.`);
    }
    out[to] = value;
  }
  return out;
}

/** `{ a: 1, b: undefined }` → `{ a: 1 }`: absent optional fields stay absent in the hook's JSON. */
function defined(input: Input): Input {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
}

const at = (path: unknown, target: PathTarget): unknown => (typeof path === 'string' && path.trim() !== '' ? target(path) : path);

/** bash's timeout is seconds, Claude Code's Bash timeout milliseconds. */
const bash: ToolMapping = {
  ccName: 'Bash',
  toCC: (a) => defined({ command: a.command, timeout: typeof a.timeout === 'number' ? a.timeout * 1000 : undefined, run_in_background: a.background }),
  fromCC(input) {
    const out = pick('Bash', input, { command: 'command', timeout: 'timeout', run_in_background: 'background' }, ['description']);
    if (typeof out.timeout === 'number') out.timeout = Math.ceil(out.timeout / 1000);
    return out;
  },
};

const read: ToolMapping = {
  ccName: 'Read',
  pathField: 'file_path',
  toCC: (a, target) => defined({ file_path: at(a.path, target), offset: a.offset, limit: a.limit }),
  fromCC: (input) => pick('Read', input, { file_path: 'path', offset: 'offset', limit: 'limit' }),
};

const write: ToolMapping = {
  ccName: 'Write',
  pathField: 'file_path',
  toCC: (a, target) => ({ file_path: at(a.path, target), content: a.content }),
  fromCC: (input) => pick('Write', input, { file_path: 'path', content: 'content' }),
};

interface Replacement {
  oldText: unknown;
  newText: unknown;
}

/** One CC edit `{old_string, new_string, replace_all?}` as Airlock's `{oldText, newText}`. */
function replacementFromCC(edit: unknown): Replacement {
  if (edit === null || typeof edit !== 'object') throw new Error('updatedInput for Edit has an edit that is not an object.');
  const e = edit as Input;
  if (e.replace_all === true) throw new Error("updatedInput for Edit sets replace_all: true; Airlock's edit replaces exactly one occurrence per edit. List each occurrence as its own edit.");
  const out = pick('Edit', e, { old_string: 'oldText', new_string: 'newText' }, ['replace_all']);
  return { oldText: out.oldText, newText: out.newText };
}

/**
 * One replacement is Claude Code's `Edit` input; several are `{file_path, edits: [...]}` (the
 * legacy MultiEdit shape) under the name `Edit`, so an `Edit|Write` matcher still sees them.
 */
const edit: ToolMapping = {
  ccName: 'Edit',
  pathField: 'file_path',
  toCC(a, target) {
    const edits = (Array.isArray(a.edits) ? a.edits : []) as readonly Replacement[];
    const cc = edits.map((e) => ({ old_string: e.oldText, new_string: e.newText, replace_all: false }));
    if (cc.length === 1) return { file_path: at(a.path, target), ...cc[0] };
    return { file_path: at(a.path, target), edits: cc };
  },
  fromCC(input) {
    const { file_path, edits, ...single } = input;
    if (edits !== undefined) {
      if (Object.keys(single).some((k) => single[k] !== undefined)) throw new Error('updatedInput for Edit has both "edits" and a single old_string/new_string; give one or the other.');
      if (!Array.isArray(edits)) throw new Error('updatedInput for Edit has "edits" that is not a list.');
      return { path: file_path, edits: edits.map(replacementFromCC) };
    }
    return { path: file_path, edits: [replacementFromCC(single)] };
  },
};

const grep: ToolMapping = {
  ccName: 'Grep',
  pathField: 'path',
  toCC: (a, target) =>
    defined({ pattern: a.pattern, path: at(a.path, target), glob: a.glob, '-i': a.ignoreCase, '-C': a.context, head_limit: a.limit, output_mode: 'content', literal: a.literal }),
  fromCC(input) {
    if (input.output_mode !== undefined && input.output_mode !== 'content') {
      throw new Error(`updatedInput for Grep asks for output_mode "${String(input.output_mode)}"; Airlock's grep shows matching lines ("content") only.`);
    }
    return pick('Grep', input, { pattern: 'pattern', path: 'path', glob: 'glob', '-i': 'ignoreCase', '-C': 'context', context: 'context', head_limit: 'limit', literal: 'literal' }, ['output_mode', '-n']);
  },
};

const find: ToolMapping = {
  ccName: 'Glob',
  pathField: 'path',
  toCC: (a, target) => defined({ pattern: a.pattern, path: at(a.path, target), limit: a.limit }),
  fromCC: (input) => pick('Glob', input, { pattern: 'pattern', path: 'path', limit: 'limit' }),
};

const ls: ToolMapping = {
  ccName: 'LS',
  pathField: 'path',
  toCC: (a, target) => defined({ path: at(a.path, target), limit: a.limit }),
  fromCC: (input) => pick('LS', input, { path: 'path', limit: 'limit' }, ['ignore']),
};

const BUILT_IN: Readonly<Record<string, ToolMapping>> = { bash, read, write, edit, grep, find, ls };

/** A tool Claude Code does not know: its own name, its arguments as they are. */
function passThrough(name: string): ToolMapping {
  return { ccName: name, toCC: (a) => ({ ...a }), fromCC: (input) => ({ ...input }) };
}

/**
 * The mapping for an Airlock tool name: `bash` ↔ `Bash`, `read` ↔ `Read`, `edit` ↔ `Edit`,
 * `write` ↔ `Write`, `grep` ↔ `Grep`, `find` ↔ `Glob`, `ls` ↔ `LS`; any other tool keeps its name
 * and its arguments.
 *
 * @example
 * mappingFor('read').toCC({ path: 'src/a.ts' }, (p) => `/work/${p}`) // { file_path: '/work/src/a.ts' }
 */
export function mappingFor(toolName: string): ToolMapping {
  return Object.hasOwn(BUILT_IN, toolName) ? BUILT_IN[toolName]! : passThrough(toolName);
}
