import type { Diagnostic } from '@airlock/contract';
import { displayText } from '@airlock/toolkit/display';
import { diagnostic, errorText } from '../extensions/diagnostics.js';
import type { SettingsLayerName } from '../extensions/types.js';
import { defaultTrustFile, findTrust, readTrustStore, realDir, setTrust, type TrustEntry } from './store.js';

/**
 * Is the project trusted for this run? Precedence, first match wins:
 * 1. `--trust` / `--no-trust` (for this run only, never stored);
 * 2. the stored decision for the folder or its nearest parent (trust.json, real paths);
 * 3. `trust.default` from the user's settings: "always" or "never";
 * 4. "ask" (the default): with a TTY and a `confirm` callback, ask and remember the answer;
 *    without one, untrusted — a script or CI job never gets a project's code run silently.
 */

export type TrustMode = 'ask' | 'always' | 'never';

export interface ResolveTrustOptions {
  projectDir: string;
  /** `--trust` (true) / `--no-trust` (false); undefined when neither was given. */
  flag?: boolean;
  /** `trust.default` from the user layer only; see `trustModeFromLayers`. Default "ask". */
  mode?: TrustMode;
  /** Both stdin and stdout are a TTY (a person can answer). */
  interactive: boolean;
  /** Asks a yes/no question (the UI's TTY prompt). Without it, "ask" means untrusted. */
  confirm?: (message: string) => Promise<boolean>;
  /** Default: `$XDG_CONFIG_HOME/airlock/trust.json`. */
  trustFile?: string;
  /** Store the answer to the question (default true), so the next run does not ask again. */
  remember?: boolean;
  /** The project extensions waiting for the answer, named in the question. */
  extensions?: readonly string[];
  now?: () => Date;
}

export interface TrustDecision {
  trusted: boolean;
  /** The project folder's real path (what trust.json is keyed by). */
  projectDir: string;
  source: 'flag' | 'stored' | 'setting' | 'prompt' | 'not-interactive';
  /** The stored decision that applied; its path may be a parent of `projectDir`. */
  entry?: TrustEntry;
  /** One sentence for `airlock extensions` and logs. */
  reason: string;
  diagnostics: Diagnostic[];
}

/**
 * @example
 * const trust = await resolveTrust({ projectDir: cwd, flag: opts.trust, mode: 'ask', interactive: io.isTTY, confirm: ui.confirmText });
 * await loadExtensions({ ..., trust: { trusted: trust.trusted, projectDir: trust.projectDir } });
 */
export async function resolveTrust(options: ResolveTrustOptions): Promise<TrustDecision> {
  const projectDir = realDir(options.projectDir);
  const trustFile = options.trustFile ?? defaultTrustFile();
  const decide = (trusted: boolean, source: TrustDecision['source'], reason: string, extra: Partial<TrustDecision> = {}): TrustDecision => ({
    trusted,
    projectDir,
    source,
    reason,
    diagnostics: [],
    ...extra,
  });

  if (options.flag !== undefined) {
    return decide(options.flag, 'flag', options.flag ? 'trusted for this run (--trust)' : 'not trusted for this run (--no-trust)');
  }

  const store = readTrustStore(trustFile);
  const entry = findTrust(projectDir, store.entries);
  if (entry) {
    const scope = entry.path === projectDir ? projectDir : `${entry.path} (a parent folder)`;
    return decide(entry.trusted, 'stored', `${entry.trusted ? 'trusted' : 'marked untrusted'}: ${scope}, on ${entry.at}`, {
      entry,
      diagnostics: store.diagnostics,
    });
  }
  const withStore = { diagnostics: store.diagnostics };

  const mode = options.mode ?? 'ask';
  if (mode === 'always') return decide(true, 'setting', 'trusted: your settings say trust.default "always"', withStore);
  if (mode === 'never') return decide(false, 'setting', `not trusted: your settings say trust.default "never" (run \`airlock trust ${projectDir}\` to trust it)`, withStore);

  if (!options.interactive || options.confirm === undefined) {
    return decide(false, 'not-interactive', `not trusted: no one to ask (no TTY); run \`airlock trust ${projectDir}\` or pass --trust`, withStore);
  }

  let answer: boolean;
  try {
    answer = (await options.confirm(question(projectDir, trustFile, options.extensions ?? []))) === true;
  } catch (error) {
    // An interrupted prompt is no consent, and nothing is remembered.
    return decide(false, 'prompt', `not trusted: the question was not answered (${errorText(error)})`, withStore);
  }
  let entryStored: TrustEntry | undefined;
  const diagnostics = [...store.diagnostics];
  if (options.remember !== false && store.diagnostics.length === 0) {
    try {
      entryStored = await setTrust(projectDir, answer, { trustFile, ...(options.now ? { now: options.now() } : {}) });
    } catch (error) {
      diagnostics.push(diagnostic('AIRLOCK_TRUST_FILE_INVALID', {}, { trustFile, reason: `the answer could not be saved: ${errorText(error)}` }));
    }
  }
  return decide(answer, 'prompt', answer ? 'trusted: you said yes' : 'not trusted: you said no', {
    diagnostics,
    ...(entryStored ? { entry: entryStored } : {}),
  });
}

