import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createExtensionJiti, POLICY_PHASES, readManifest } from '@airlock/host';
import { errorMessage } from '@airlock/toolkit/util';
import { optionRows, type OptionRow } from './option-rows.js';

/** What an extension package is for: a tool, a policy (hooks that judge or change calls), or a library others import. */
export type PackageKind = 'tool' | 'policy' | 'library';

/** What a package's manifest and options schema say about it, for `extensions info` and the catalog. */
export interface PackageFacts {
  name: string;
  version: string;
  description?: string;
  kind: PackageKind;
  /** package.json#airlock.kernel; absent for a library. */
  kernel?: string;
  /** The module the host loads (package.json#airlock.extension). */
  entry?: string;
  tools: string[];
  /** As the manifest declares them: `tool_call:authorize`. */
  hooks: string[];
  options: OptionRow[];
  /** Why the options could not be read (the manifest is broken, or its module failed to import). */
  problem?: string;
}

/** Folder names under extensions/ in Airlock's workspace, by kind. */
const KIND_OF_GROUP: Readonly<Record<string, PackageKind>> = { tools: 'tool', policy: 'policy', lib: 'library' };

/**
 * What a package folder's package.json and `airlock` manifest say, read by the host's own
 * `readManifest`: no module is imported, so this is safe for any folder, trusted or not. Options
 * stay empty (they live in the module); `problem` says why the manifest is broken.
 *
 * @example describeManifest('/p/node_modules/@acme/guard').hooks // ['tool_call:authorize']
 */
export function describeManifest(dir: string, o: { group?: string } = {}): PackageFacts {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string; description?: string; airlock?: unknown };
  const name = pkg.name ?? dir;
  const version = pkg.version ?? '0.0.0';
  const base = { name, version, ...(typeof pkg.description === 'string' ? { description: pkg.description } : {}) };
  if (pkg.airlock === undefined) return { ...base, kind: 'library', tools: [], hooks: [], options: [] };
  const m = readManifest(dir, { extension: name, layer: 'project' });
  if (!m.ok) return { ...base, kind: kindOf(o.group, [], [], m.policy), tools: [], hooks: [], options: [], problem: m.diagnostic.message };
  const { tools, hooks } = m.provides;
  return {
    ...base,
    ...(m.manifest.description === undefined ? {} : { description: m.manifest.description }),
    kind: kindOf(o.group, tools, hooks, m.policy),
    kernel: m.manifest.kernel,
    entry: m.manifest.extension,
    tools,
    hooks,
    options: [],
  };
}

/** The host's extension loader; one serves every package of a catalog (creating it once per package cost time). */
export type ExtensionLoader = Awaited<ReturnType<typeof createExtensionJiti>>;

/**
 * Read a package folder's manifest (`describeManifest`) and, for an extension, its options schema:
 * the entry module is imported through the host's own loader (`createExtensionJiti`, with the
 * host's kernel and typebox), and only its default export's `options` is read. Importing runs the
 * module's top level, never `setup`: no tool is registered, no hook, no command.
 * `importModule: false` reads the manifest only (an untrusted project's package). `loader` reuses
 * a loader across packages.
 *
 * @example
 * const facts = await describePackage('/repo/extensions/tools/read', { group: 'tools' });
 * facts.kind; // 'tool'    facts.options[0] // { key: 'maxLines', type: 'integer', default: 2000, … }
 */
export async function describePackage(dir: string, o: { group?: string; importModule?: boolean; loader?: ExtensionLoader } = {}): Promise<PackageFacts> {
  const facts = describeManifest(dir, o);
  if (facts.problem !== undefined || facts.entry === undefined) return facts;
  if (o.importModule === false) return { ...facts, problem: 'its options are not read: it belongs to a project that is not trusted, and reading them would run its code' };
  try {
    const jiti = o.loader ?? (await createExtensionJiti());
    const mod = (await jiti.import(join(dir, facts.entry))) as { default?: { options?: unknown }; options?: unknown };
    const extension = mod.default ?? mod;
    return { ...facts, options: optionRows(extension.options) };
  } catch (error) {
    return { ...facts, problem: `its module ${facts.entry} could not be imported: ${errorMessage(error)}` };
  }
}

/** The folder's group decides in Airlock's workspace; elsewhere what it provides: a policy hook or only hooks → policy. */
function kindOf(group: string | undefined, tools: string[], hooks: string[], policy: boolean): PackageKind {
  const byGroup = group === undefined ? undefined : KIND_OF_GROUP[group];
  if (byGroup !== undefined) return byGroup;
  if (policy || hooks.some((h) => POLICY_PHASES.includes(h)) || (hooks.length > 0 && tools.length === 0)) return 'policy';
  return 'tool';
}
