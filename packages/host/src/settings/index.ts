/** Settings: the schema, discovery, the layers and how they merge, and their errors. */
export {
  defaultSettings,
  defineSettings,
  DEFAULT_CALL_TIMEOUT_MS,
  ExtensionSpecSchema,
  PermissionRuleSchema,
  SETTING_KEYS,
  SettingsSchema,
  type ExtensionSpec,
  type PermissionEffect,
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
