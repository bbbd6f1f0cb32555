import type { ShellAnalyzer } from './policy.js';

/** The parser (tree-sitter, WASM) loads on the first command only; a load failure fails that call closed. */
export async function loadShell(): Promise<ShellAnalyzer> {
  const mod = await import('@airlock/shell-analysis');
  return mod.analyzeShell;
}
