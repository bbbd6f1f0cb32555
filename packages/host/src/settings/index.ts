/** Settings: the schema, discovery, the layers and how they merge, and their errors. */
export {
  defaultSettings,
  defineSettings,
  DEFAULT_CALL_TIMEOUT_MS,
  ExtensionSpecSchema,
  NOT_IN_PACKAGE_SETTINGS,
  PackageSettingsSchema,
  PermissionRuleSchema,
  PermissionsSchema,
  SETTING_KEYS,
  SettingsSchema,
  type ExtensionSpec,
  type PackageSettings,
  type PermissionEffect,
  type Permissions,
  type PermissionRule,
  type ProviderSettings,
  type Settings,
  type SettingsLayer,
} from './schema.js';
export { settingsProblems, validateSettings } from './validate.js';
export {
  findProjectSettings,
  MODULE_NAME,
  projectSearchDirs,
  readSettingsFile,
  SEARCH_PLACES,
  type ProjectSettingsFile,
  type RawSettings,
  type SearchBoundaries,
} from './discover.js';
export {
  loadSettings,
  userConfigDir,
  userSettingsFile,
  type LoadedSettings,
  type LoadSettingsOptions,
  type SettingsLayerRecord,
} from './layers.js';
export { addPermissionRule, localRulesFile, validateLocalRules, type AddedRule } from './local-rules.js';
export {
  extensionsToLoad,
  mergeLayers,
  type ExtensionEntry,
  type MergedSettings,
  type PackageSource,
  type PermissionEntry,
  type SkippedExtension,
  type SourcedLayer,
} from './merge.js';
export { isPathSpec, parseExtensionSpec, type ExtensionKind, type ParsedExtensionSpec } from './extension-spec.js';
export {
  stripKinds,
  stripTrustedOnly,
  TRUSTED_ONLY_KINDS,
  USER_ONLY_KINDS,
  unmarkedStrings,
  VALUE_KIND_KEYWORD,
  valueKind,
  valueKindOf,
  type StrippedValues,
  type ValueKind,
} from './value-kind.js';
export { checkPackagePolicy, PACKAGE_DIR_TOKEN, type PackagePolicy } from './package-policy.js';
export { settingsFileSafety, type UnsafeSettingsFile } from './file-safety.js';
export { toKernelOptions, toSelectOptions } from './kernel-options.js';
export {
  describeSource,
  SettingsError,
  type SettingsErrorCode,
  type SettingsErrorDetails,
  type SettingsLayerName,
  type SettingsProblem,
  type SettingsSource,
} from './errors.js';
export { providerSettings, type ProviderSetupFromSettings } from './provider-setup.js';
