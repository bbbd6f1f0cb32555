export { analyzeShell, analyzeShellSync, initShellAnalysis } from './analyze.js';
export type { Analysis, AnalyzeOptions, Context, Link, Redirect, RevisionRead, SimpleCommand } from './types.js';
export { WRAPPER_NAMES } from './wrappers.js';
export { COMMAND_STRING_PROGRAMS } from './command-strings.js';
export { FILE_SPECS } from './file-args.js';
