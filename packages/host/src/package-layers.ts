import { dirname, join } from 'node:path';
import { registerErrorCodes } from '@airlock/toolkit';
import type { Diagnostic } from '@airlock/contract';
import { displayFields } from '@airlock/toolkit/display';
import { defaultExtensionDirs } from './extensions/dirs.js';
import { resolveExtension } from './extensions/resolve.js';
import { describeSource, mergeLayers, type ExtensionEntry, type LoadedSettings, type PackagePolicy, type PackageSource, type SettingsLayer, type SettingsLayerRecord, type SourcedLayer } from './settings/index.js';

/**
 * The rules and settings packages carry (`airlock.rules`, `airlock.settings`), applied with the
 * trust of the settings layer that names the package:
 *
 * - named by the user's settings, a trusted project, code or the command line: all of it. Its
 *   settings become a layer just under the naming layer (that layer's own values win), its rules
 *   join the one rule list;
 * - named by an untrusted project: only its deny and ask rules, which can only restrict. Its
 *   allow rules and settings are dropped with one diagnostic that says what to do.
 *
 * Packages are found exactly as the extension loader will find them (resolveExtension, reading
 * files only), so the rules that apply are those of the package that loads. A package whose
 * manifest is broken is left to the loader, which blocks every tool for it.
 */

registerErrorCodes('host (package policy)', {
  AIRLOCK_PACKAGE_POLICY_UNTRUSTED: {
    severity: 'warning',
    message: 'Ignored the allow rules and settings of package {name}, named by {file}: the folder is not trusted, so a package it names may only restrict. Its deny and ask rules apply.',
    action: 'Review the project, then `airlock trust <dir>` (or --trust for one run); or install the package for every project yourself: `airlock extensions add --user <name>`.',
  },
});

export interface PackageLayerContext {
  /** The project's trust as decided for this run. */
  trusted: boolean;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  homeDir: string;
}

/**
 * `loaded` with the packages' rules and settings merged in (a new object), and what was dropped.
 *
 * @example
 * const { settings, diagnostics } = withPackagePolicies(await loadSettings({ cwd }), { trusted: false, cwd, env, homeDir });
 * settings.permissions.filter((p) => p.package); // [{ effect: 'deny', rule: …, layer: 'user', file: '~/.config/airlock/settings.json', package: { name: 'airlock-company-policy', … } }]
 */
export function withPackagePolicies(loaded: LoadedSettings, ctx: PackageLayerContext): { settings: LoadedSettings; diagnostics: Diagnostic[] } {
  const packs = namedPackages(loaded, ctx);
  if (packs.length === 0) return { settings: loaded, diagnostics: [] };
  const diagnostics: Diagnostic[] = [];
  const inserted = new Map<SettingsLayerRecord, SettingsLayerRecord[]>();
  for (const pack of packs) {
    const record = packageLayer(pack, diagnostics, loaded.projectDir ?? ctx.cwd);
    if (record === undefined) continue;
    const namer = loaded.layers.find((l) => l.name === pack.entry.layer && l.file === pack.entry.file) ?? loaded.layers.at(-1)!;
    inserted.set(namer, [...(inserted.get(namer) ?? []), record]);
  }
  // Each package's layer just under the layer that names it.
  const layers = loaded.layers.flatMap((l) => [...(inserted.get(l) ?? []), l]);
  const merged = mergeLayers(layers.filter((l) => l.name !== 'defaults').map(sourced(ctx.cwd)), ctx.homeDir);
  const byFile = new Map(layers.filter((l) => l.package !== undefined).map((l) => [l.file!, l]));
  const permissions = merged.permissions.map((p) => {
    const from = p.file === undefined ? undefined : byFile.get(p.file);
    if (from === undefined) return p;
    const named = from.namedBy;
    return { effect: p.effect, rule: p.rule, layer: p.layer, ...(named === undefined ? {} : { file: named }), package: from.package! };
  });
  return {
    settings: { ...loaded, settings: merged.settings, layers, extensions: merged.extensions, extensionsListed: merged.extensionsListed, permissions },
    diagnostics,
  };
}

/** A package found, with what it carries and the entry that names it. */
interface NamedPackage {
  entry: ExtensionEntry;
  source: PackageSource;
  carries: PackagePolicy;
  /** Named by a project that is not trusted: only its deny and ask rules count. */
  restrictOnly: boolean;
}

