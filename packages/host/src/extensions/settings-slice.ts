import { closestNames } from '@airlock/toolkit';
import { describeReceived, didYouMean, linearSchema, propertyPath, schemaProblems } from '@airlock/toolkit/util';
import Value from 'typebox/value';
import type { TObject } from 'typebox';
import { describeSource, type SettingsLayerName } from '../settings/errors.js';
import type { LoadedSettings } from '../settings/layers.js';
import type { PermissionEntry } from '../settings/merge.js';
import { defaultSettings, SETTING_KEYS } from '../settings/schema.js';
import { errorText } from './diagnostics.js';

/**
 * The settings an extension declared it reads (`Extension.settings`), on the one route they take:
 * cut from the loaded settings, checked against the extension's schema once, frozen, and handed
 * to `setup` as `api.settings`. An extension that declares nothing gets `{}`: settings it did not
 * ask for cannot become something it silently depends on.
 *
 * Every key is the merged value as the settings code left it, except `permissions`, which is the
 * one list the host keeps: `{ effect, rule, layer, file? }` per rule, after the rules an
 * untrusted project may not bring were dropped. The settings files were validated against
 * Airlock's own schema already; this check is the extension's, so a value it cannot use stops it
 * with the file that set the value named, instead of a failure somewhere inside its setup.
 */

/** What the slices are cut from: what `loadSettings` returned, as the host left it. */
export type SettingsForExtensions = Pick<LoadedSettings, 'settings' | 'permissions' | 'layers'>;

/** The built-in defaults and no rules: what an extension reads when no settings were loaded. */
export function defaultSettingsForExtensions(): SettingsForExtensions {
  return { settings: defaultSettings(), permissions: [], layers: [] };
}

/** One value the extension's schema refuses, with the layer and file that set it. */
export interface SliceProblem {
  /** The top-level settings key. */
  readonly key: string;
  /** Where, as the settings file writes it: `permissions.deny[1].match`, `telemetry.endpoint`. */
  readonly path: string;
  readonly message: string;
  /** Who set the value; undefined when no settings file did (Airlock's default, or the form it hands the key in). */
  readonly source?: { readonly layer: SettingsLayerName; readonly file?: string };
}

export type SliceResult = { ok: true; value: Readonly<Record<string, unknown>> } | { ok: false; problems: SliceProblem[] };

const EMPTY: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * What is wrong with the declaration itself (the extension's bug, reported with its export):
 * not a TypeBox object, or a key that is not a settings key.
 *
 * @example
 * sliceDeclarationProblems(Type.Object({ permisions: Type.Array(Type.Unknown()) }));
 * // ['"settings" names "permisions", which is not a settings key. Did you mean "permissions"? …']
 */
export function sliceDeclarationProblems(schema: unknown): string[] {
  const properties = (schema as { type?: unknown; properties?: unknown } | null)?.properties;
  if (typeof schema !== 'object' || schema === null || (schema as { type?: unknown }).type !== 'object' || typeof properties !== 'object' || properties === null) {
    return [`"settings" must be a TypeBox object whose keys are settings keys, such as Type.Object({ limits: Type.Object({ maxLines: Type.Integer() }) }), got ${describeReceived(schema)}`];
  }
  return Object.keys(properties)
    .filter((key) => !SETTING_KEYS.includes(key))
    .map((key) => `"settings" names ${JSON.stringify(key)}, which is not a settings key.${near(key)} The keys are ${SETTING_KEYS.join(', ')}`);
}

/**
 * The slice `schema` declares, defaults filled in from the schema, checked and deeply frozen;
 * or every value it refuses, each with the file that set it.
 *
 * @example
 * const r = settingsSlice(Type.Object({ limits: Type.Object({ maxLines: Type.Integer({ maximum: 500 }) }) }), loaded);
 * // { ok: false, problems: [{ key: 'limits', path: 'limits.maxLines', message: 'expected an integer ≤ 500, got 2000', source: { layer: 'user', file: '/home/u/.config/airlock/settings.json' } }] }
 */
export function settingsSlice(schema: TObject | undefined, from: SettingsForExtensions): SliceResult {
  if (schema === undefined) return { ok: true, value: EMPTY };
  const merged = new Map<string, unknown>(Object.entries(from.settings));
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) {
    const value = key === 'permissions' ? from.permissions : merged.get(key);
    if (value !== undefined) picked[key] = structuredClone(value);
  }
  let value: unknown;
  try {
    // TypeBox gets the schema's linear-time form: an extension's patterns are not Airlock's.
    const safe = linearSchema(schema);
    value = Value.Default(safe, picked);
    if (Value.Check(safe, value)) return { ok: true, value: deepFreeze(value) as Readonly<Record<string, unknown>> };
  } catch (error) {
    return { ok: false, problems: [{ key: '', path: '', message: `the extension's settings schema cannot be evaluated: ${errorText(error)}` }] };
  }
  return { ok: false, problems: schemaProblems(schema, value, { keyNoun: 'setting' }).map((p) => located(p.keys, p.message, from)) };
}

