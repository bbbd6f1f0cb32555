export { PathError, resolveExistingPath, resolveToolPath } from './paths.js';
export { comparePaths, compareNamesBytewise, DEFAULT_IGNORE_FILES, walk, type WalkEntry, type WalkEntryType, type WalkOptions } from './walk.js';
