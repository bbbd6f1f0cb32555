export { analyzeShell, analyzeShellSync, initShellAnalysis } from './analyze.js';
export type { Analysis, AnalyzeOptions, Context, Link, Redirect, RevisionRead, SimpleCommand } from './types.js';
export { WRAPPER_NAMES } from './wrappers.js';
export { FILE_SPECS } from './file-args.js';
