/**
 * How settings layers combine — every merge rule is here and nowhere else.
 *
 * Layers, lowest precedence first: defaults → user → project → local (rules only) → cli.
 *
 * | what                                   | rule                                                                  |
 * | -------------------------------------- | --------------------------------------------------------------------- |
 * | plain objects (`tools`, `execution`, `limits`, `images`, `trust`) | merged key by key: a key a layer leaves out keeps the earlier value |
 * | scalars (numbers, strings, booleans)   | the later layer replaces the earlier value                            |
 * | `tools.allow`, `tools.exclude`         | the later layer's list replaces the earlier one: an allowlist is a decision, not a contribution |
 * | `permissions.deny` / `.ask` / `.allow` | one list of entries (`permissions`, not in `settings`), each rule with its list, layer and file: every layer's rules stay, in layer order, exact duplicates once. A deny in any layer stays |
 * | `extensions`                           | concatenated in layer order. A later layer's entry for the same package name, or the same resolved path, replaces the earlier entry (its options wholesale, `enabled`, layer and file) at the earlier entry's position, and keeps it as `replaces`. The whole list is added to the host's default set (extensions/defaults.ts `withDefaultSet`), where an entry naming a default takes that default's place |
 * | `limits.spillDir`                      | a relative path resolves against its settings file's folder (`~/` = home) |
 * | `trust` in the project layer           | ignored: a project must not be able to trust itself (the trust code warns about it, from `layers`) |
 *
 * Extension `options` and rule objects are values, not sections: they are never merged key by key.
 */
import { isAbsolute } from 'node:path';
import type { SettingsLayerName } from './errors.js';
import { isPathSpec, parseExtensionSpec, resolveSpecPath, specKey, type ExtensionKind } from './extension-spec.js';
import { defaultSettings, type ExtensionSpec, type PermissionEffect, type PermissionRule, type Settings, type SettingsLayer } from './schema.js';

/** One validated layer with where it came from. */
export interface SourcedLayer {
  name: SettingsLayerName;
  /** The settings file; undefined for defaults and CLI flags. */
  file?: string | undefined;
  /** Where relative paths in this layer resolve: the file's folder (the cwd for CLI flags). */
  baseDir: string;
  values: SettingsLayer;
}

/** An extension to load, with the layer and file that asked for it. */
export interface ExtensionEntry {
  /** The package name or path, as written in the settings. */
  spec: string;
  kind: ExtensionKind;
  /** kind 'path': the absolute path (`spec` resolved against `baseDir`; `~/` against the home folder). */
  path?: string;
  /** The options given with the entry (`{}` when none); checked against the extension's own schema at load. */
  options: Record<string, unknown>;
  /** false: listed, but not to be loaded. */
  enabled: boolean;
  /** true: a failure to find or load it does not block the tools. */
  optional?: boolean;
  layer: Exclude<SettingsLayerName, 'defaults'>;
  /** The settings file that lists it (undefined for CLI flags). */
  file?: string;
  /** Folder of that file (the cwd for CLI flags): bare names resolve from here first, relative paths against it. */
  baseDir: string;
  /**
   * The entry an earlier layer had for the same extension, which this one replaced. A host that
   * may not use this entry's layer (an untrusted project) falls back to it, so an untrusted
   * project can neither turn off nor reconfigure an extension the user listed.
   */
  replaces?: ExtensionEntry;
}

/**
 * A policy rule with the list it is in and the layer and file it came from: the one form the
 * rules are kept in, so what runs and what `policy explain` names cannot differ.
 */
export interface PermissionEntry {
  effect: PermissionEffect;
  rule: PermissionRule;
  /** The layer that wrote the rule, or that named the package carrying it. */
  layer: SettingsLayerName;
  /** That layer's file. */
  file?: string;
  /** Set when the rule came from a package's manifest (`airlock.rules`): which package, where installed. */
  package?: PackageSource;
}

/** A package whose manifest carried rules or settings. */
export interface PackageSource {
  name: string;
  version: string;
  /** Its real folder. */
  dir: string;
}

export interface MergedSettings {
  settings: Settings;
  extensions: ExtensionEntry[];
  /** Every layer's rules, in layer order, exact duplicates (same list, same rule) once. */
  permissions: PermissionEntry[];
  /** Some layer has an `extensions` key (even `[]`): then the host's default set does not apply. */
  extensionsListed: boolean;
}

const EFFECTS = ['deny', 'ask', 'allow'] as const;

/**
 * Merge validated layers, lowest precedence first, on top of the built-in defaults.
 *
 * @example
 * mergeLayers([{ name: 'user', baseDir: '/home/u/.config/airlock', values: { execution: { maxConcurrency: 2 } } },
 *              { name: 'cli', baseDir: '/repo', values: { execution: { mode: 'sequential' } } }], '/home/u')
 *   .settings.execution // { mode: 'sequential', maxConcurrency: 2, timeoutMs: 600000 }
 */
