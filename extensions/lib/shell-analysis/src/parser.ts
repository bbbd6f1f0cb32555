import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { Language, Parser } from 'web-tree-sitter';

// Both .wasm files are found through module resolution from this file, never through the
// caller's cwd: it works from src/ under vitest and jiti, and from a bundle as long as the two
// packages resolve from the bundle's folder (see README.md).
const require = createRequire(import.meta.url);

let parser: Parser | undefined;
let loading: Promise<Parser> | undefined;

async function load(): Promise<Parser> {
  // V8 compiles the two modules (1.3 MB of grammar) with its optimizing tier in the background,
  // and a process cannot exit before that finishes: a one-shot `airlock call bash` took ~0.9 s
  // instead of ~0.3 s. The baseline compiler alone is also faster for short parses here (0.08 vs
  // 0.15 ms for a typical command line). The flag is process-wide and only affects WebAssembly.
  setFlagsFromString('--liftoff-only');
  const runtimeWasm = require.resolve('web-tree-sitter/web-tree-sitter.wasm');
  const bashWasm = require.resolve('@vscode/tree-sitter-wasm/wasm/tree-sitter-bash.wasm');
  // locateFile overrides web-tree-sitter's own `new URL(…, import.meta.url)`, which points at the
  // wrong folder once web-tree-sitter is bundled.
  await Parser.init({ locateFile: () => runtimeWasm });
  const bash = await Language.load(bashWasm);
  const created = new Parser();
  created.setLanguage(bash);
  return created;
}

/** Loads the parser once per process; later calls return the same promise. */
export function initParser(): Promise<Parser> {
  loading ??= load().then(
    (ready) => (parser = ready),
    (error: unknown) => {
      loading = undefined; // a failed load (e.g. missing file) may be retried after a fix
      throw error;
    },
  );
  return loading;
}

/** The parser if it is loaded, for the synchronous entry point. */
export function loadedParser(): Parser | undefined {
  return parser;
}