/**
 * Every package the settings name that carries rules or settings, as the loader will find it:
 * an untrusted project's entry (read, never loaded), and the user's entry it would replace.
 */
function namedPackages(loaded: LoadedSettings, ctx: PackageLayerContext): NamedPackage[] {
  const dirs = defaultExtensionDirs(ctx.env, ctx.homeDir);
  const projectDir = loaded.projectDir ?? ctx.cwd;
  const out: NamedPackage[] = [];
  const seen = new Set<string>();
  for (const listed of loaded.extensions) {
    for (let entry: ExtensionEntry | undefined = listed; entry !== undefined; entry = entry.replaces) {
      const restrictOnly = entry.layer === 'project' && !ctx.trusted;
      if (entry.enabled) {
        // An untrusted project's node_modules is read for its rules (JSON, deny and ask only), as the loader reads it to report the entry.
        const found = resolveExtension(entry, { dirs, projectDir, projectTrusted: restrictOnly || ctx.trusted, home: ctx.homeDir });
        const key = found.ok ? `${found.resolved.realDir}\0${restrictOnly}` : '';
        if (found.ok && found.resolved.carries !== undefined && !seen.has(key)) {
          seen.add(key);
          const r = found.resolved;
          out.push({ entry, source: { name: r.packageName, version: r.version, dir: r.realDir }, carries: r.carries!, restrictOnly });
        }
      }
      // The entry an untrusted project's replaced is the one that loads: its package counts too.
      if (!restrictOnly) break;
    }
  }
  return out;
}

/** The layer a package adds: all it carries, or for an untrusted project only its deny and ask rules. */
function packageLayer(pack: NamedPackage, diagnostics: Diagnostic[], projectDir: string): SettingsLayerRecord | undefined {
  const { rules, settings } = pack.carries;
  const base = {
    name: pack.entry.layer,
    file: join(pack.source.dir, 'package.json'),
    baseDir: pack.source.dir,
    package: pack.source,
    ...(pack.entry.file === undefined ? {} : { namedBy: pack.entry.file }),
  };
  if (!pack.restrictOnly) {
    return { ...base, values: { ...(settings ?? {}), ...(rules === undefined ? {} : { permissions: rules }) } as SettingsLayer };
  }
  const dropped = [
    ...(rules?.allow !== undefined && rules.allow.length > 0 ? [`${rules.allow.length} allow rule${rules.allow.length === 1 ? '' : 's'}`] : []),
    ...(settings !== undefined && Object.keys(settings).length > 0 ? [`its settings (${Object.keys(settings).join(', ')})`] : []),
  ];
  if (dropped.length > 0) {
    const namedBy = describeSource({ layer: pack.entry.layer, ...(pack.entry.file === undefined ? {} : { file: pack.entry.file }) });
    // The name, version and files come from the project: one line each.
    const shown = displayFields({ name: `${pack.source.name} ${pack.source.version}`, namedBy, dir: projectDir, spec: pack.source.name });
    diagnostics.push({
      code: 'AIRLOCK_PACKAGE_POLICY_UNTRUSTED',
      severity: 'warning',
      details: { package: pack.source.name, version: pack.source.version, dropped, projectDir },
      ...(pack.entry.file === undefined ? {} : { file: pack.entry.file }),
      message: `Ignored ${dropped.join(' and ')} of package ${shown.name}, named by ${shown.namedBy}: ${shown.dir} is not trusted, so a package it names may only restrict. Its deny and ask rules apply.`,
      fix: `Review the project, then run \`airlock trust ${shown.dir}\` (or pass --trust for this run); or, to have the package in every project, install it for yourself: \`airlock extensions add --user ${shown.spec}\`.`,
    });
  }
  const restricting = { ...(rules?.deny === undefined ? {} : { deny: rules.deny }), ...(rules?.ask === undefined ? {} : { ask: rules.ask }) };
  if (Object.keys(restricting).length === 0) return undefined;
  return { ...base, values: { permissions: restricting } };
}

function sourced(cwd: string): (record: SettingsLayerRecord) => SourcedLayer {
  // As loadSettings resolved them: a file's folder, the cwd for code and the command line.
  return (record) => ({ name: record.name, ...(record.file === undefined ? {} : { file: record.file }), baseDir: record.baseDir ?? (record.file === undefined ? cwd : dirname(record.file)), values: record.values });
}
