/**
 * @airlock/host — settings, extension loading, project trust and dialogs, around one kernel.
 * Start at host.ts (`openHost`).
 */
export * from './settings/index.js';
export {
  loadExtensions,
  planExtensions,
  importCommandModule,
  resolveExtension,
  readManifest,
  checkKernelRange,
  versionSatisfies,
  validateOptions,
  createExtensionJiti,
  BUILTIN_TOOL_PACKAGES,
  DEFAULT_EXTENSIONS,
  DEFAULT_GUARDS,
  defaultExtensionEntries,
  withDefaultSet,
  airlockConfigDir,
  checkLockedPackage,
  LOCK_FILE,
  lockFileFor,
  packageFilesDigest,
  readLock,
  writeLockEntry,
  type Lock,
  type LockedPackage,
  airlockStateDir,
  defaultExtensionDirs,
  hostPackageDir,
  diagnostic,
  severityOf,
  POLICY_PHASES,
  LAYER_ORDER,
  RESERVED_COMMANDS,
  type Blocked,
  type ExtensionCommandEntry,
  type ExtensionPlan,
  type ExtensionSetup,
  type PlanExtensionsOptions,
  type LoadExtensionsOptions,
  type LoadExtensionsResult,
  type SettingsForExtensions,
  type DiagnosticCode,
  type BundledExtensions,
  type ExtensionDirs,
  type ExtensionListener,
  type ExtensionRecord,
  type InlineExtension,
  type ExtensionStatus,
  type FoundIn,
  type LoadedExtension,
  type RegisteredHandler,
  type ResolvedExtension,
} from './extensions/index.js';
export * from './trust/index.js';
export * from './ui/index.js';
export { openHost, type Host, type HostBlocked, type HostFlags, type OpenHostOptions } from './host.js';
export { declaredCommands, type DeclaredCommands } from './declared-commands.js';
// One shape for every problem reported without throwing, from the kernel, the loader, settings or the host.
export type { Diagnostic, Severity } from '@airlock/contract';
export { protectedPaths, SETTINGS_NAMES, type ProtectedPathsInput } from './protected-paths.js';
export { createImageResizer, resizeNote } from './images/resize.js';
export { createSandbox, detectBubblewrap, DEFAULT_WALK_BOUNDS, planMounts, planMountsSync, bwrapArgs, sandboxHint, INSTALL_FIX, SandboxPlanError, type HostSandbox, type SandboxOptions, type MountPlan, type PlanOptions, type WalkBounds, type Detection } from './sandbox/index.js';
