import type { ShellAnalysis, ShellCommand, ShellContext, ShellLink, ShellRedirect, ShellRevisionRead } from '@airlock/contract';

// The shapes live in the kernel's contract (every tool_call handler sees them through
// event.analyzeCommand); here under the names this library has always used.
export type Analysis = ShellAnalysis;
export type SimpleCommand = ShellCommand;
export type Context = ShellContext;
export type Link = ShellLink;
export type Redirect = ShellRedirect;
export type RevisionRead = ShellRevisionRead;

export interface AnalyzeOptions {
  /** Longer input is not analysed (ok:false). Default 10 000 characters. */
  maxLength?: number;
  /** How deep strings run as scripts may nest (bash -c, eval, backticks in backticks, heredoc scripts). Default 3. */
  maxDepth?: number;
}
