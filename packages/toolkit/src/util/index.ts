/**
 * `@airlock/toolkit/util`: pure helpers, for extensions to import at run time instead
 * of keeping copies that drift from the kernel's wording. Nothing here has state or touches the
 * kernel's queues, so a second copy would do no harm; still, the host hands jiti-loaded
 * extensions its own module object (as it does the kernel and `/display`), and built-in
 * extensions resolve this same file, so there is one instance.
 *
 * @example
 * import { appendNotice, formatSize, tailNotice } from '@airlock/toolkit/util';
 * const text = appendNotice(kept, tailNotice(result, { fullOutputPath }));
 */

// Sizes and truncation notices: the one wording of "what was shown, of how much, how to get the rest".
export { countLines, formatSize, utf8ByteLength } from '../output/truncate.js';
export { appendNotice, headNotice, lineTooLongNotice, moreLinesNotice, tailNotice, truncationNotice, type NoticeOptions } from '../output/notice.js';
// A path as one word of a command a person pastes into a shell.
export { shellQuote } from '../output/notice.js';

// Image sniffing by magic bytes (never by file name) and pixel size from the header.
export {
  imageDimensions,
  sniffBase64ImageMime,
  sniffConvertibleMime,
  sniffImageMime,
  type ConvertibleMime,
  type ImageMime,
} from '../output/images.js';

// Which file a name led to when the policy judged it (ToolContext.judged), for tools that open it later.
export { identityOf, judgedFileAt, sameIdentity } from './file-identity.js';

// "Did you mean …?" for names people and models type (tools, rule kinds, file names).
export { closestNames, didYouMean, editDistance } from '../suggest.js';
export { refuseUnknownOptions } from './unknown-options.js';

// "This value does not match its schema", in one wording for arguments, settings and options.
export {
  describeReceived,
  describeSchema,
  formatSchemaProblem,
  pointerKeys,
  propertyPath,
  schemaProblemLines,
  schemaProblems,
  type SchemaProblem,
  type SchemaProblemOptions,
} from './schema-problems.js';

// Regexes from text Airlock did not write (schemas, hook matchers, settings, the model's grep
// pattern): matched by RE2 in linear time, or refused with the reason.
export { LinearRegExp, LinearRegExpError, linearRegExp, linearRegExpProblem } from './linear-regex.js';
export { linearSchema, SchemaRegexError, schemaRegexProblem } from './linear-schema.js';

// Echoing what the model sent, bounded: the first 2,048 characters, then its length and SHA-256.
export { cloneValue, cutForEcho, deepFreeze, ECHO_KEEP_CHARS, isPlainObject, isThenable, jsonEqual, MAX_VALUE_DEPTH, nestsDeeperThan, previewJson } from '../values.js';

// Errors in words: anything thrown, and Node system errors.
export { errorMessage } from '../values.js';
export { errnoCode, errnoWords, isPermissionDenied } from './errno.js';

// Per-project state outside the project (audit logs, transcripts): one place computes the folder.
export { airlockStateHome, projectKey, projectRoot, projectStateDir, stateHome, type StateLocation } from './project-state.js';
// The error catalogue: an extension that raises its own codes registers them, so docs/errors.md lists them.
export { registerErrorCodes, type ErrorCodeSpec } from '../error-catalogue.js';

// Asking a person (ToolUI.ask): the one check of an ask and of its answer, and why an ask ended
// without an answer, in words.
export { askProblem, askToShow, checkAnswer, YES_NO } from './ask.js';
export { noAnswerText } from './no-answer.js';
// Starting bash for Airlock's own scripts without the person's ~/.bashrc.
export { BASH_NO_STARTUP_FILES } from './bash-flags.js';
