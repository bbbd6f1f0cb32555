/**
 * The `code` of a Node system error (`ENOENT`, `EACCES` …), or undefined for anything else.
 * Only a string counts: some libraries put numbers in `code`, which are not errno names.
 *
 * @example errnoCode(Object.assign(new Error('gone'), { code: 'ENOENT' })) // "ENOENT"
 */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}