/**
 * The question, three lines. The folder's name and the extensions come from the project being
 * asked about, so each is shown on one line with displayText: a line break in a folder's name or
 * in a settings entry cannot start a line that passes for part of the question.
 */
function question(projectDir: string, trustFile: string, extensions: readonly string[]): string {
  const one = (text: string): string => displayText(text, { maxChars: 300 });
  const what = extensions.length > 0 ? `Its settings load extensions: ${extensions.map(one).join(', ')}. ` : 'Its settings may load extensions. ';
  return (
    `Trust the project folder ${one(projectDir)}?\n` +
    `${what}Extensions are code that runs with your permissions; trust only a project you know.\n` +
    `The answer is remembered in ${one(trustFile)} (change it with \`airlock trust\` or \`airlock trust --revoke\`).`
  );
}

/** A settings layer as far as trust cares (the settings code's `LoadedSettings.layers` items fit). */
export interface TrustSettingsLayer {
  name: SettingsLayerName;
  file?: string;
  /** The layer's own values, unmerged. */
  values: unknown;
}

/**
 * `trust.default` from the layers allowed to set it: built-in defaults, the user's file and the
 * command line. A project layer that sets it is ignored with a warning: a project must not be
 * able to trust itself.
 *
 * @example
 * trustModeFromLayers(loadedSettings.layers);
 * trustModeFromLayers([{ name: 'user', values: { trust: { default: 'never' } } },
 *                      { name: 'project', file: '/p/.airlockrc.json', values: { trust: { default: 'always' } } }]);
 * // → { mode: 'never', diagnostics: [AIRLOCK_TRUST_DEFAULT_IGNORED] }
 */
export function trustModeFromLayers(layers: readonly TrustSettingsLayer[]): { mode: TrustMode; diagnostics: Diagnostic[] } {
  let mode: TrustMode = 'ask';
  const diagnostics: Diagnostic[] = [];
  const rank: Record<SettingsLayerName, number> = { defaults: 0, user: 1, project: 2, local: 3, code: 4, cli: 5 };
  for (const layer of [...layers].sort((a, b) => rank[a.name] - rank[b.name])) {
    const value = (layer.values as { trust?: { default?: unknown } } | null | undefined)?.trust?.default;
    if (value === undefined) continue;
    const subject = { layer: layer.name, ...(layer.file ? { file: layer.file } : {}) };
    if (layer.name === 'project') {
      diagnostics.push(diagnostic('AIRLOCK_TRUST_DEFAULT_IGNORED', subject, { value }));
      continue;
    }
    if (value !== 'ask' && value !== 'always' && value !== 'never') {
      diagnostics.push(diagnostic('AIRLOCK_TRUST_DEFAULT_INVALID', subject, { value }));
      continue;
    }
    mode = value;
  }
  return { mode, diagnostics };
}
