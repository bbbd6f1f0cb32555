/**
 * Loading settings: the five layers, each overriding the one before —
 *   1. built-in defaults (schema.ts),
 *   2. the user file `$XDG_CONFIG_HOME/airlock/settings.json` (default `~/.config/airlock/settings.json`),
 *   3. the project: discovered from the cwd up (discover.ts), or the explicit `--settings FILE`,
 *   4. the project's local rules `.airlock/settings.local.json` (permissions only, not shared; local-rules.ts),
 *   5. settings a program passes in code (the SDK), then the CLI flags, as an object the CLI builds.
 * Every layer is validated before anything merges, so a bad file stops everything. How values
 * merge is merge.ts.
 *
 * A project is not the user: until its folder is trusted, its settings may not name a path on
 * disk, a program or code (the keys marked so in schema.ts, see value-kind.ts). Those values are
 * dropped here with one warning naming them, before anything merges; a settings module is not
 * run at all. Its `extensions` entries stay listed: the extension loader skips and reports each
 * one and keeps the user's own entry in its place.
 */
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { registerErrorCodes } from '@airlock/toolkit';
import { type Diagnostic } from '@airlock/contract';
import { displayFields } from '@airlock/toolkit/display';
import { findProjectSettings, pathExists, readSettingsFile, type SearchBoundaries } from './discover.js';
import type { SettingsLayerName } from './errors.js';
import { mergeLayers, type ExtensionEntry, type PackageSource, type PermissionEntry, type SourcedLayer } from './merge.js';
import { defaultSettings, SettingsSchema, type Settings, type SettingsLayer } from './schema.js';
import { stripKinds, stripTrustedOnly, USER_ONLY_KINDS } from './value-kind.js';
import { keyFileExposure } from './key-file.js';
import { localRulesFile, validateLocalRules } from './local-rules.js';
import { validateSettings } from './validate.js';

export interface LoadSettingsOptions {
  /** Where discovery starts. CLI-flag extension paths and a relative `settingsFile` resolve against it. */
  cwd: string;
  /** An explicit settings file (`--settings FILE`): it is the project layer, and discovery is skipped. */
  settingsFile?: string | undefined;
  /** Settings a program passes in code (`openHost({ settings })`): trusted like the user's file, under the CLI flags; validated like any other layer. */
  code?: SettingsLayer | undefined;
  /** The CLI flags as one settings layer (built by the CLI); validated like any other layer. */
  cli?: SettingsLayer | undefined;
  /** For `XDG_CONFIG_HOME`. Default: process.env. */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Default: os.homedir(). Tests pass a temp folder so the real ~/.config is never read. */
  homeDir?: string | undefined;
  /**
   * Is the project folder trusted? Asked at most once, and only when the answer matters: before
   * a discovered settings module (`airlock.config.ts` …) would run, or when the project's
   * settings or local rules set values only a trusted layer may set (`needs` names them, e.g.
   * `limits.spillDir`; empty for a module). This is where the host plugs in project trust.
   * Default: untrusted — the module is not run and those values are ignored, each with a
   * diagnostic. An explicit
   * `settingsFile` module runs without asking (the user named it); its values are judged alike.
   */
  trustProject?: ((project: { file: string; dir: string; needs: readonly string[] }) => boolean | Promise<boolean>) | undefined;
  /** @deprecated The former name of {@link trustProject}; used when that is not given. */
  trustProjectCode?: ((project: { file: string; dir: string }) => boolean | Promise<boolean>) | undefined;
}

/** One layer as loaded, for display and `policy explain`. */
export interface SettingsLayerRecord {
  name: SettingsLayerName;
  /** The file it came from (none for defaults and CLI flags). */
  file?: string;
  /** Its values as validated (unmerged); for defaults, the full defaults. */
  values: SettingsLayer;
  /** Where its relative paths resolve, when not the folder of `file` (a package's layer: the package's folder). */
  baseDir?: string;
  /** A package's rules and settings (package-layers.ts): `name` and `file` are then the layer and file that named it. */
  package?: PackageSource;
  /** For a package's layer: the file of the layer that named it (none for code and the command line). */
  namedBy?: string;
}

registerErrorCodes('host (settings)', {
  AIRLOCK_SETTINGS_CODE_NOT_RUN: {
    severity: 'warning',
    message: 'Project settings {file} were not loaded: a settings module is code, and the folder is not trusted.',
    action: 'Trust the folder (`airlock trust <dir>`), or use .airlockrc.json, which is only read.',
  },
  AIRLOCK_SETTINGS_UNTRUSTED_VALUES: {
    severity: 'warning',
    message: 'Ignored {keys} in {file}: the folder is not trusted, and only a trusted folder may set a path, a program or code, or switch a protection off.',
    action: 'Trust the folder (`airlock trust <dir>`, or --trust for one run), or set the values in your user settings.',
  },
  AIRLOCK_SETTINGS_USER_ONLY_VALUES: {
    severity: 'warning',
    message: "Ignored {keys} in {file}: a model provider's key and the URL it is sent to may be set only in your user settings or on the command line, never by a project.",
    action: 'Set them in your user settings file, or use --base-url for one run.',
  },
  AIRLOCK_SETTINGS_KEY_READABLE: {
    severity: 'warning',
    message: 'Your user settings {file} hold an API key and can be read by other users.',
    action: 'chmod 600 the file, or move the key to an environment variable (providers.<name>.apiKeyEnv).',
  },
});


