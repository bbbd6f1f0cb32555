/**
 * The npm keyword that marks an Airlock extension package. Registries index `keywords`, so it is
 * how `airlock extensions search` (and `npm search keywords:airlock-extension`) finds packages;
 * `airlock extensions new` puts it in every scaffold and `extensions check` warns when it is missing.
 */
export const EXTENSION_KEYWORD = 'airlock-extension';

/**
 * Whether a package.json `keywords` value (anything a registry or a file holds) carries the keyword.
 *
 * @example hasExtensionKeyword(['airlock-extension', 'git']) // true
 */
export function hasExtensionKeyword(keywords: unknown): boolean {
  return Array.isArray(keywords) && keywords.includes(EXTENSION_KEYWORD);
}
