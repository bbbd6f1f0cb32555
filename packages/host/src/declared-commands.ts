import type { Diagnostic, ToolUI } from '@airlock/contract';
import { defaultExtensionEntries, hostPackageDir, planExtensions, withDefaultSet, type ExtensionCommandEntry, type ExtensionRecord } from './extensions/index.js';
import type { OpenHostOptions } from './host.js';
import { fromExtensionDiagnostic, settingsWithTrust } from './settings-trust.js';
import { chooseUI } from './ui/index.js';

/**
 * The commands the extensions a host would load declare in their manifests, found without a
 * host: settings and trust as `openHost` decides them, then each extension located and its
 * package.json read. No kernel is made and no extension code is imported or run, so `airlock
 * --help` costs a settings read, and an extension whose setup would fail still lists its commands.
 */

export interface DeclaredCommands {
  /** In load order, each word once (a second extension declaring a word does not load). */
  commands: ExtensionCommandEntry[];
  /** The extensions settings name that would not load (not found, an invalid manifest, an untrusted project's …): each brings no command. */
  notLoading: ExtensionRecord[];
  /** Settings, trust and manifest problems found on the way, with the extension each is about. */
  diagnostics: Diagnostic[];
}

/**
 * @example
 * const { commands } = await declaredCommands({ cwd: process.cwd(), interactive: false });
 * commands.map((c) => `${c.name} (${c.packageName})`); // ['audit (@airlock/audit-log)', 'policy (@airlock/path-policy)']
 */
export async function declaredCommands(
  options: Pick<OpenHostOptions, 'cwd' | 'settingsFile' | 'settings' | 'flags' | 'trust' | 'interactive' | 'env' | 'homeDir' | 'ui'>,
): Promise<DeclaredCommands> {
  const ui: ToolUI = options.ui ?? chooseUI({ isTTY: options.interactive });
  const { settings, trust, diagnostics } = await settingsWithTrust(options, ui);
  const plan = planExtensions({
    entries: withDefaultSet(settings.extensions, defaultExtensionEntries(hostPackageDir())),
    trust: { trusted: trust?.trusted ?? false, ...(settings.projectDir === undefined ? {} : { projectDir: settings.projectDir }) },
    cwd: options.cwd,
    env: { ...(options.env ?? process.env) },
  });
  const loading = new Set(plan.toLoad.map((item) => item.index));
  const notLoading = plan.records.filter((r, i) => !loading.has(i) && r.status !== 'disabled');
  return { commands: plan.commands, notLoading, diagnostics: [...diagnostics, ...plan.diagnostics.map(fromExtensionDiagnostic)] };
}
