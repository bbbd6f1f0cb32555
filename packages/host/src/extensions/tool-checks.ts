import type { AnyAgentTool } from '@airlock/contract';
import { closestNames, didYouMean } from '@airlock/toolkit/util';

/**
 * What the host checks about a tool an extension registers, beyond what the kernel refuses:
 * keys the kernel never reads (a `mode:` that should be `executionMode:` does nothing), and a
 * tool that takes a path but does not say what it touches (policy can then judge it by name
 * only: `deny fs.read(**\/.env)` never reaches it).
 */

/** Every key of a tool definition the kernel reads; the type keeps the list in step with AgentTool. */
const TOOL_KEYS: readonly string[] = Object.keys({
  name: true,
  label: true,
  description: true,
  promptGuidelines: true,
  parameters: true,
  prepareArguments: true,
  execute: true,
  replay: true,
  executionMode: true,
  resources: true,
  analyzeCommand: true,
  effects: true,
  judgedBy: true,
  override: true,
} satisfies Record<keyof AnyAgentTool, true>);

/**
 * One line per key the kernel does not read, with the closest one it does.
 *
 * @example unknownToolKeys({ name: 'wc', mode: 'sequential', ... }) // ['"mode" is not a tool field. Did you mean "executionMode"?']
 */
export function unknownToolKeys(tool: unknown): string[] {
  if (typeof tool !== 'object' || tool === null) return [];
  return Object.keys(tool)
    .filter((key) => !TOOL_KEYS.includes(key))
    .map((key) => {
      const hint = didYouMean(closestNames(key, TOOL_KEYS));
      return `"${key}" is not a tool field${hint ? `. ${hint}` : `; the known keys are ${TOOL_KEYS.map((n) => `"${n}"`).join(', ')}`}`;
    });
}

/** Parameter names that usually hold a path: `path`, `file`, `dir`, `cwd`, `filePath`, `source_dir`, `paths` … */
const PATH_LIKE = /^(?:path|paths|file|files|filename|dir|dirs|directory|folder|cwd|root|target|dest|destination|src|source)$|(?:path|paths|file|files|dir|directory|folder)$/i;

/**
 * The top-level parameters of a tool that look like paths, when the tool has no `resources()`;
 * empty when it has one or takes none.
 *
 * @example unjudgedPathParameters({ parameters: Type.Object({ file: Type.String() }), ... }) // ['file']
 */
export function unjudgedPathParameters(tool: Pick<AnyAgentTool, 'parameters'> & { resources?: unknown }): string[] {
  if (tool.resources !== undefined) return [];
  const properties = (tool.parameters as { properties?: unknown } | undefined)?.properties;
  if (typeof properties !== 'object' || properties === null) return [];
  return Object.entries(properties as Record<string, { type?: unknown; items?: { type?: unknown } }>)
    .filter(([name, schema]) => PATH_LIKE.test(name) && (schema?.type === 'string' || schema?.items?.type === 'string'))
    .map(([name]) => name);
}
