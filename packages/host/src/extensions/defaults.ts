import { isPathSpec } from '../settings/extension-spec.js';
import type { ExtensionToLoad } from './types.js';

/**
 * The default set: what loads whatever settings say, unless an entry leaves one out. The
 * built-in tools first, then the guards, so the audit log sees every tool registered before it.
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

/**
 * The default extensions that guard every call rather than add a tool, with what is lost
 * without each: leaving one out is allowed, and warned about on every run.
 */
export const DEFAULT_GUARDS: Readonly<Record<string, string>> = Object.freeze({
  '@airlock/audit-log': 'no call is recorded in the audit log',
  '@airlock/path-policy': 'no permission rule (deny, ask, allow) is applied and paths are not checked',
  '@airlock/approval': 'nobody is asked about calls that need approval',
  '@airlock/redact-secrets': 'secrets in tool output reach the model unredacted',
});

/**
 * Default observers: no tool, no vote. Telemetry is here so the standard OTEL_* variables turn it
 * on; its setup returns before loading the OpenTelemetry SDK unless an endpoint is configured.
 */
export const DEFAULT_OBSERVERS: readonly string[] = Object.freeze(['@airlock/telemetry']);

export const DEFAULT_EXTENSIONS: readonly string[] = Object.freeze([...BUILTIN_TOOL_PACKAGES, ...Object.keys(DEFAULT_GUARDS), ...DEFAULT_OBSERVERS]);

/**
 * The default set as settings entries of the `defaults` layer. A missing one is reported as
 * "not installed" (a warning), never as a load error.
 *
 * @example
 * defaultExtensionEntries('/opt/airlock').map((e) => e.spec); // ['@airlock/tool-read', …, '@airlock/redact-secrets']
 */
export function defaultExtensionEntries(baseDir: string, names: readonly string[] = DEFAULT_EXTENSIONS): ExtensionToLoad[] {
  return names.map((spec) => ({ spec, layer: 'defaults' as const, baseDir }));
}

/**
 * What settings add to the default set. An entry naming a default package takes that default's
 * place (its options, or `enabled: false` to leave it out) and keeps the default as the last
 * link of its `replaces` chain, so an entry the host may not use (an untrusted project's) falls
 * back to the default instead of removing it. Every other entry comes after the defaults, in order.
 *
 * @example
 * withDefaultSet([{ spec: '@acme/wc', layer: 'user', baseDir: '/u' }], defaultExtensionEntries('/opt/airlock'))
 *   .map((e) => e.spec); // [...DEFAULT_EXTENSIONS, '@acme/wc']
 * withDefaultSet([{ spec: '@airlock/audit-log', enabled: false, layer: 'user', baseDir: '/u' }], defaults)
 *   // the audit-log slot holds the disabled entry, which `replaces` the default one
 */
export function withDefaultSet(listed: readonly ExtensionToLoad[], defaults: readonly ExtensionToLoad[]): ExtensionToLoad[] {
  const out = [...defaults];
  for (const entry of listed) {
    const isPackage = entry.kind === 'package' || (entry.kind === undefined && !isPathSpec(entry.spec));
    const slot = isPackage ? out.findIndex((d) => d.layer === 'defaults' && d.spec === entry.spec) : -1;
    if (slot === -1) out.push(entry);
    else out[slot] = onTopOf(entry, out[slot]!);
  }
  return out;
}

/** `entry` with `base` at the end of its `replaces` chain (copies; settings' entries stay as they are). */
function onTopOf(entry: ExtensionToLoad, base: ExtensionToLoad): ExtensionToLoad {
  return { ...entry, replaces: entry.replaces === undefined ? base : onTopOf(entry.replaces, base) };
}