export interface LoadedSettings {
  /** Merged, every default filled in; the rules are in `permissions`. */
  settings: Settings;
  /** The layers that exist, lowest precedence first: defaults, then user, project, cli when present. */
  layers: SettingsLayerRecord[];
  /** Folder of the project settings file (also when its code was not run); undefined when there is none. */
  projectDir?: string;
  /** Where the user file is read from (whether or not it exists). */
  userFile: string;
  /** Where the project's local rules are read from (whether or not the file exists). */
  localFile: string;
  /** Extensions to load, in order, each with its layer, file and base folder. */
  extensions: ExtensionEntry[];
  /** Some layer has an `extensions` key (even `[]`). The default set loads either way: these entries add to it (extensions/defaults.ts `withDefaultSet`). */
  extensionsListed: boolean;
  /**
   * Every policy rule with its list, layer and file, lowest layer first: the one copy of the rules.
   * What extensions that declare `permissions` get, and what `airlock policy` names.
   */
  permissions: PermissionEntry[];
  /** What did not stop loading but is worth telling (a project's code not run, untrusted values ignored), each naming its file. */
  diagnostics: Diagnostic[];
}

/**
 * The user's Airlock config folder: `$XDG_CONFIG_HOME/airlock`, or `~/.config/airlock`.
 * A relative XDG_CONFIG_HOME is ignored, as the XDG spec says.
 *
 * @example userConfigDir({}, '/home/u') // '/home/u/.config/airlock'
 */
export function userConfigDir(env: Readonly<Record<string, string | undefined>>, homeDir: string): string {
  const xdg = env.XDG_CONFIG_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(homeDir, '.config'), 'airlock');
}

/** @example userSettingsFile({ XDG_CONFIG_HOME: '/cfg' }, '/home/u') // '/cfg/airlock/settings.json' */
export function userSettingsFile(env: Readonly<Record<string, string | undefined>>, homeDir: string): string {
  return join(userConfigDir(env, homeDir), 'settings.json');
}

/**
 * Load, validate and merge every settings layer. Throws a SettingsError (naming the file, the
 * path in it and what was expected) if any layer is invalid; nothing should run then.
 *
 * @example
 * const { settings, extensions, layers } = await loadSettings({
 *   cwd: process.cwd(),
 *   settingsFile: flags.settings,
 *   cli: { execution: { mode: 'sequential' } },
 * });
 */
export async function loadSettings(options: LoadSettingsOptions): Promise<LoadedSettings> {
  const env = options.env ?? process.env;
  const homeDir = resolve(options.homeDir ?? homedir());
  const cwd = resolve(options.cwd);
  const configDir = userConfigDir(env, homeDir);
  const userFile = join(configDir, 'settings.json');
  const diagnostics: Diagnostic[] = [];
  const layers: SourcedLayer[] = [];
  const trust = projectTrustOnce(options);

  // 2. The user file: optional; when present it must be valid.
  if (await pathExists(userFile)) {
    const raw = await readSettingsFile(userFile, 'user');
    const values = validateSettings(raw.values, { layer: 'user', file: userFile });
    layers.push({ name: 'user', file: userFile, baseDir: configDir, values });
    const exposed = await keyFileExposure(userFile, values);
    if (exposed !== undefined) diagnostics.push({ code: 'AIRLOCK_SETTINGS_KEY_READABLE', severity: 'warning', details: {}, file: userFile, message: exposed });
  }

  // 3. The project: the explicit file, or discovery.
  const project = await readProject(options, cwd, { homeDir, userConfigDir: configDir }, diagnostics, trust);
  if (project?.values !== undefined) {
    const values = validateSettings(project.values, { layer: 'project', file: project.file, field: project.field });
    const judged = await judgeUntrusted(userOnlyRemoved(values, project.file, userFile, diagnostics), { file: project.file, dir: project.dir }, trust, diagnostics);
    layers.push({ name: 'project', file: project.file, baseDir: project.dir, values: judged });
  }

  // 4. Local rules ("always allow" answers), next to the project settings or in the cwd.
  const localDir = project?.dir ?? cwd;
  const localFile = localRulesFile(localDir);
  if (await pathExists(localFile)) {
    const raw = await readSettingsFile(localFile, 'local');
    const values = await judgeUntrusted(validateLocalRules(raw.values, localFile), { file: localFile, dir: localDir }, trust, diagnostics);
    layers.push({ name: 'local', file: localFile, baseDir: dirname(localFile), values });
  }

  // 5. Settings passed in code, then the CLI flags on top.
  if (options.code !== undefined) {
    layers.push({ name: 'code', baseDir: cwd, values: validateSettings(options.code, { layer: 'code' }) });
  }
  if (options.cli !== undefined) {
    layers.push({ name: 'cli', baseDir: cwd, values: validateSettings(options.cli, { layer: 'cli' }) });
  }

  const merged = mergeLayers(layers, homeDir);
  return {
    settings: merged.settings,
    layers: [
      { name: 'defaults', values: defaultSettings() as SettingsLayer },
      ...layers.map(({ name, file, values }) => ({ name, ...(file ? { file } : {}), values })),
    ],
    ...(project ? { projectDir: project.dir } : {}),
    userFile,
    localFile,
    extensions: merged.extensions,
    extensionsListed: merged.extensionsListed,
    permissions: merged.permissions,
    diagnostics,
  };
}

