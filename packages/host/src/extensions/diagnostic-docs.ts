import type { ErrorCodeSpec } from '@airlock/toolkit';
import type { DiagnosticCode } from './diagnostics.js';

/**
 * The catalogue entries (docs/errors.md) of the extension loader's and project trust's codes.
 * Typed by the codes of diagnostics.ts, so a code added there without its entry here does not
 * compile. `message` says what the rendered message says; the rendered one names the real values.
 */
export const EXTENSION_DIAGNOSTIC_DOCS: Record<DiagnosticCode, Omit<ErrorCodeSpec, 'severity'>> = {
  AIRLOCK_EXTENSION_SPEC_INVALID: {
    message: 'Extension entry {spec} in {settings file} is not usable: {reason}.',
    action: 'Name a package ("@acme/guard") or a path starting with ./, ../, / or ~/.',
  },
  AIRLOCK_EXTENSION_NOT_FOUND: {
    message: 'Extension "{spec}" was not found (every place looked in is listed, with close names).',
    action: 'Install it in the project or your user folder, correct the name or path, or trust the project whose node_modules hold it.',
  },
  AIRLOCK_EXTENSION_NOT_INSTALLED: {
    message: 'Default extension "{spec}" is not installed, so what it provides is missing from this run.',
    action: 'Install it next to Airlock, or leave it out on purpose with "-{spec}" under "extensions".',
  },
  AIRLOCK_EXTENSION_GUARDS_LEFT_OUT: {
    message: 'Your settings leave out a guard (a default one, or a policy extension an earlier layer lists), so this run is less protected.',
    action: 'If that is not what you want, remove the "-{spec}" entries (or "enabled": false) from "extensions".',
  },
  AIRLOCK_EXTENSION_LEFT_OUT_UNKNOWN: {
    message: 'The entry leaving out "{spec}" leaves out nothing: no default and no earlier layer loads an extension by that name.',
    action: 'Write the name of the extension to leave out (the closest is suggested), or remove the entry.',
  },
  AIRLOCK_EXTENSION_UNTRUSTED: {
    message: 'Project extension "{spec}" was not loaded: the project folder is not trusted, and an extension is code.',
    action: 'Review the project, then run `airlock trust <dir>` (or pass --trust for one run).',
  },
  AIRLOCK_EXTENSION_LISTED_TWICE: {
    message: 'Extension "{spec}" is listed more than once; the entry from the highest layer is used, with its options.',
    action: 'List each extension once, in the settings layer whose options should apply.',
  },
  AIRLOCK_EXTENSION_MANIFEST_MISSING: {
    message: 'Extension "{spec}" at {packageDir} is not an Airlock extension: its package.json has no "airlock" field.',
    action: 'Add "airlock": { "extension": "./src/index.ts", "kernel": "^1.0.0" } to its package.json, or remove it from your settings.',
  },
  AIRLOCK_EXTENSION_MANIFEST_INVALID: {
    message: 'Extension "{spec}" has an invalid manifest (package.json#airlock); every problem is listed.',
    action: 'Correct package.json#airlock (extension, kernel, provides).',
  },
  AIRLOCK_EXTENSION_ENTRY_NOT_FOUND: {
    message: 'The manifest of extension "{spec}" names the entry module "{entry}", which does not exist.',
    action: 'Build the extension, point "extension" at its TypeScript source, or reinstall the package.',
  },
  AIRLOCK_EXTENSION_KERNEL_RANGE_INVALID: {
    message: 'Extension "{spec}" declares the kernel range "{range}", which is not a valid semver range.',
    action: 'Upgrade the extension to a release with a valid range (e.g. "^1.0.0"), or remove it.',
  },
  AIRLOCK_EXTENSION_INCOMPATIBLE: {
    message: 'Extension "{spec}" needs kernel "{range}", but this Airlock runs kernel {kernelVersion}; it was not loaded.',
    action: 'Upgrade whichever side is too old (the message says which), or use a release of the extension that supports this kernel.',
  },
  AIRLOCK_EXTENSION_IMPORT_FAILED: {
    message: 'Extension "{spec}" threw while its module {entryFile} was imported: {reason}.',
    action: 'Fix the error in the extension (or update it), or remove it from your settings.',
  },
  AIRLOCK_EXTENSION_BAD_EXPORT: {
    message: 'The module {entryFile} of extension "{spec}" does not default-export an extension (the problems are listed).',
    action: 'Default-export { name, options?, setup(api, options) } satisfies Extension (docs/extensions.md).',
  },
  AIRLOCK_EXTENSION_NAME_TAKEN: {
    message: 'Extension "{spec}" calls itself "{name}", but another extension already loaded under that name.',
    action: 'Remove one of the two from your settings, or rename one extension.',
  },
  AIRLOCK_EXTENSION_OPTIONS_INVALID: {
    message: "Extension \"{spec}\" was not loaded: its options do not match its schema (every bad path is listed).",
    action: 'Correct the options for this extension in the settings file named.',
  },
  AIRLOCK_EXTENSION_OPTIONS_UNEXPECTED: {
    message: 'Extension "{spec}" takes no options, but settings give it some; they are passed on unchecked.',
    action: "Remove the options, or ask the extension's author to declare an options schema.",
  },
  AIRLOCK_EXTENSION_OPTIONS_UNTRUSTED: {
    message: 'Ignored options {ignored} of extension "{spec}": the layer is not trusted, and only a trusted layer may set a path, a program or code.',
    action: 'Trust the project folder (`airlock trust`), or set the option in your user settings.',
  },
  AIRLOCK_EXTENSION_OPTIONS_USER_ONLY: {
    message: 'Ignored options {ignored} of extension "{spec}": they are credentials (a key, or where one is sent), which only your user settings or the command line may set, never a project.',
    action: 'Set those options in your user settings file.',
  },
  AIRLOCK_EXTENSION_LOAD_FAILED: {
    message: 'Extension "{spec}" could not be loaded: {reason} (not expected at this step; the other extensions still loaded).',
    action: 'Run the command again; if it happens again, report it with the message, or remove the extension.',
  },
  AIRLOCK_EXTENSION_SETUP_FAILED: {
    message: 'Extension "{spec}" failed in setup: {reason}; what it had registered was removed again.',
    action: 'Fix the error in the extension or its options (the message says which), or remove it from your settings.',
  },
  AIRLOCK_EXTENSION_SETUP_TIMEOUT: {
    message: 'Extension "{spec}" did not finish setup within {timeoutMs} ms; it was not loaded.',
    action: 'Make setup return once its tools and handlers are registered; start long work lazily.',
  },
  AIRLOCK_EXTENSION_DUPLICATE_TOOL: {
    message: 'Extension "{spec}" registers tool "{tool}", which {existing} already registered.',
    action: 'Remove one of the two extensions, rename the tool, or set `override: true` on the tool that should win.',
  },
  AIRLOCK_EXTENSION_TOOL_INVALID: {
    message: 'Extension "{spec}" registers an invalid tool "{tool}": {reason}.',
    action: 'Correct the tool definition in the extension (or update it), or remove it from your settings.',
  },
  AIRLOCK_EXTENSION_COMMAND_INVALID: {
    message: 'Extension "{spec}" declares a command another extension already declares, so it was not loaded.',
    action: 'Rename the command in one package.json#airlock.commands, or remove one of the two extensions from your settings.',
  },
  AIRLOCK_EXTENSION_COMMAND_UNDECLARED: {
    message: 'Extension "{spec}" calls api.registerCommand("{command}"), which adds no command; the extension loads without it.',
    action: 'Declare the command in package.json#airlock.commands with a module that default-exports defineCommand(...), and remove the call.',
  },
  AIRLOCK_EXTENSION_HANDLER_INVALID: {
    message: 'Extension "{spec}" adds a handler "{handler}" that the kernel refused: {reason}.',
    action: 'Correct the api.on(...) call in the extension (or update it), or remove it from your settings.',
  },
  AIRLOCK_EXTENSION_TOOL_UNJUDGED: {
    message: 'Tool "{tool}" takes parameters that look like paths but declares no resources(), so path rules never reach its calls.',
    action: 'Give the tool a resources(params, ctx); until then, rule on the tool by name.',
  },
  AIRLOCK_EXTENSION_PROVIDES_MISMATCH: {
    message: 'Extension "{spec}" registers something other than its manifest declares (package.json#airlock.provides).',
    action: 'Make provides list exactly the tools and "hook:phase" pairs the extension registers.',
  },
  AIRLOCK_TRUST_FILE_INVALID: {
    message: 'The trust file {trustFile} cannot be read ({reason}); no folder counts as trusted until it is fixed.',
    action: 'Fix or delete the trust file, then trust folders again with `airlock trust <dir>`.',
  },
  AIRLOCK_TRUST_FILE_INSECURE: {
    message: 'The trust file {trustFile} is ignored: {reason}. Someone else could mark folders as trusted through it.',
    action: 'chmod 600 the file (and make sure it is yours), or delete it and trust folders again.',
  },
  AIRLOCK_TRUST_DEFAULT_IGNORED: {
    message: 'Project settings set trust.default; it is ignored, because a project must not be able to trust itself.',
    action: 'Remove trust.default from the project settings; set it in your user settings if you want it.',
  },
  AIRLOCK_TRUST_DEFAULT_INVALID: {
    message: 'Settings set trust.default to {value}; expected "ask", "always" or "never". "ask" is used.',
    action: 'Set trust.default to "ask", "always" or "never".',
  },
};
