/**
 * Extension loading and project trust: the host's public entry for both. Start reading at
 * load-extensions.ts (the whole flow), then resolve.ts → compat.ts → load.ts → api.ts.
 */
export {
  loadExtensions,
  type Blocked,
  type ExtensionCommandEntry,
  type LoadExtensionsOptions,
  type LoadExtensionsResult,
} from './load-extensions.js';
export { RESERVED_COMMANDS } from './api.js';
export { resolveExtension, type ResolveContext, type ResolveResult } from './resolve.js';
export { readManifest, POLICY_PHASES, type ManifestResult } from './manifest.js';
export { checkKernelRange, type CompatInput } from './compat.js';
export { validateOptions, type OptionsResult } from './options.js';
export { createExtensionJiti } from './load.js';
export { inlineExtensionName, unwrapExtension } from './inline.js';
export { BUILTIN_TOOL_PACKAGES, DEFAULT_EXTENSIONS, DEFAULT_GUARDS, defaultExtensionEntries, withDefaultSet } from './defaults.js';
export { airlockConfigDir, airlockStateDir, defaultExtensionDirs, hostPackageDir } from './dirs.js';
export { diagnostic, severityOf, type DiagnosticCode } from './diagnostics.js';
export {
  LAYER_ORDER,
  type BundledExtensions,
  type ExtensionDirs,
  type ExtensionToLoad,
  type InlineExtension,
  type ExtensionListener,
  type ExtensionRecord,
  type ExtensionStatus,
  type FoundIn,
  type LoadedExtension,
  type RegisteredHandler,
  type ResolvedExtension,
  type SettingsLayerName,
} from './types.js';
export {
  defaultTrustFile,
  findTrust,
  readTrustStore,
  resolveTrust,
  setTrust,
  trustModeFromLayers,
  type ResolveTrustOptions,
  type TrustDecision,
  type TrustEntry,
  type TrustMode,
  type TrustSettingsLayer,
} from '../trust/index.js';
