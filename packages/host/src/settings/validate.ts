/**
 * Validating one layer: the compiled TypeBox check first (fast, exact), then — only when it
 * fails — the one schema wording every part of Airlock uses (schemaProblems, from the kernel),
 * then the few rules a JSON schema cannot say.
 */
import { describeReceived, propertyPath, schemaProblems } from '@airlock/toolkit/util';
import { Compile } from 'typebox/compile';
import { invalidSettings, type SettingsProblem, type SettingsSource } from './errors.js';
import { isPathSpec, parseExtensionSpec, specKey } from './extension-spec.js';
import { SettingsSchema, type SettingsLayer } from './schema.js';

const check = Compile(SettingsSchema);

/**
 * Check one layer's values; returns them (with `undefined` properties dropped) or throws a
 * SettingsError naming the source, every bad path and what was expected there.
 *
 * @example
 * validateSettings({ execution: { mode: 'sequential' } }, { layer: 'cli' }); // ok
 * validateSettings({ extentions: [] }, { layer: 'project', file: '/p/.airlockrc.json' });
 * // throws: … - extentions: unknown setting "extentions". Did you mean "extensions"?
 */
export function validateSettings(value: unknown, source: SettingsSource): SettingsLayer {
  const values = dropUndefined(value);
  const problems = settingsProblems(values);
  if (problems.length > 0) {
    const inFile = source.field ? problems.map((p) => ({ ...p, path: p.path ? `${source.field}.${p.path}` : source.field! })) : problems;
    throw invalidSettings(source, inFile);
  }
  return values as SettingsLayer;
}

/** Every problem of one layer's values, paths relative to the settings object; empty when valid. */
export function settingsProblems(value: unknown): SettingsProblem[] {
  if (typeof value === 'function') {
    return [{ path: '', message: 'expected an object of settings, got a function. Export the settings object itself (`export default { … }`); Airlock does not call functions' }];
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [{ path: '', message: `expected an object of settings, got ${describeReceived(value)}` }];
  }
  if (!check.Check(value)) return schemaProblems(SettingsSchema, value, { keyNoun: 'setting' }).map(({ path, message }) => ({ path, message }));
  return semanticProblems(value as SettingsLayer);
}

/** Rules that need more than one value at a time. */
function semanticProblems(settings: SettingsLayer): SettingsProblem[] {
  const problems: SettingsProblem[] = [];

  // A rule's `effect` may restate its list, never contradict it: `deny: [{ effect: 'allow' }]` is a mistake, not a policy.
  for (const list of ['deny', 'ask', 'allow'] as const) {
    settings.permissions?.[list]?.forEach((rule, i) => {
      if (typeof rule === 'object' && rule.effect !== undefined && rule.effect !== list) {
        problems.push({
          path: `permissions.${list}[${i}].effect`,
          message: `"${rule.effect}" contradicts the list the rule is in (permissions.${list}); remove "effect" or move the rule to permissions.${rule.effect}`,
        });
      }
    });
  }

  // Extensions: `name` is for packages, and one layer lists each extension once.
  const seen = new Map<string, number>();
  settings.extensions?.forEach((entry, i) => {
    const at = propertyPath(['extensions', i]);
    if (typeof entry === 'object' && 'name' in entry && isPathSpec(entry.name)) {
      problems.push({ path: `${at}.name`, message: `"${entry.name}" is a path; expected a package name here. Use { "path": "${entry.name}" } for a file or folder` });
    }
    // Within one layer every relative path has the same base, so a placeholder base compares them.
    const key = specKey(parseExtensionSpec(entry), '/', '/~');
    const first = seen.get(key);
    if (first === undefined) seen.set(key, i);
    else problems.push({ path: at, message: `lists the same extension as extensions[${first}]; expected each extension once per file (merge the two entries)` });
  });

  return problems;
}

/** JSON and YAML cannot hold `undefined`, but a TS config can (`spillDir: process.env.X`): it means "not set". */
function dropUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropUndefined);
  if (typeof value !== 'object' || value === null) return value;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, dropUndefined(v)]),
  );
}
