import { registerErrorCodes, type ErrorCodeSpec } from '@airlock/toolkit';
import { type Diagnostic, type Severity } from '@airlock/contract';
import { displayFields } from '@airlock/toolkit/display';
import { didYouMean } from '@airlock/toolkit/util';
import type { SettingsLayerName } from './types.js';

/**
 * Every problem the extension loader and project trust report: a stable code, a severity, and a
 * message that says what happened, why, and how to fix it, built as the kernel's `Diagnostic`.
 * The codes are entries of the one error catalogue (registered below, each with its summary), so
 * docs/errors.md lists them. Tests and the CLI match on codes; the
 * wording may change, codes may not.
 *
 * Severity: `error` means the extension did not load (or a policy decision is missing);
 * `warning` means loading went on as the user would expect (a default extension that is not
 * installed yet, an untrusted project's extensions left out, a manifest that drifted).
 */

/** Who a diagnostic is about: the extension and where settings named it. */
export interface Subject {
  extension?: string;
  spec?: string;
  layer?: SettingsLayerName;
  file?: string;
}

interface Rendered {
  message: string;
  fix: string;
}

/**
 * One code: its severity, its catalogue entry (docs/errors.md: the message with placeholders for
 * the values, and what to do), and how the message is worded with the real values.
 */
interface Entry<D> {
  severity: 'error' | 'warning';
  doc: Omit<ErrorCodeSpec, 'severity'>;
  render(details: D, subject: Subject): Rendered;
}

function entry<D>(severity: 'error' | 'warning', doc: Omit<ErrorCodeSpec, 'severity'>, render: (details: D, subject: Subject) => Rendered): Entry<D> {
  return { severity, doc, render };
}

/** `"acme-guard" (named in /p/.airlockrc.json)` — where settings named it, so people can find it. */
function who(s: Subject): string {
  const name = `"${s.extension ?? '?'}"`;
  if (s.file) return `${name} (named in ${s.file})`;
  if (s.layer === 'defaults') return `${name} (one of Airlock's default extensions)`;
  if (s.layer === 'cli') return `${name} (named on the command line)`;
  if (s.layer === 'code') return `${name} (passed in code)`;
  return name;
}

function settingsPlace(s: Subject): string {
  return s.file ?? (s.layer === 'cli' ? 'the command line' : s.layer === 'code' ? 'the settings your program passes in code' : 'your settings');
}

function bullets(lines: readonly string[]): string {
  return lines.map((l) => `  - ${l}`).join('\n');
}

/**
 * Said when setup failed: a definition refused by the kernel may also be one the extension caught
 * and lived with (then it loaded without that tool or handler, and `rolledBack` is absent).
 */
function notLoaded(rolledBack: readonly string[] | undefined): string {
  if (rolledBack === undefined) return '';
  if (rolledBack.length === 0) return '\nThe extension was not loaded.';
  return `\nThe extension was not loaded, and what it had registered was removed again: ${rolledBack.join(', ')}.`;
}

function withFix(text: string, fix: string): Rendered {
  return { message: `${text}\nFix: ${fix}`, fix };
}

export interface NotFoundDetails {
  spec: string;
  kind: 'package' | 'path';
  /** Every place looked at, in order. */
  searched: readonly string[];
  /** Set when the package exists in the project's node_modules but the project is not trusted. */
  inUntrustedProject?: string;
  userExtensions?: string;
  baseDir?: string;
  /** Known names (or files) close to `spec`: typos such as `@airlock/path-polcy`. */
  suggestions?: readonly string[];
}

/** ` Did you mean "@airlock/path-policy"?` — or nothing when nothing is close. */
function near(suggestions: readonly string[] | undefined): string {
  const hint = didYouMean(suggestions ?? []);
  return hint ? ` ${hint}` : '';
}

export interface ManifestDetails {
  packageDir: string;
  problems: readonly string[];
}

export interface RangeDetails {
  packageName: string;
  version: string;
  range: string;
  kernelVersion: string;
  /** Which side is too old, when the range lies wholly above or below the kernel. */
  upgrade?: 'airlock' | 'extension';
}

export interface ErrorDetails {
  packageName?: string;
  entryFile?: string;
  reason: string;
}

