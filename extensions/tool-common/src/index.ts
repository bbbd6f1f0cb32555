export { PathError, realPathOrSelf, resolveExistingPath, resolveToolPath } from './paths.js';
export { comparePaths, compareNamesBytewise, DEFAULT_IGNORE_FILES, walk, type WalkEntry, type WalkEntryType, type WalkOptions } from './walk.js';
export { closeNames, suggestNear } from './suggest.js';
export { listingResult, type Listing, type ListingDetails } from './listing.js';
export { codeForErrno, rootError, settle, unreadableDetails, unreadableNotice, type Unreadable, type UnreadableDetails } from './unreadable.js';
export { writeFileAtomic, type AtomicWriteOptions, type AtomicWriteResult } from './atomic-write.js';
export { displayPath, errnoCode, errorMessage, formatSize } from './format.js';
export { findExecutable } from './executable.js';
export { FileGate, FILE_WORDS, FOLDER_WORDS, skippedDetails, skippedNotice, type SkippedDetails, type SkippedFile, type SkippedWords } from './file-gate.js';
