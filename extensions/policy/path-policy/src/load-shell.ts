import type { ShellAnalyzer } from './policy.js';

/**
 * One import of the parser's module per process, shared by every policy and every first call in
 * flight: a call's answer must not depend on which caller started the import. The
 * parser (tree-sitter, WASM) loads on the first command only; a failed load fails that call
 * closed and the next call tries again.
 */
let loading: Promise<ShellAnalyzer> | undefined;

export function loadShell(): Promise<ShellAnalyzer> {
  loading ??= import('@airlock/shell-analysis').then(
    (mod) => mod.analyzeShell,
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}
