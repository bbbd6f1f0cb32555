/**
 * Extension loading and project trust: the host's public entry for both. Start reading at
 * load-extensions.ts (the whole flow), then resolve.ts → compat.ts → load.ts → api.ts.
 */
export {
  loadExtensions,
  planExtensions,
  type Blocked,
  type ExtensionPlan,
  type LoadExtensionsOptions,
  type LoadExtensionsResult,
  type PlanExtensionsOptions,
} from './load-extensions.js';
export { resolveExtension, type ResolveContext, type ResolveResult } from './resolve.js';
export { COMMAND_NAME, readManifest, POLICY_PHASES, RESERVED_COMMANDS, type ManifestResult } from './manifest.js';
export { checkKernelRange, versionSatisfies, type CompatInput } from './compat.js';
export { checkLockedPackage, LOCK_FILE, lockFileFor, packageFilesDigest, readLock, writeLockEntry, type Lock, type LockedPackage, type LockMismatch } from './lock.js';
export { validateOptions, type OptionsResult } from './options.js';
export { type SettingsForExtensions } from './settings-slice.js';
export { createExtensionJiti, importCommandModule, type ExtensionSetup } from './load.js';
export { inlineExtensionName, unwrapExtension } from './inline.js';
export { BUILTIN_TOOL_PACKAGES, DEFAULT_EXTENSIONS, DEFAULT_GUARDS, defaultExtensionEntries, withDefaultSet } from './defaults.js';
export { airlockConfigDir, airlockStateDir, defaultExtensionDirs, hostPackageDir } from './dirs.js';
export { diagnostic, severityOf, type DiagnosticCode } from './diagnostics.js';
export {
  LAYER_ORDER,
  type BundledExtensions,
  type ExtensionCommandEntry,
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
