import { createRequire } from 'node:module';
import { Language, Parser } from 'web-tree-sitter';

// Both .wasm files are found through module resolution from this file, never through the
// caller's cwd: it works from src/ under vitest and jiti, and from a bundle as long as the two
// packages resolve from the bundle's folder (see README.md).
const require = createRequire(import.meta.url);

let parser: Parser | undefined;
let loading: Promise<Parser> | undefined;

async function load(): Promise<Parser> {
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
