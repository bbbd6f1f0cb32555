/**
 * `@airlock/toolkit/display`: how to show text from a model, a file or a tool to a person. Pure
 * functions with no state, so extensions may import this subpath at run time (the host hands
 * jiti-loaded extensions its own copy, as it does the kernel itself).
 */
export { displayFields, displayText, displayValue, isHiddenCharacter, terminalSafe, type DisplayOptions, type TerminalSafeOptions } from './untrusted-text.js';
export { countOf } from './count.js';
