// Bundle the built CLI into dist/airlock.mjs and the chunks it imports (dist/chunks/). Node 20
// spends most of a cold start resolving and compiling the ~700 files typebox is made of; a bundle
// starts the CLI in about 0.2 s instead of 0.55 s. It is split where main.ts imports a command's
// module: one file of 5.5 MB took ~0.3 s to compile at every start, `--version` included, while
// each command needs only part of it (`--help` and `--version` just commander; no command but
// `run` needs the agent and its provider SDKs, none but `mcp` the MCP SDK and zod). Loaded on demand and kept out of the bundle: jiti (with babel, only
// for TypeScript extensions and configs), the prompt library (only when a dialog shows) and
// sharp (native code; only when an image must be resized). Airlock's own default extensions are
// compiled in (scripts/bundle-entry.mjs), so the default set loads without jiti: about 0.2 s less.
import { rolldown } from 'rolldown';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('..', import.meta.url));
const bundle = await rolldown({
  input: `${cli}/scripts/bundle-entry.mjs`,
  platform: 'node',
  // web-tree-sitter stays a module of its own: it finds its .wasm next to itself.
  external: [/^node:/, /^jiti(\/|$)/, /^@inquirer\//, 'typescript', 'sharp', 'web-tree-sitter'],
  logLevel: 'warn',
});
// Chunks of an earlier build would be published with this one: start from an empty folder.
rmSync(`${cli}/dist/chunks`, { recursive: true, force: true });
await bundle.write({
  dir: `${cli}/dist`,
  format: 'esm',
  entryFileNames: 'airlock.mjs',
  chunkFileNames: 'chunks/[name]-[hash].mjs',
  sourcemap: true,
  // Node 20 decodes a module's UTF-8 on a slow path once one byte is not ASCII (~0.1 s for this
  // bundle), and V8 then scans a two-byte string. With the JSDoc comments left out (the source
  // maps carry the sources) and the rest escaped, every chunk is ASCII.
  charset: 'ascii',
  comments: { legal: true, annotation: true, jsdoc: false },
});
await bundle.close();