/** The catalogue. Keys are the codes, grouped by the step that raises them. */
const CATALOGUE = {
  // ─── Resolution: finding the package ────────────────────────────────────────────────────
  AIRLOCK_EXTENSION_SPEC_INVALID: entry<{ spec: unknown; reason: string }>('error', {
    message: 'Extension entry {spec} in {settings file} is not usable: {reason}.',
    action: 'Name a package ("@acme/guard") or a path starting with ./, ../, / or ~/.',
  }, (d, s) =>
    withFix(
      `Extension entry ${JSON.stringify(d.spec)} in ${settingsPlace(s)} is not usable: ${d.reason}.`,
      'name a package ("@acme/guard", "airlock-hello-tool") or a path starting with ./, ../, / or ~/.',
    ),
  ),

  AIRLOCK_EXTENSION_NOT_FOUND: entry<NotFoundDetails>('error', {
    message: 'Extension "{spec}" was not found (every place looked in is listed, with close names).',
    action: 'Install it in the project or your user folder, correct the name or path, or trust the project whose node_modules hold it.',
  }, (d, s) => {
    const looked = `Looked in:\n${bullets(d.searched)}`;
    const close = near(d.suggestions);
    if (d.kind === 'path') {
      return withFix(
        `Extension ${who(s)} was not found.${close} A path is resolved against the folder of the settings file that names it${d.baseDir ? ` (${d.baseDir})` : ''}. ${looked}`,
        'correct the path (a .ts or .js file, or the folder that holds the extension\'s package.json), or remove the entry.',
      );
    }
    if (d.inUntrustedProject) {
      return withFix(
        `Extension ${who(s)} was not found outside the project. It is installed in the project (${d.inUntrustedProject}), ` +
          `but the project is not trusted, so its node_modules cannot supply code. ${looked}`,
        'trust the project (`airlock trust`, or --trust for one run) or install the extension in your user folder: ' +
          `npm i --prefix ${d.userExtensions ?? '~/.config/airlock/extensions'} ${d.spec}`,
      );
    }
    // `extensions add` takes a name, a folder or a tarball and uses the project's own package
    // manager; naming one manager here sent npm users to pnpm, and a local folder to the registry.
    const install = `install it in the project (airlock extensions add <its npm name, folder or .tgz>) or in your user folder (npm i --prefix ${d.userExtensions ?? '~/.config/airlock/extensions'} <the same>)`;
    const meant = d.suggestions?.[0];
    return withFix(
      `Extension ${who(s)} was not found.${close} ${looked}`,
      meant === undefined
        ? `${install}, or correct the name in ${settingsPlace(s)}.`
        : `write ${JSON.stringify(meant)} instead in ${settingsPlace(s)}; if you do mean ${JSON.stringify(d.spec)}, ${install}.`,
    );
  }),

  AIRLOCK_EXTENSION_NOT_INSTALLED: entry<{ spec: string; searched: readonly string[] }>('warning', {
    message: 'Default extension "{spec}" is not installed, so what it provides is missing from this run.',
    action: 'Install it next to Airlock, or leave it out on purpose with "-{spec}" under "extensions".',
  }, (d, s) =>
    withFix(
      `Default extension "${d.spec}" is not installed, so what it provides is missing from this run (the others still load). ` +
        `Looked in:\n${bullets(d.searched)}`,
      `install ${d.spec} next to Airlock, or leave it out on purpose with "-${d.spec}" under "extensions" in your settings.`,
    ),
  ),

  AIRLOCK_EXTENSION_GUARDS_LEFT_OUT: entry<{ left: readonly { spec: string; loss: string; file?: string; layer: SettingsLayerName }[] }>('warning', {
    message: 'Your settings leave out a guard (a default one, or a policy extension an earlier layer lists), so this run is less protected.',
    action: 'If that is not what you want, remove the "-{spec}" entries (or "enabled": false) from "extensions".',
  }, (d) =>
    withFix(
      `Your settings leave out ${d.left.length === 1 ? 'a guard' : `${d.left.length} guards`} (a default one, or a policy extension an earlier layer lists), so this run is less protected:\n` +
        bullets(d.left.map((l) => `"${l.spec}" (left out in ${l.file ?? `the ${l.layer} layer`}): ${l.loss}`)),
      `if that is not what you want, remove ${d.left.map((l) => `"-${l.spec}"`).join(', ')} (or the entries with "enabled": false) from "extensions".`,
    ),
  ),

  AIRLOCK_EXTENSION_LEFT_OUT_UNKNOWN: entry<{ spec: string; suggestions: readonly string[] }>('warning', {
    message: 'The entry leaving out "{spec}" leaves out nothing: no default and no earlier layer loads an extension by that name.',
    action: 'Write the name of the extension to leave out (the closest is suggested), or remove the entry.',
  }, (d, s) =>
    withFix(
      `The entry leaving out "${d.spec}" in ${settingsPlace(s)} leaves out nothing: no default and no earlier layer loads an extension by that name.${near(d.suggestions)}`,
      `write "-${d.suggestions[0]}" if that is the one to leave out, or remove the entry.`,
    ),
  ),

  AIRLOCK_EXTENSION_UNTRUSTED: entry<{
    spec: string;
    projectDir: string;
    policy: boolean;
    /** The user's (or CLI's) entry for the same extension, used instead. */
    fallback?: { layer: SettingsLayerName; file?: string };
  }>('warning', {
    message: 'Project extension "{spec}" was not loaded: the project folder is not trusted, and an extension is code.',
    action: 'Review the project, then run `airlock trust <dir>` (or pass --trust for one run).',
  }, (d, s) =>
    withFix(
      `Project extension ${who(s)} was not loaded: the project folder ${d.projectDir} is not trusted, and an extension is code ` +
        'that runs with your permissions.' +
        (d.fallback
          ? ` Your own entry for it (${d.fallback.file ?? `the ${d.fallback.layer} layer`}) is used instead, with its options.`
          : d.policy
            ? ' It declares policy handlers, so the policy it would enforce is NOT in force in this run.'
            : ''),
      `review the project, then run \`airlock trust ${d.projectDir}\` (or pass --trust for this run only).`,
    ),
  ),

  AIRLOCK_EXTENSION_LISTED_TWICE: entry<{ spec: string; kept: { layer: SettingsLayerName; file?: string | undefined } }>('warning', {
    message: 'Extension "{spec}" is listed more than once; the entry from the highest layer is used, with its options.',
    action: 'List each extension once, in the settings layer whose options should apply.',
  }, (d, s) =>
    withFix(
      `Extension ${who(s)} is listed more than once; the entry from the ${d.kept.layer} layer` +
        `${d.kept.file ? ` (${d.kept.file})` : ''} is used, with its options, and this one is ignored.`,
      'list each extension once, in the settings layer whose options should apply.',
    ),
  ),

  // ─── The manifest ───────────────────────────────────────────────────────────────────────
  AIRLOCK_EXTENSION_MANIFEST_MISSING: entry<{ packageDir: string; packageName?: string }>('error', {
    message: 'Extension "{spec}" at {packageDir} is not an Airlock extension: its package.json has no "airlock" field.',
    action: 'Add "airlock": { "extension": "./src/index.ts", "kernel": "^1.0.0" } to its package.json, or remove it from your settings.',
  }, (d, s) =>
    withFix(
      `Extension ${who(s)} at ${d.packageDir} is not an Airlock extension: its package.json has no "airlock" field.`,
      'if you wrote it, add to package.json: "airlock": { "extension": "./src/index.ts", "kernel": "^1.0.0" }; ' +
        'otherwise remove it from the extensions in your settings.',
    ),
  ),

  AIRLOCK_EXTENSION_MANIFEST_INVALID: entry<ManifestDetails>('error', {
    message: 'Extension "{spec}" has an invalid manifest (package.json#airlock); every problem is listed.',
    action: 'Correct package.json#airlock (extension, kernel, provides).',
  }, (d, s) =>
    withFix(
      `Extension ${who(s)} at ${d.packageDir} has an invalid manifest (package.json#airlock):\n${bullets(d.problems)}`,
      // Rules a package carries are written as in a settings file: say so, not the code manifest's form.
      d.problems.some((p) => /^"airlock\.(rules|settings)\b/.test(p))
        ? `correct "airlock.rules" / "airlock.settings" in ${d.packageDir}/package.json (written as "permissions" and the other keys of a settings file; docs/settings.md), or install a fixed version of the package.`
        : 'correct package.json#airlock, e.g. { "extension": "./src/index.ts", "kernel": "^1.0.0", "provides": { "tools": ["x"], "hooks": ["tool_call:authorize"] } }.',
    ),
  ),

  AIRLOCK_EXTENSION_ENTRY_NOT_FOUND: entry<{ packageDir: string; entry: string; entryFile: string }>('error', {
    message: 'The manifest of extension "{spec}" names the entry module "{entry}", which does not exist.',
    action: 'Build the extension, point "extension" at its TypeScript source, or reinstall the package.',
  }, (d, s) =>
    withFix(
      `Extension ${who(s)}: its manifest names the entry module "${d.entry}", but ${d.entryFile} does not exist.`,
      /\bdist\b/.test(d.entry)
        ? `build the extension (its entry is build output), or point "extension" at its TypeScript source, e.g. "./src/index.ts".`
        : 'correct "extension" in its package.json#airlock, or reinstall the package.',
    ),
  ),

  // ─── Compatibility ──────────────────────────────────────────────────────────────────────
  AIRLOCK_EXTENSION_KERNEL_RANGE_INVALID: entry<RangeDetails>('error', {
    message: 'Extension "{spec}" declares the kernel range "{range}", which is not a valid semver range.',
    action: 'Upgrade the extension to a release with a valid range (e.g. "^1.0.0"), or remove it.',
  }, (d, s) =>
    withFix(
      `Extension ${who(s)} (${d.packageName}@${d.version}) declares the kernel range "${d.range}", which is not a valid semver range, ` +
        `so Airlock (kernel ${d.kernelVersion}) cannot tell whether they work together.`,
      `the extension's package.json#airlock.kernel must be a range such as "^${majorOf(d.kernelVersion)}.0.0"; upgrade the extension ` +
        `to a release that fixes it, or remove it from ${settingsPlace(s)}.`,
    ),
  ),

  AIRLOCK_EXTENSION_INCOMPATIBLE: entry<RangeDetails>('error', {
    message: 'Extension "{spec}" needs kernel "{range}", but this Airlock runs kernel {kernelVersion}; it was not loaded.',
    action: 'Upgrade whichever side is too old (the message says which), or use a release of the extension that supports this kernel.',
  }, (d, s) => {
    const fix =
      d.upgrade === 'airlock'
        ? `upgrade Airlock to a release whose kernel satisfies "${d.range}", or use a release of ${d.packageName} that supports kernel ${d.kernelVersion}.`
        : d.upgrade === 'extension'
          ? `upgrade ${d.packageName} to a release that supports kernel ${d.kernelVersion} (its range "${d.range}" stops below it), or remove it from ${settingsPlace(s)}.`
          : `use a release of ${d.packageName} whose range includes kernel ${d.kernelVersion}, or a release of Airlock within "${d.range}".`;
    return withFix(
      `Extension ${who(s)} (${d.packageName}@${d.version}) needs kernel "${d.range}", but this Airlock runs kernel ${d.kernelVersion}; it was not loaded.`,
      fix,
    );
  }),

  AIRLOCK_EXTENSION_CHANGED: entry<{ packageName: string; lockFile: string; change: string }>('error', {
    message: 'Extension "{spec}" ({packageName}) is not what was added: {change}; it was not loaded.',
    action: 'If the change is yours or expected, run `airlock extensions add <name>` again to pin what is installed now; otherwise reinstall it.',
  }, (d, s) =>
    withFix(
      `Extension ${who(s)} (${d.packageName}) is not what \`airlock extensions add\` pinned in ${d.lockFile}: ${d.change}; ` +
        'none of its code ran, and it was not loaded.',
      `if you expected the change, run \`airlock extensions add ${d.packageName}\`${s.layer === 'user' ? ' --user' : ''} again to check and pin what is installed now; ` +
        'otherwise reinstall it from a source you trust.',
    ),
  ),

  // ─── Import and export ──────────────────────────────────────────────────────────────────
  AIRLOCK_EXTENSION_IMPORT_FAILED: entry<ErrorDetails>('error', {
    message: 'Extension "{spec}" threw while its module {entryFile} was imported: {reason}.',
    action: 'Fix the error in the extension (or update it), or remove it from your settings.',
  }, (d, s) =>
    withFix(
      `Extension ${who(s)} failed while its module ${d.entryFile ?? ''} was imported: ${d.reason}`,
      'fix the error in the extension (or update it), or remove it from your settings.',
    ),
  ),

  AIRLOCK_EXTENSION_BAD_EXPORT: entry<{ entryFile: string; problems: readonly string[] }>('error', {
    message: 'The module {entryFile} of extension "{spec}" does not default-export an extension (the problems are listed).',
    action: 'Default-export { name, options?, setup(api, options) } satisfies Extension (docs/extensions.md).',
  }, (d, s) =>
    withFix(
      `Extension ${who(s)}: ${d.entryFile} does not default-export an extension:\n${bullets(d.problems)}`,
      // The form docs/extensions.md teaches: a plain object, typed with `satisfies` (a type-only
      // import, so the extension never loads a second kernel at run time).
      "default-export the extension object: export default { name: 'my-ext', options: Options, setup(api, options) { ... } } " +
        'satisfies Extension<typeof Options>, with `import type { Extension } from "@airlock/contract"` (docs/extensions.md).',
    ),
  ),

  AIRLOCK_EXTENSION_NAME_TAKEN: entry<{ name: string; first: string; second: string }>('error', {
    message: 'Extension "{spec}" calls itself "{name}", but another extension already loaded under that name.',
    action: 'Remove one of the two from your settings, or rename one extension.',
  }, (d, s) =>
    withFix(
      `Extension ${who(s)} calls itself "${d.name}", but ${d.first} already loaded under that name. Handler names are ` +
        `namespaced by extension name ("${d.name}/…"), so two extensions cannot share one.`,
      `remove one of ${d.first} and ${d.second} from your settings, or rename one extension.`,
    ),
  ),

  AIRLOCK_EXTENSION_OPTIONS_INVALID: entry<{ errors: readonly string[]; received: unknown }>('error', {
    message: "Extension \"{spec}\" was not loaded: its options do not match its schema (every bad path is listed).",
    action: 'Correct the options for this extension in the settings file named.',
  }, (d, s) =>
    withFix(
      `Extension ${who(s)} was not loaded: its options do not match its schema:\n${bullets(d.errors)}`,
      `correct the options for this extension in ${settingsPlace(s)}.`,
    ),
  ),

  AIRLOCK_EXTENSION_SETTINGS_INVALID: entry<{ problems: readonly string[]; settingsFix?: string; fix: string }>('error', {
    message: 'Extension "{spec}" was not loaded: settings it reads do not fit its schema (each value is named with the settings file that set it).',
    action: 'Correct each value in the file named; a value no file sets is for your settings or for the extension to accept.',
  }, (d, s) =>
    withFix(
      `Extension ${who(s)} was not loaded: settings it reads do not fit its schema:\n${bullets(d.problems)}`,
      // `settingsFix` when every value is in a settings file: the fix is there, not in removing the extension.
      d.settingsFix ?? d.fix,
    ),
  ),

  AIRLOCK_EXTENSION_OPTIONS_UNEXPECTED: entry<{ received: unknown }>('warning', {
    message: 'Extension "{spec}" takes no options, but settings give it some; they are passed on unchecked.',
    action: "Remove the options, or ask the extension's author to declare an options schema.",
  }, (d, s) =>
    withFix(
      `Extension ${who(s)} takes no options (it declares no options schema), but settings give it ${JSON.stringify(d.received)}; they are passed on unchecked.`,
      `remove the options from ${settingsPlace(s)}, or ask the extension's author to declare an options schema.`,
    ),
  ),

  AIRLOCK_EXTENSION_OPTIONS_UNTRUSTED: entry<{ ignored: string[] }>('warning', {
    message: 'Ignored options {ignored} of extension "{spec}": the layer is not trusted, and only a trusted layer may set a path, a program or code.',
    action: 'Trust the project folder (`airlock trust`), or set the option in your user settings.',
  }, (d, s) =>
    withFix(
      `Ignored option${d.ignored.length === 1 ? '' : 's'} ${d.ignored.join(', ')} of extension ${who(s)}: ${settingsPlace(s)} is not trusted, and only a trusted layer may set a path, a program or code.`,
      'trust the project folder (`airlock trust`), or set the option in your user settings.',
    ),
  ),

  AIRLOCK_EXTENSION_OPTIONS_USER_ONLY: entry<{ ignored: string[] }>('warning', {
    message: 'Ignored options {ignored} of extension "{spec}": they are credentials (a key, or where one is sent), which only your user settings or the command line may set, never a project.',
    action: 'Set those options in your user settings file.',
  }, (d, s) =>
    withFix(
      `Ignored option${d.ignored.length === 1 ? '' : 's'} ${d.ignored.join(', ')} of extension ${who(s)}: ${settingsPlace(s)} is a project's, and only your user settings may set an API key or where one is sent, trusted project or not.`,
      'set the option in your user settings.',
    ),
  ),

  AIRLOCK_EXTENSION_LOAD_FAILED: entry<{ reason: string }>('error', {
    message: 'Extension "{spec}" could not be loaded: {reason} (not expected at this step; the other extensions still loaded).',
    action: 'Run the command again; if it happens again, report it with the message, or remove the extension.',
  }, (d, s) =>
    withFix(
      `Extension ${who(s)} could not be loaded: ${d.reason}. This was not expected at this step (a file changed while ` +
        'Airlock read it, or a bug in Airlock); the other extensions still loaded.',
      'run the command again; if it happens again, report it with this message, or remove the extension from your settings.',
    ),
  ),

  // ─── Setup ──────────────────────────────────────────────────────────────────────────────
  AIRLOCK_EXTENSION_SETUP_FAILED: entry<ErrorDetails & { rolledBack: readonly string[]; settingsFix?: string }>('error', {
    message: 'Extension "{spec}" failed in setup: {reason}; what it had registered was removed again.',
    action: 'Fix the error in the extension or its options (the message says which), or remove it from your settings.',
  }, (d, s) =>
    withFix(
      `Extension ${who(s)} failed in setup: ${d.reason}${notLoaded(d.rolledBack)}`,
      // An extension that refused the user's settings (a rule whose example fails) said how to
      // correct them; removing the extension would be the wrong advice for a typo in a rule.
      d.settingsFix ?? 'fix the error in the extension (or its options), or remove it from your settings.',
    ),
  ),

  AIRLOCK_EXTENSION_SETUP_TIMEOUT: entry<{ timeoutMs: number; rolledBack: readonly string[] }>('error', {
    message: 'Extension "{spec}" did not finish setup within {timeoutMs} ms; it was not loaded.',
    action: 'Make setup return once its tools and handlers are registered; start long work lazily.',
  }, (d, s) =>
    withFix(
      `Extension ${who(s)} did not finish setup within ${d.timeoutMs} ms; it probably awaits a promise that never settles. ` +
        'It was not loaded' +
        (d.rolledBack.length > 0 ? `, and what it had registered was removed again: ${d.rolledBack.join(', ')}.` : '.'),
      'make setup return (or resolve) once its tools and handlers are registered; start long work lazily, from a tool.',
    ),
  ),

  AIRLOCK_EXTENSION_DUPLICATE_TOOL: entry<{ tool: string; existing: string; incoming: string; rolledBack?: readonly string[] }>('error', {
    message: 'Extension "{spec}" registers tool "{tool}", which {existing} already registered.',
    action: 'Remove one of the two extensions, rename the tool, or set `override: true` on the tool that should win.',
  }, (d, s) =>
    withFix(
      `Extension ${who(s)} registers tool "${d.tool}", which ${d.existing} already registered. The model calls tools by name, ` +
        `so two tools cannot share one.${notLoaded(d.rolledBack)}`,
      `remove one of the two extensions, or rename the tool, or set \`override: true\` on the tool from ${d.incoming} to replace the one from ${d.existing}.`,
    ),
  ),

  AIRLOCK_EXTENSION_TOOL_INVALID: entry<{ tool: string; reason: string; rolledBack?: readonly string[] }>('error', {
    message: 'Extension "{spec}" registers an invalid tool "{tool}": {reason}.',
    action: 'Correct the tool definition in the extension (or update it), or remove it from your settings.',
  }, (d, s) =>
    withFix(
      `Extension ${who(s)} registers an invalid tool "${d.tool}": ${d.reason}${notLoaded(d.rolledBack)}`,
      'correct the tool definition in the extension (or update it), or remove it from your settings.',
    ),
  ),

  AIRLOCK_EXTENSION_COMMAND_INVALID: entry<{ command: string; owner: string }>('error', {
    message: 'Extension "{spec}" declares a command another extension already declares, so it was not loaded.',
    action: 'Rename the command in one package.json#airlock.commands, or remove one of the two extensions from your settings.',
  }, (d, s) =>
    withFix(
      `Extension ${who(s)} declares the command "${d.command}", which ${d.owner} already declares; two extensions cannot share a command, so it was not loaded.`,
      `rename the command in one package's package.json#airlock.commands, or remove one of the two extensions from ${settingsPlace(s)}.`,
    ),
  ),

  AIRLOCK_EXTENSION_COMMAND_UNDECLARED: entry<{ command: string }>('warning', {
    message: 'Extension "{spec}" calls api.registerCommand("{command}"), which adds no command; the extension loads without it.',
    action: 'Declare the command in package.json#airlock.commands with a module that default-exports defineCommand(...), and remove the call.',
  }, (d, s) =>
    withFix(
      `Extension ${who(s)} calls api.registerCommand("${d.command}"), which adds no command: commands are declared in the package's manifest, so \`airlock --help\` can list them without running any setup. \`airlock ${d.command}\` is not available.`,
      `declare it in its package.json: "airlock": { "commands": [{ "name": "${d.command}", "summary": "…", "module": "./src/${d.command}-command.ts" }] }, with the module default-exporting defineCommand({ arguments, options, run }) from @airlock/kernel, and remove the registerCommand call (docs/extensions.md, "Commands").`,
    ),
  ),

  AIRLOCK_EXTENSION_HANDLER_INVALID: entry<{ handler: string; reason: string; rolledBack?: readonly string[] }>('error', {
    message: 'Extension "{spec}" adds a handler "{handler}" that the kernel refused: {reason}.',
    action: 'Correct the api.on(...) call in the extension (or update it), or remove it from your settings.',
  }, (d, s) =>
    withFix(
      `Extension ${who(s)} adds a handler "${d.handler}" that the kernel refused: ${d.reason}${notLoaded(d.rolledBack)}`,
      'correct the api.on(...) call in the extension (or update it), or remove it from your settings.',
    ),
  ),

  AIRLOCK_EXTENSION_TOOL_UNJUDGED: entry<{ tool: string; parameters: readonly string[] }>('warning', {
    message: 'Tool "{tool}" takes parameters that look like paths but declares no resources(), so path rules never reach its calls.',
    action: 'Give the tool a resources(params, ctx); until then, rule on the tool by name.',
  }, (d, s) =>
    withFix(
      `Tool "${d.tool}" of ${who(s)} takes ${d.parameters.map((p) => `"${p}"`).join(', ')}, which ${d.parameters.length === 1 ? 'looks' : 'look'} like a path, but declares no resources(): ` +
        'policy judges its calls by tool name only, so path rules such as deny fs.read(**/.env) never reach them.',
      `give the tool a resources(params, ctx) that returns what a call reads and writes, e.g. [{ kind: "fs.read", path: params.${d.parameters[0]} }]; until then, rule on the tool by name (deny/ask "${d.tool}").`,
    ),
  ),

  AIRLOCK_EXTENSION_PROVIDES_MISMATCH: entry<{ problems: readonly string[] }>('warning', {
    message: 'Extension "{spec}" registers something other than its manifest declares (package.json#airlock.provides).',
    action: 'Make provides list exactly the tools and "hook:phase" pairs the extension registers.',
  }, (d, s) =>
    withFix(
      `Extension ${who(s)} registers something other than its manifest declares (package.json#airlock.provides):\n${bullets(d.problems)}\n` +
        'Airlock reads declared policy hooks to fail closed when an extension breaks before it registers them.',
      'make package.json#airlock.provides list exactly the tools and the "hook:phase" pairs the extension registers.',
    ),
  ),

  // ─── Project trust ──────────────────────────────────────────────────────────────────────
  AIRLOCK_TRUST_FILE_INVALID: entry<{ trustFile: string; reason: string }>('warning', {
    message: 'The trust file {trustFile} cannot be read ({reason}); no folder counts as trusted until it is fixed.',
    action: 'Fix or delete the trust file, then trust folders again with `airlock trust <dir>`.',
  }, (d) =>
    withFix(
      `The trust file ${d.trustFile} cannot be read (${d.reason}); no folder counts as trusted until it is fixed.`,
      `fix or delete ${d.trustFile}, then trust folders again with \`airlock trust <dir>\`.`,
    ),
  ),

  AIRLOCK_TRUST_FILE_INSECURE: entry<{ trustFile: string; reason: string }>('warning', {
    message: 'The trust file {trustFile} is ignored: {reason}. Someone else could mark folders as trusted through it.',
    action: 'chmod 600 the file (and make sure it is yours), or delete it and trust folders again.',
  }, (d) =>
    withFix(
      `The trust file ${d.trustFile} is ignored: ${d.reason}. Someone else could mark folders as trusted through it.`,
      `chmod 600 ${d.trustFile} (and make sure it belongs to you), or delete it and trust folders again.`,
    ),
  ),

  AIRLOCK_TRUST_DEFAULT_IGNORED: entry<{ value: unknown }>('warning', {
    message: 'Project settings set trust.default; it is ignored, because a project must not be able to trust itself.',
    action: 'Remove trust.default from the project settings; set it in your user settings if you want it.',
  }, (d, s) =>
    withFix(
      `${s.file ?? 'Project settings'} set trust.default to ${JSON.stringify(d.value)}; it is ignored, because a project must not be able to trust itself.`,
      'remove trust.default from the project settings; set it in your user settings (~/.config/airlock/settings.json) if you want it.',
    ),
  ),

  AIRLOCK_TRUST_DEFAULT_INVALID: entry<{ value: unknown }>('warning', {
    message: 'Settings set trust.default to {value}; expected "ask", "always" or "never". "ask" is used.',
    action: 'Set trust.default to "ask", "always" or "never".',
  }, (d, s) =>
    withFix(
      `${s.file ?? 'Settings'} set trust.default to ${JSON.stringify(d.value)}; expected "ask", "always" or "never". "ask" is used.`,
      'set trust.default to "ask", "always" or "never".',
    ),
  ),
} as const;

export type DiagnosticCode = keyof typeof CATALOGUE;

for (const [raisedBy, trust] of [['host (extension loader)', false], ['host (project trust)', true]] as const) {
  const codes = Object.entries(CATALOGUE).filter(([code]) => code.startsWith('AIRLOCK_TRUST_') === trust);
  registerErrorCodes(raisedBy, Object.fromEntries(codes.map(([code, e]) => [code, { severity: e.severity, ...e.doc } satisfies ErrorCodeSpec])));
}
type DetailsOf<C extends DiagnosticCode> = (typeof CATALOGUE)[C] extends Entry<infer D> ? D : never;

/**
 * Build a diagnostic from the catalogue.
 *
 * @example
 * diagnostic('AIRLOCK_EXTENSION_NOT_FOUND', { extension: '@acme/guard', layer: 'user' },
 *   { spec: '@acme/guard', kind: 'package', searched: ['/p/node_modules/@acme/guard'] });
 */
export function diagnostic<C extends DiagnosticCode>(
  code: C,
  subject: Subject,
  details: DetailsOf<C>,
  error?: unknown,
): Diagnostic<DiagnosticCode> {
  const e = CATALOGUE[code] as unknown as Entry<DetailsOf<C>>;
  // Worded from the details and subject as displayFields shows them: a folder, a settings entry or
  // an error's words from outside stay on one line, so none can add a line (a false `Fix:`).
  const { message, fix } = e.render(displayFields(details), displayFields(subject));
  const d: { -readonly [K in keyof Diagnostic<DiagnosticCode>]: Diagnostic<DiagnosticCode>[K] } = {
    code,
    severity: e.severity,
    message,
    fix,
    details: details as Readonly<Record<string, unknown>>,
  };
  if (subject.extension !== undefined) d.extension = subject.extension;
  if (subject.spec !== undefined) d.spec = subject.spec;
  if (subject.layer !== undefined) d.layer = subject.layer;
  if (subject.file !== undefined) d.file = subject.file;
  if (error !== undefined) d.error = errorText(error);
  if (error instanceof Error && typeof error.stack === 'string') d.stack = error.stack;
  return Object.freeze(d);
}

/** The severity a code always has. */
export function severityOf(code: DiagnosticCode): Severity {
  return CATALOGUE[code].severity;
}

/** An error's message (with its cause), for people; never `[object Object]`. */
export function errorText(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error && !error.message.includes(error.cause.message) ? ` (cause: ${error.cause.message})` : '';
    return `${error.message}${cause}`;
  }
  if (typeof error === 'string') return error;
  try {
    return `a non-Error value was thrown: ${JSON.stringify(error)}`;
  } catch {
    return `a non-Error value was thrown: ${String(error)}`;
  }
}

function majorOf(version: string): string {
  return /^(\d+)/.exec(version)?.[1] ?? '1';
}