/** The problem at `keys` of the slice, said where the settings files write it. */
function located(keys: readonly (string | number)[], message: string, from: SettingsForExtensions): SliceProblem {
  const key = String(keys[0] ?? '');
  if (key === 'permissions') return inRule(keys, message, from);
  // The highest layer that wrote the value, or else the nearest object around it (a key missing there).
  for (let depth = keys.length; depth > 0; depth--) {
    const layer = from.layers.findLast((l) => l.name !== 'defaults' && valueAt(l.values, keys.slice(0, depth)) !== undefined);
    if (layer !== undefined) return { key, path: propertyPath(keys), message, source: { layer: layer.name, ...(layer.file === undefined ? {} : { file: layer.file }) } };
  }
  return { key, path: propertyPath(keys), message };
}

/**
 * A problem inside one rule of `permissions` (`[3, 'rule', 'match']`): named by its list and its
 * place in the file that holds it. Anywhere else, the extension's schema does not fit the form
 * the host hands the rules in: that is no settings file's doing.
 */
function inRule(keys: readonly (string | number)[], message: string, from: SettingsForExtensions): SliceProblem {
  const [, index, field, ...rest] = keys;
  const entry: PermissionEntry | undefined = typeof index === 'number' ? from.permissions[index] : undefined;
  if (entry === undefined || field !== 'rule') return { key: 'permissions', path: propertyPath(keys), message };
  const written = from.layers.find((l) => l.name === entry.layer && l.file === entry.file)?.values.permissions?.[entry.effect] ?? [];
  const at = written.findIndex((rule) => JSON.stringify(rule) === JSON.stringify(entry.rule));
  const path = propertyPath(['permissions', entry.effect, ...(at === -1 ? [] : [at]), ...rest]);
  return { key: 'permissions', path, message, source: { layer: entry.layer, ...(entry.file === undefined ? {} : { file: entry.file }) } };
}

/** The problems as lines: `telemetry.endpoint in /home/u/.config/airlock/settings.json (user settings): expected …`. */
export function sliceProblemLines(problems: readonly SliceProblem[]): string[] {
  return problems.map((p) => `${p.path || '(settings)'} ${p.source === undefined ? '(not set in any settings file)' : `in ${describeSource(p.source)}`}: ${p.message}`);
}

/**
 * How to fix them: the values in the settings files when every problem is in one (a settings
 * fix: the extension is fine); otherwise a value no file sets does not fit the extension's schema,
 * which the user may set, or which is the extension's to accept.
 */
export function sliceFix(problems: readonly SliceProblem[]): { fix: string; inSettings: boolean } {
  const places = [...new Set(problems.flatMap((p) => (p.source === undefined ? [] : [`${p.path} in ${describeSource(p.source)}`])))];
  const unset = [...new Set(problems.filter((p) => p.source === undefined).map((p) => p.path || '(settings)'))];
  if (unset.length === 0) return { fix: `correct ${places.join('; ')}.`, inSettings: true };
  const correct = places.length > 0 ? `correct ${places.join('; ')}; ` : '';
  return { fix: `${correct}set ${unset.join(', ')} in your settings, or update the extension: its settings schema does not accept Airlock's value there.`, inSettings: false };
}

function valueAt(value: unknown, keys: readonly (string | number)[]): unknown {
  let at = value;
  for (const key of keys) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<string | number, unknown>)[key];
  }
  return at;
}

function near(key: string): string {
  const hint = didYouMean(closestNames(key, SETTING_KEYS));
  return hint ? ` ${hint}` : '';
}

/** Plain clones only (structuredClone, TypeBox defaults): every object and list frozen in place. */
function deepFreeze(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const item of Object.values(value)) deepFreeze(item);
  return Object.freeze(value);
}
