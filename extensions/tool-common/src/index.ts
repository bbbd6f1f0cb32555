export { PathError, resolveExistingPath, resolveToolPath } from './paths.js';
