import { homedir } from 'node:os';
import type { Diagnostic, ToolUI } from '@airlock/contract';
import { readSettingsFile, userSettingsFile, loadSettings, type LoadedSettings, type PermissionEntry, type SettingsLayer } from './settings/index.js';
import { defaultTrustFile, resolveTrust, trustModeFromLayers, type TrustDecision, type TrustMode } from './trust/index.js';
import type { HostFlags, OpenHostOptions } from './host.js';
import { withPackagePolicies } from './package-layers.js';

/** What settingsWithTrust reads of openHost's options. */
export type SettingsTrustOptions = Pick<OpenHostOptions, 'cwd' | 'settingsFile' | 'settings' | 'flags' | 'trust' | 'interactive' | 'env' | 'homeDir'>;

/**
 * The settings and the project's trust, as every run decides them: discovered files and layers,
 * and the trust question asked at most once (before a project's code config runs, or when the
 * project lists extensions or allow rules). Shared by openHost and declaredCommands, so `--help`
 * lists what a host would load.
 */
export async function settingsWithTrust(
  options: SettingsTrustOptions,
  ui: ToolUI,
): Promise<{ settings: LoadedSettings; trust: TrustDecision | undefined; diagnostics: Diagnostic[]; projectAllows: PermissionEntry[]; trustDir: string | undefined }> {
  const env = options.env ?? process.env;
  const homeDir = options.homeDir ?? homedir();
  // Trust is decided at most once per run: before a code config (airlock.config.ts) of the
  // project may run, or after discovery for data configs.
  let trust: TrustDecision | undefined;
  const decideTrust = async (projectDir: string, mode: TrustMode): Promise<TrustDecision> => {
    trust ??= await resolveTrust({
      projectDir,
      mode,
      interactive: options.interactive && ui.interactive,
      // The question's first line is its title; the dialog shows a title once, above the rest.
      confirm: async (question) => {
        const [title = '', ...rest] = question.split('\n');
        const answer = await ui.ask({ kind: 'confirm', title, ...(rest.length === 0 ? {} : { message: rest.join('\n') }) });
        return 'id' in answer && answer.id === 'yes';
      },
      trustFile: defaultTrustFile(env, homeDir),
      ...(options.trust === undefined ? {} : { flag: options.trust }),
    });
    return trust;
  };
  const userMode = async (): Promise<TrustMode> => {
    try {
      const values = (await readSettingsFile(userSettingsFile(env, homeDir), 'user')).values as { trust?: { default?: TrustMode } } | undefined;
      return values?.trust?.default ?? 'ask';
    } catch {
      return 'ask';
    }
  };

  const settings = await loadSettings({
    cwd: options.cwd,
    ...(options.settingsFile === undefined ? {} : { settingsFile: options.settingsFile }),
    ...(options.settings === undefined ? {} : { code: options.settings }),
    cli: cliLayer(options.flags ?? {}),
    env,
    homeDir,
    trustProject: async ({ dir }) => (await decideTrust(dir, await userMode())).trusted,
  });
  const diagnostics: Diagnostic[] = settings.diagnostics.map((d) => ({ code: d.code, severity: d.severity, message: d.message, details: d.details }));

  // Allow rules a folder brings along (its settings, or a committed .airlock/settings.local.json)
  // would let a cloned repository wave its own commands through: they need trust, like code.
  const projectAllows = settings.permissions.filter((p) => p.effect === 'allow' && (p.layer === 'project' || p.layer === 'local'));
  const trustDir = settings.projectDir ?? (projectAllows.length > 0 ? options.cwd : undefined);
  if (trustDir !== undefined && trust === undefined) {
    const { mode, diagnostics: modeProblems } = trustModeFromLayers(settings.layers);
    diagnostics.push(...modeProblems.map(fromExtensionDiagnostic));
    // Any project list counts, even `[]`: a project that names code asks for trust.
    const hasProjectExtensions = settings.layers.some((l) => l.name === 'project' && l.values.extensions !== undefined);
    // Ask only when it matters: a project that loads no code and allows nothing needs no trust.
    if (hasProjectExtensions || projectAllows.length > 0) await decideTrust(trustDir, mode);
  }
  if (trust !== undefined) diagnostics.push(...trust.diagnostics.map(fromExtensionDiagnostic));

  // Packages' rules and settings, with the trust of the layer naming each (package-layers.ts).
  // They merge into new rule entries, so the project's own allow rules are picked out again.
  const packaged = withPackagePolicies(settings, { trusted: trust?.trusted === true, cwd: options.cwd, env, homeDir });
  diagnostics.push(...packaged.diagnostics);
  const ownAllows = packaged.settings.permissions.filter((p) => p.package === undefined && p.effect === 'allow' && (p.layer === 'project' || p.layer === 'local'));
  return { settings: packaged.settings, trust, diagnostics, projectAllows: ownAllows, trustDir };
}

function cliLayer(flags: HostFlags): SettingsLayer {
  const tools: Record<string, unknown> = {};
  if (flags.tools !== undefined) tools.allow = flags.tools;
  if (flags.excludeTools !== undefined) tools.exclude = flags.excludeTools;
  if (flags.noBuiltinTools) tools.noBuiltin = true;
  if (flags.noTools) tools.none = true;
  const execution: Record<string, unknown> = {};
  if (flags.executionMode !== undefined) execution.mode = flags.executionMode;
  if (flags.maxConcurrency !== undefined) execution.maxConcurrency = flags.maxConcurrency;
  return {
    ...(Object.keys(tools).length > 0 ? { tools } : {}),
    ...(Object.keys(execution).length > 0 ? { execution } : {}),
  } as SettingsLayer;
}

/** What the host reports of a loader diagnostic: where settings named the extension stays with the loader's record. */
export function fromExtensionDiagnostic(d: Diagnostic): Diagnostic {
  return {
    code: d.code,
    severity: d.severity,
    message: d.message,
    ...(d.fix === undefined ? {} : { fix: d.fix }),
    ...(d.extension === undefined ? {} : { extension: d.extension }),
    details: d.details,
    ...(d.stack === undefined ? {} : { stack: d.stack }),
  };
}
