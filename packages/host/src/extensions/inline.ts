import type { InlineExtension } from './types.js';

/**
 * Extension modules handed over in code (`openHost({ modules })`): what the object is and what
 * it is called, the same for the entry the host builds and for resolution.
 */

/**
 * The extension itself: `import * as m from './guard.js'` hands a module namespace, whose default
 * export is the extension; anything with a `setup` (or without a `default`) is taken as it is.
 *
 * @example
 * unwrapExtension({ default: guard }) === guard; // true
 */
export function unwrapExtension(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if ('setup' in value || !('default' in value)) return value;
  return (value as { default: unknown }).default;
}

/**
 * The name messages and tools' origin use: the one given, else the extension's own `name`.
 *
 * @example
 * inlineExtensionName({ extension: defineExtension({ name: 'no-env', setup() {} }) }); // 'no-env'
 */
export function inlineExtensionName(module: InlineExtension): string | undefined {
  if (module.name !== undefined) return module.name;
  const name = (unwrapExtension(module.extension) as { name?: unknown } | null | undefined)?.name;
  return typeof name === 'string' ? name : undefined;
}