interface ProjectRead {
  file: string;
  dir: string;
  field?: string | undefined;
  /** Undefined when the file is code that was not allowed to run. */
  values?: unknown;
}

/** The project's trust, asked for at most once per load (false without a callback: fail closed). */
type ProjectTrust = (project: { file: string; dir: string; needs: readonly string[] }) => Promise<boolean>;

function projectTrustOnce(options: LoadSettingsOptions): ProjectTrust {
  let answer: Promise<boolean> | undefined;
  const ask = options.trustProject ?? options.trustProjectCode;
  return (project) => (answer ??= ask ? Promise.resolve(ask(project)).then((trusted) => trusted === true) : Promise.resolve(false));
}

/**
 * A project layer's values without those only a trusted layer may set, unless the folder is
 * trusted; one diagnostic names what was ignored. `extensions` is left to the extension loader,
 * which skips each untrusted entry itself (and keeps the user's entry for it).
 */
async function judgeUntrusted(
  values: SettingsLayer,
  project: { file: string; dir: string },
  trust: ProjectTrust,
  diagnostics: Diagnostic[],
): Promise<SettingsLayer> {
  const { extensions, ...rest } = values;
  const { value, stripped } = stripTrustedOnly(SettingsSchema, rest);
  if (stripped.length === 0 || (await trust({ ...project, needs: stripped }))) return values;
  // The folder's name and the keys come from the project: shown on one line each (displayFields).
  const shown = displayFields({ keys: stripped.join(', '), file: project.file, dir: project.dir });
  diagnostics.push({
    code: 'AIRLOCK_SETTINGS_UNTRUSTED_VALUES',
    severity: 'warning',
    details: { ignored: stripped, projectDir: project.dir },
    file: project.file,
    message:
      `Ignored ${shown.keys} in ${shown.file}: ${shown.dir} is not trusted, and only a trusted folder may set a path on disk, a program or code to run, or switch a protection off. ` +
      `Trust the folder (airlock trust ${shown.dir}, or --trust for this run), or set ${stripped.length === 1 ? 'it' : 'them'} in your user settings instead.`,
  });
  return { ...value, ...(extensions === undefined ? {} : { extensions }) };
}

/**
 * A project layer's values without those only the user may set (a provider's key, its variable,
 * its base URL), trusted or not: trusting a folder lets its code run, it does not hand the folder
 * the user's keys to send to a server of its choosing. One diagnostic names what was ignored.
 */
function userOnlyRemoved(values: SettingsLayer, file: string, userFile: string, diagnostics: Diagnostic[]): SettingsLayer {
  const { value, stripped } = stripKinds(SettingsSchema, values, USER_ONLY_KINDS);
  if (stripped.length === 0) return values;
  const shown = displayFields({ keys: stripped.join(', '), file, userFile });
  diagnostics.push({
    code: 'AIRLOCK_SETTINGS_USER_ONLY_VALUES',
    severity: 'warning',
    details: { ignored: stripped },
    file,
    message:
      `Ignored ${shown.keys} in ${shown.file}: a model provider's key and the URL it is sent to may be set only in your user settings or on the command line, ` +
      `never by a project (trusted or not), so a project cannot send your key to a server of its choosing. ` +
      `Set ${stripped.length === 1 ? 'it' : 'them'} in your user settings (${shown.userFile}), or use --base-url for this run.`,
  });
  return value;
}

async function readProject(
  options: LoadSettingsOptions,
  cwd: string,
  boundaries: SearchBoundaries,
  diagnostics: Diagnostic[],
  trust: ProjectTrust,
): Promise<ProjectRead | undefined> {
  if (options.settingsFile !== undefined) {
    const file = resolve(cwd, options.settingsFile);
    return { file, dir: dirname(file), ...(await readSettingsFile(file, 'project')) };
  }

  const found = await findProjectSettings(cwd, boundaries);
  if (!found) return undefined;
  if (found.kind === 'data') return found;

  const { file, dir } = found;
  if (!(await trust({ file, dir, needs: [] }))) {
    const shown = displayFields({ file, dir });
    diagnostics.push({
      code: 'AIRLOCK_SETTINGS_CODE_NOT_RUN',
      severity: 'warning',
      details: { projectDir: dir },
      file,
      message:
        `Project settings ${shown.file} were not loaded: a settings module is code, and ${shown.dir} is not trusted. ` +
        `Trust the folder (airlock trust ${shown.dir}), or use .airlockrc.json, which is only read.`,
    });
    return { file, dir };
  }
  return { file, dir, ...(await readSettingsFile(file, 'project')) };
}
