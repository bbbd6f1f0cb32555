import type { Node, Parser } from 'web-tree-sitter';
import { parseAsBash } from './normalize.js';
import { initParser, loadedParser } from './parser.js';
import type { Analysis, AnalyzeOptions, Context, SimpleCommand } from './types.js';
import { Unsure, unsure } from './unsure.js';
import { Walker } from './walk.js';

const DEFAULT_MAX_LENGTH = 10_000;
const DEFAULT_MAX_DEPTH = 3;

/** The first ERROR or MISSING node, to say where the input stops being shell. */
function firstError(node: Node): Node | undefined {
  if (node.isError || node.isMissing) return node;
  for (const child of node.children) {
    if (child?.hasError || child?.isMissing) return firstError(child);
  }
  return undefined;
}

function parseScript(
  parser: Parser,
  script: string,
  depth: number,
  options: Required<AnalyzeOptions>,
  context: Context[],
  cwd: string | undefined,
): SimpleCommand[] {
  if (depth > options.maxDepth) unsure(`nesting deeper than ${options.maxDepth} levels`);
  if (script.length > options.maxLength) unsure(`longer than ${options.maxLength} characters`);
  // bash cannot receive a NUL in a command string; whatever runs it would cut or reject it.
  if (script.includes('\0')) unsure('contains a NUL byte');
  const { tree } = parseAsBash(parser, script);
  try {
    const root = tree.rootNode;
    // tree-sitter recovers from syntax errors by inserting ERROR and MISSING nodes: the tree
    // around them is a guess, so any error makes the whole input unsure.
    if (root.hasError) {
      const at = firstError(root);
      unsure(`parse error${at ? ` near ${JSON.stringify(at.text.slice(0, 40))} at offset ${at.startIndex}` : ''}`);
    }
    const nested = (inner: string, innerContext: Context[], innerCwd: string | undefined) =>
      parseScript(parser, inner, depth + 1, options, innerContext, innerCwd);
    return new Walker(root, nested, context, cwd).run(root);
  } finally {
    tree.delete(); // trees live in WASM memory, not the JS heap
  }
}

function run(parser: Parser, command: string, options: AnalyzeOptions | undefined): Analysis {
  const resolved = { maxLength: options?.maxLength ?? DEFAULT_MAX_LENGTH, maxDepth: options?.maxDepth ?? DEFAULT_MAX_DEPTH };
  try {
    return { ok: true, commands: parseScript(parser, command, 0, resolved, [], undefined) };
  } catch (error) {
    if (error instanceof Unsure) return { ok: false, reason: error.message };
    throw error;
  }
}

/** Loads the parser (about 40 ms, once per process). analyzeShellSync needs it done first. */
export async function initShellAnalysis(): Promise<void> {
  await initParser();
}

/** Lists every simple command in a bash command string, with the files they read and write. */
export async function analyzeShell(command: string, options?: AnalyzeOptions): Promise<Analysis> {
  return run(await initParser(), command, options);
}

/** Same as analyzeShell, once initShellAnalysis() has resolved; throws before that. */
export function analyzeShellSync(command: string, options?: AnalyzeOptions): Analysis {
  const parser = loadedParser();
  if (!parser) throw new Error('analyzeShellSync: call `await initShellAnalysis()` first');
  return run(parser, command, options);
}
