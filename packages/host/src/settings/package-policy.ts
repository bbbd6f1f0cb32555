/**
 * What a package's manifest may carry besides code: permission rules (`airlock.rules`) and
 * settings defaults (`airlock.settings`), so a security team ships its policy as one package.
 * Both are checked by the settings schema itself (`settingsProblems`): the rules as a layer's
 * `permissions`, the settings as a layer without the keys only a person sets. Who may use them
 * (the layer that names the package, and its trust) is decided in package-layers.ts.
 */
import { settingsProblems } from './validate.js';
import { NOT_IN_PACKAGE_SETTINGS, type PackageSettings, type Permissions } from './schema.js';

/** A package's rules and settings, checked; `{{package}}` in the settings already replaced by the package's folder. */
export interface PackagePolicy {
  rules?: Permissions;
  settings?: PackageSettings;
}

/** Written in a string of `airlock.settings`, it stands for the folder the package is installed in. */
export const PACKAGE_DIR_TOKEN = '{{package}}';

/**
 * Check `airlock.rules` and `airlock.settings` (either may be absent). Each problem names the key
 * as the manifest writes it (`"airlock.rules.deny[0].match" …`), so the author fixes it in one round.
 *
 * @example
 * checkPackagePolicy({ rules: { deny: ['fs.read(**\/.env)'] } }, '/u/ext/node_modules/acme-policy');
 * // { ok: true, policy: { rules: { deny: ['fs.read(**\/.env)'] } } }
 * checkPackagePolicy({ rules: { deny: 'fs.read(.env)' } }, dir);
 * // { ok: false, problems: ['"airlock.rules.deny" expected an array, got "fs.read(.env)"'] }
 */
export function checkPackagePolicy(raw: { rules?: unknown; settings?: unknown }, packageDir: string): { ok: true; policy: PackagePolicy } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  if (raw.rules !== undefined && !isRecord(raw.rules)) problems.push(`"airlock.rules" must be an object like { "deny": [...], "ask": [...], "allow": [...] }, got ${show(raw.rules)}`);
  if (raw.settings !== undefined && !isRecord(raw.settings)) problems.push(`"airlock.settings" must be an object of settings (as in settings.json), got ${show(raw.settings)}`);
  if (problems.length > 0) return { ok: false, problems };
  const rules = raw.rules as Record<string, unknown> | undefined;
  let settings = raw.settings as Record<string, unknown> | undefined;

  for (const [key, why] of Object.entries(NOT_IN_PACKAGE_SETTINGS)) {
    if (settings !== undefined && key in settings) problems.push(`"airlock.settings.${key}" may not be set by a package: ${why}`);
  }
  if (settings !== undefined && JSON.stringify(settings).includes(PACKAGE_DIR_TOKEN)) {
    const filled = withPackageDir(settings, packageDir);
    if (typeof filled === 'string') problems.push(filled);
    else settings = filled;
  }
  if (problems.length > 0) return { ok: false, problems };

  // One schema: the rules are a layer's `permissions`, the settings the rest of a layer.
  const layer = { ...(settings ?? {}), ...(rules === undefined ? {} : { permissions: rules }) };
  for (const p of settingsProblems(layer)) {
    const inRules = p.path === 'permissions' || p.path.startsWith('permissions.');
    const key = inRules ? `airlock.rules${p.path.slice('permissions'.length)}` : `airlock.settings${p.path ? `.${p.path}` : ''}`;
    problems.push(`"${key}" ${p.message}`);
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, policy: { ...(rules === undefined ? {} : { rules: rules as Permissions }), ...(settings === undefined ? {} : { settings: settings as PackageSettings }) } };
}

/**
 * Every `{{package}}` in the settings' strings replaced by `packageDir`, or why it cannot be: the
 * folder ends up inside hook commands run by `sh -c`, between double quotes, so a name that could
 * end the quotes or expand there is refused rather than guessed at.
 */
function withPackageDir(settings: Record<string, unknown>, packageDir: string): Record<string, unknown> | string {
  if (/["$`\\\n]/.test(packageDir)) {
    return `"airlock.settings" uses ${PACKAGE_DIR_TOKEN}, but the package is installed in ${JSON.stringify(packageDir)}, whose name holds a quote, "$", a backquote, a backslash or a newline, which a command could not name safely; install it in a folder without those characters`;
  }
  return JSON.parse(JSON.stringify(settings), (_key, value: unknown) => (typeof value === 'string' ? value.replaceAll(PACKAGE_DIR_TOKEN, packageDir) : value)) as Record<string, unknown>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function show(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
