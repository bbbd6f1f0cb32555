import type { ExtensionEntry } from './types.js';

/**
 * The default set: what loads when settings name no extensions. The built-in tools first, then
 * the policy extensions, so the audit log sees every tool registered before it.
 */

/** Airlock's own tool packages. Their tools register with source "builtin" (so --no-builtin-tools applies). */
export const BUILTIN_TOOL_PACKAGES: readonly string[] = Object.freeze([
  '@airlock/tool-read',
  '@airlock/tool-bash',
  '@airlock/tool-edit',
  '@airlock/tool-write',
  '@airlock/tool-grep',
  '@airlock/tool-find',
  '@airlock/tool-ls',
]);

export const DEFAULT_EXTENSIONS: readonly string[] = Object.freeze([
  ...BUILTIN_TOOL_PACKAGES,
  '@airlock/audit-log',
  '@airlock/path-policy',
  '@airlock/approval',
  '@airlock/redact-secrets',
]);

/**
 * The default set as settings entries of the `defaults` layer. A missing one is reported as
 * "not installed" (a warning), never as a load error.
 *
 * @example
 * defaultExtensionEntries('/opt/airlock').map((e) => e.spec); // ['@airlock/tool-read', …, '@airlock/redact-secrets']
 */
export function defaultExtensionEntries(baseDir: string, names: readonly string[] = DEFAULT_EXTENSIONS): ExtensionEntry[] {
  return names.map((spec) => ({ spec, layer: 'defaults' as const, baseDir }));
}
