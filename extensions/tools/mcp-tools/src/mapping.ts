import type { McpTool } from './connection.js';
import type { ServerConfig } from './options.js';
import { nameGlob } from './name-glob.js';

/** What an argument can be judged as. */
export type Kind = 'fs.read' | 'fs.write' | 'net';

/** Argument name → the kinds the policy judges it as (usually one). */
export type ArgumentKinds = Readonly<Record<string, readonly Kind[]>>;

/** How the policy judges one tool of a server, worked out once at load from its settings and annotations. */
export interface ToolJudgement {
  /** The arguments judged as resources; empty when no mapping names one. */
  readonly kinds: ArgumentKinds;
  /** No mapping names its arguments and the server does not mark it read-only: nobody knows what it does. */
  readonly unknownEffects: boolean;
  /** Which mapping judged it, or why none did: for `policy explain`. */
  readonly judgedBy: string;
}

/** Problems with a server's mappings, said once at load (per tool list). */
export interface MappingNotes {
  /** The old server-wide form is in use. */
  legacy: boolean;
  /** By-name and glob keys that match no tool of the server. */
  unmatched: string[];
  /** Tools whose `fs.read` from a glob (or the old form) is judged as `fs.write` too: name → the entries. */
  widened: Map<string, string[]>;
  /** Tools mapped by name as reads although the server does not mark them read-only: name → why. */
  readButWrites: Map<string, string>;
  /** Arguments a by-name entry maps that the tool does not take: tool → arguments. */
  missingArguments: Map<string, string[]>;
  /** Tools with unknown effects. */
  unknown: string[];
}

type Settings = ServerConfig['resources'];

/** The key the old server-wide form goes by in judgedBy and notes. */
const SERVER_WIDE = '(server-wide)';

/** The entries of a server's `resources`: by tool name or glob (objects), and the old server-wide form (strings). */
function entries(settings: Settings): { perTool: [string, Readonly<Record<string, Kind>>][]; serverWide: Record<string, Kind> } {
  const perTool: [string, Readonly<Record<string, Kind>>][] = [];
  const serverWide: Record<string, Kind> = {};
  for (const [key, value] of Object.entries(settings ?? {})) {
    if (typeof value === 'string') serverWide[key] = value;
    else perTool.push([key, value]);
  }
  return { perTool, serverWide };
}

/** Whether the settings use the old server-wide form (`{"path": "fs.read"}`) anywhere. */
export function usesServerWideForm(settings: Settings): boolean {
  return Object.keys(entries(settings).serverWide).length > 0;
}

/** The tool's top-level argument names, or undefined when its schema does not list them. */
function argumentsOf(tool: McpTool): Set<string> | undefined {
  const properties = (tool.inputSchema as { properties?: unknown } | undefined)?.properties;
  return typeof properties === 'object' && properties !== null ? new Set(Object.keys(properties)) : undefined;
}

/**
 * How the policy judges `tool` of `server`:
 *
 * - An entry keyed by the tool's name (the server's own, or `<server>__<tool>`) says what it
 *   does, and is taken at its word.
 * - An entry keyed by a glob (`read_*`, `*`), and the old server-wide form (argument → kind at the
 *   top of `resources`), says what tools do in general. It applies to the arguments a tool takes;
 *   for a tool the server does not mark read-only, a read it maps is judged as a write as well, so
 *   a general "path is read" never lets a writing tool past write rules.
 * - Entries that apply are joined: an argument is judged as every kind they give it.
 * - A tool no entry maps is judged by its name. When the server does not mark it read-only
 *   (`readOnlyHint`, believed unless `trustAnnotations` is false) its effects are unknown.
 *
 * @example
 * judgementFor('fs', { name: 'write_file', inputSchema: { type: 'object', properties: { path: {} } } }, { '*': { path: 'fs.read' } }, true, notes)
 * // { kinds: { path: ['fs.read', 'fs.write'] }, unknownEffects: false, judgedBy: '…' }
 */
export function judgementFor(server: string, tool: McpTool, settings: Settings, trustAnnotations: boolean, notes: MappingNotes): ToolJudgement {
  const { perTool, serverWide } = entries(settings);
  const takes = argumentsOf(tool);
  const readOnly = trustAnnotations && tool.annotations?.readOnlyHint === true;
  const kinds = new Map<string, Set<Kind>>();
  const add = (argument: string, kind: Kind) => {
    const set = kinds.get(argument) ?? new Set<Kind>();
    set.add(kind);
    kinds.set(argument, set);
  };
  const exactKeys: string[] = [];
  const generalKeys: string[] = [];
  const widenedBy: string[] = [];
  const airlockName = `${server}__${tool.name}`;
  const general = (key: string, map: Readonly<Record<string, Kind>>) => {
    let applied = false;
    for (const [argument, kind] of Object.entries(map)) {
      if (takes !== undefined && !takes.has(argument)) continue;
      applied = true;
      add(argument, kind);
      if (kind === 'fs.read' && !readOnly) {
        add(argument, 'fs.write');
        widenedBy.push(key);
      }
    }
    if (applied) generalKeys.push(key);
  };
  for (const [key, map] of perTool) {
    if (key === tool.name || key === airlockName) {
      exactKeys.push(key);
      for (const [argument, kind] of Object.entries(map)) add(argument, kind);
      const missing = takes === undefined ? [] : Object.keys(map).filter((a) => !takes.has(a));
      if (missing.length > 0) notes.missingArguments.set(tool.name, missing);
    } else if (nameGlob(key)(tool.name) || nameGlob(key)(airlockName)) general(key, map);
  }
  if (Object.keys(serverWide).length > 0) general(SERVER_WIDE, serverWide);
  if (widenedBy.length > 0) notes.widened.set(tool.name, [...new Set(widenedBy)]);

  const result: Record<string, Kind[]> = {};
  for (const [argument, set] of kinds) result[argument] = [...set];
  const mapped = Object.keys(result).length > 0;
  if (exactKeys.length > 0 && tool.annotations?.readOnlyHint !== true) {
    const onlyReads = Object.values(result).some((k) => k.includes('fs.read')) && !Object.values(result).some((k) => k.includes('fs.write'));
    if (onlyReads) notes.readButWrites.set(tool.name, tool.annotations?.destructiveHint === true ? 'marks it destructive (destructiveHint)' : 'does not mark it read-only (readOnlyHint)');
  }
  const where = `mcpServers.${server}.resources`;
  if (mapped) {
    const keys = [...exactKeys, ...generalKeys].map((k) => (k === SERVER_WIDE ? `${where} (the server-wide form)` : `${where}[${JSON.stringify(k)}]`)).join(' and ');
    const widened = widenedBy.length > 0 ? ` (a read from ${widenedBy.includes(SERVER_WIDE) ? 'the server-wide form' : 'a glob'} is judged as a write too: the server does not mark ${tool.name} read-only)` : '';
    return { kinds: result, unknownEffects: false, judgedBy: `${keys}, as ${JSON.stringify(result)}${widened}` };
  }
  const unknownEffects = !readOnly;
  if (unknownEffects) notes.unknown.push(tool.name);
  const why = readOnly
    ? 'the server marks it read-only (readOnlyHint)'
    : trustAnnotations
      ? 'the server does not mark it read-only, so its effects are unknown'
      : 'its effects are unknown (trustAnnotations is false, so read-only marks are not believed)';
  return { kinds: {}, unknownEffects, judgedBy: `its name only: no entry of ${where} maps its arguments, and ${why}` };
}