export function mergeLayers(layers: readonly SourcedLayer[], homeDir: string): MergedSettings {
  const settings = defaultSettings();
  const extensions: ExtensionEntry[] = [];
  const permissions: PermissionEntry[] = [];
  let extensionsListed = false;

  for (const layer of layers) {
    const { extensions: listed, permissions: rules, limits, trust, ...sections } = layer.values;
    mergeObject(settings, sections);
    if (trust && layer.name !== 'project') mergeObject(settings.trust, trust);
    if (limits) {
      const { spillDir, ...rest } = limits;
      Object.assign(settings.limits, rest);
      if (spillDir !== undefined) settings.limits.spillDir = resolveDir(spillDir, layer.baseDir, homeDir);
    }
    if (rules) addRules(permissions, rules, layer);
    if (listed) {
      extensionsListed = true;
      if (layer.name !== 'defaults') addExtensions(extensions, listed, { ...layer, name: layer.name }, homeDir);
    }
  }

  settings.extensions = extensions.map(toSpec);
  return { settings, extensions, permissions, extensionsListed };
}

/** Key by key for plain objects; anything else (scalars, lists) replaces. */
function mergeObject(target: Record<string, unknown>, source: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(source)) {
    const current = target[key];
    if (isPlainObject(value) && isPlainObject(current)) mergeObject(current, value);
    else target[key] = structuredClone(value);
  }
}

function addRules(entries: PermissionEntry[], rules: NonNullable<SettingsLayer['permissions']>, layer: SourcedLayer): void {
  for (const effect of EFFECTS) {
    const have = new Set(entries.filter((e) => e.effect === effect).map((e) => JSON.stringify(e.rule)));
    for (const rule of rules[effect] ?? []) {
      const key = JSON.stringify(rule);
      if (have.has(key)) continue;
      have.add(key);
      entries.push({ effect, rule: structuredClone(rule), layer: layer.name, ...(layer.file ? { file: layer.file } : {}) });
    }
  }
}

function addExtensions(
  entries: ExtensionEntry[],
  listed: readonly ExtensionSpec[],
  layer: SourcedLayer & { name: ExtensionEntry['layer'] },
  homeDir: string,
): void {
  for (const raw of listed) {
    const parsed = parseExtensionSpec(raw);
    const entry: ExtensionEntry = {
      spec: parsed.spec,
      kind: parsed.kind,
      ...(parsed.kind === 'path' ? { path: resolveSpecPath(parsed.spec, layer.baseDir, homeDir) } : {}),
      options: parsed.options,
      enabled: parsed.enabled,
      ...(parsed.optional ? { optional: true } : {}),
      layer: layer.name,
      ...(layer.file ? { file: layer.file } : {}),
      baseDir: layer.baseDir,
    };
    const key = specKey(parsed, layer.baseDir, homeDir);
    const index = entries.findIndex((e) => specKey(e, e.baseDir, homeDir) === key);
    if (index === -1) entries.push(entry);
    else entries[index] = { ...entry, replaces: entries[index]! };
  }
}

/** Back to the settings form, for `settings.extensions` (paths stay as written). */
function toSpec(entry: ExtensionEntry): ExtensionSpec {
  const plain = entry.enabled && entry.optional !== true && Object.keys(entry.options).length === 0;
  // The string form only when it reads back as the same kind (`tools/x.ts` given as a path is not a package).
  if (plain && isPathSpec(entry.spec) === (entry.kind === 'path') && !entry.spec.startsWith('-')) return entry.spec;
  const rest = {
    ...(Object.keys(entry.options).length > 0 ? { options: entry.options } : {}),
    ...(entry.enabled ? {} : { enabled: false }),
    ...(entry.optional === true ? { optional: true } : {}),
  };
  return entry.kind === 'path' ? { path: entry.spec, ...rest } : { name: entry.spec, ...rest };
}

function resolveDir(dir: string, baseDir: string, homeDir: string): string {
  return isAbsolute(dir) ? dir : resolveSpecPath(dir, baseDir, homeDir);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Why an entry of `extensions` is not loaded. */
export interface SkippedExtension {
  entry: ExtensionEntry;
  reason: 'disabled' | 'untrusted-project';
}

/**
 * The entries to load, given whether the project is trusted: a project entry in an untrusted
 * project is skipped, and the entry it replaced (the user's own, with the user's options) loads
 * in its place; disabled entries are skipped. Order is kept.
 *
 * @example
 * const { load, skipped } = extensionsToLoad(loaded.extensions, { projectTrusted: false });
 */
export function extensionsToLoad(
  entries: readonly ExtensionEntry[],
  { projectTrusted }: { projectTrusted: boolean },
): { load: ExtensionEntry[]; skipped: SkippedExtension[] } {
  const load: ExtensionEntry[] = [];
  const skipped: SkippedExtension[] = [];
  for (const listed of entries) {
    let entry: ExtensionEntry | undefined = listed;
    while (entry && entry.layer === 'project' && !projectTrusted) {
      skipped.push({ entry, reason: 'untrusted-project' });
      entry = entry.replaces;
    }
    if (!entry) continue;
    if (entry.enabled) load.push(entry);
    else skipped.push({ entry, reason: 'disabled' });
  }
  return { load, skipped };
}
