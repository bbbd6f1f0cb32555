/**
 * Node system errors in words. Every tool that touches files meets the same few errno codes; one
 * wording here keeps "permission denied" or "the file system is read-only" the same in every
 * tool's message, while each tool adds its own "what to do instead".
 */

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

const WORDS: Readonly<Record<string, string>> = Object.freeze({
  EACCES: 'permission denied',
  // "Operation not permitted": to a model the same fact as EACCES, and the same remedy.
  EPERM: 'permission denied',
  ENOENT: 'there is no such file or folder',
  ENOTDIR: 'a part of the path before the file name is a file, not a folder',
  EISDIR: 'it is a folder, not a file',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'the name or path is too long',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left',
  EDQUOT: 'no space left',
  EMFILE: 'too many files are open',
  EBUSY: 'the file is busy',
});

/**
 * What an errno code means, in a phrase that fits after "Cannot read x: "; undefined for a code
 * with no wording here (say the error's own message then).
 *
 * @example errnoWords('EROFS') // "the file system is read-only"
 * @example errnoWords(error)   // the same, from a Node system error
 */
export function errnoWords(codeOrError: unknown): string | undefined {
  const code = typeof codeOrError === 'string' ? codeOrError : errnoCode(codeOrError);
  return code === undefined || !Object.hasOwn(WORDS, code) ? undefined : WORDS[code];
}

/**
 * Whether a code (or a Node system error) says this process may not do it: EACCES or EPERM.
 *
 * @example isPermissionDenied('EPERM') // true
 */
export function isPermissionDenied(codeOrError: unknown): boolean {
  const code = typeof codeOrError === 'string' ? codeOrError : errnoCode(codeOrError);
  return code === 'EACCES' || code === 'EPERM';
}