/** The by-name and glob keys of `resources` that match none of `tools` (a misspelt name maps nothing). */
export function unmatchedKeys(server: string, settings: Settings, tools: readonly McpTool[]): string[] {
  return entries(settings)
    .perTool.map(([key]) => key)
    .filter((key) => !tools.some((t) => nameGlob(key)(t.name) || nameGlob(key)(`${server}__${t.name}`)));
}

/** Empty notes, to be filled by judgementFor for each tool of one list. */
export function newNotes(): MappingNotes {
  return { legacy: false, unmatched: [], widened: new Map(), readButWrites: new Map(), missingArguments: new Map(), unknown: [] };
}

/** At most `n` names, then how many more. */
function some(names: readonly string[], n = 6): string {
  return names.length <= n ? names.join(', ') : `${names.slice(0, n).join(', ')} and ${names.length - n} more`;
}

/**
 * What to say at load about one server's mappings, one line per kind of problem, each with what
 * to do. Empty when there is nothing to say.
 */
export function noteLines(server: string, notes: MappingNotes): string[] {
  const where = `mcpServers.${server}.resources`;
  const out: string[] = [];
  if (notes.legacy) {
    out.push(
      `MCP server "${server}": ${where} maps arguments for every tool of the server (the old form, e.g. {"path": "fs.read"}). ` +
        'It still applies, but only to tools that take the argument, and a read it gives a tool the server does not mark read-only is judged as a write too. ' +
        `Map each tool by name instead, e.g. {"read_file": {"path": "fs.read"}, "write_file": {"path": "fs.write"}} (see the @airlock/mcp-tools README).`,
    );
  }
  if (notes.unmatched.length > 0) {
    out.push(`MCP server "${server}": ${notes.unmatched.map((k) => `${where}[${JSON.stringify(k)}]`).join(', ')} ${notes.unmatched.length === 1 ? 'matches' : 'match'} none of its tools, so ${notes.unmatched.length === 1 ? 'it maps' : 'they map'} nothing (check the names against \`airlock tools\`; keys are the server's own tool names or globs over them).`);
  }
  if (notes.widened.size > 0) {
    out.push(
      `MCP server "${server}": ${some([...notes.widened.keys()])} ${notes.widened.size === 1 ? 'is' : 'are'} mapped as reads by a glob or the server-wide form, ` +
        `but the server does not mark ${notes.widened.size === 1 ? 'it' : 'them'} read-only: ${notes.widened.size === 1 ? 'its' : 'their'} mapped paths are judged as reads and writes. Map ${notes.widened.size === 1 ? 'it' : 'each'} by name in ${where} to say what it does.`,
    );
  }
  for (const [tool, why] of notes.readButWrites) {
    out.push(
      `MCP server "${server}": ${where}["${tool}"] maps ${tool} as a read (fs.read), but the server ${why}: ` +
        'write rules and the protection of files that run code never see what it writes. If it writes, map the argument to fs.write.',
    );
  }
  for (const [tool, args] of notes.missingArguments) {
    out.push(`MCP server "${server}": ${where}["${tool}"] maps ${args.map((a) => `"${a}"`).join(', ')}, which ${tool} does not take (check the spelling against its input schema).`);
  }
  if (notes.unknown.length > 0) {
    out.push(
      `MCP server "${server}": ${some(notes.unknown)} ${notes.unknown.length === 1 ? 'has' : 'have'} no resources mapping and ${notes.unknown.length === 1 ? 'is' : 'are'} not marked read-only: ` +
        `${notes.unknown.length === 1 ? 'its calls ask' : 'their calls ask'} (default:unknown-effects) unless a rule names ${notes.unknown.length === 1 ? 'it' : 'them'}. ` +
        `Map ${notes.unknown.length === 1 ? 'its' : 'their'} arguments in ${where}, or allow or deny ${notes.unknown.length === 1 ? 'it' : 'them'} by name (e.g. allow: ["${server}__${notes.unknown[0]}"]).`,
    );
  }
  return out;
}
